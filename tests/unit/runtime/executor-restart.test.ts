// A run asked to start while a pass of it is still ending (an /approve or /answer that lands between
// the pause's commit and the pass's last step) must start again once that pass has ended, not wait for
// the sweeper. The database is a stand-in here: each lease claim (takeLease's UPDATE … RETURNING)
// waits until the test answers it, so the overlap is exact.
import { describe, expect, it } from "vitest";
import type { PrismaClient } from "@/server/generated/prisma/client";
import { createRunExecutor, type ExecutorDeps } from "@/server/platform/runtime/executor";

function harness() {
  const claims: ((rows: unknown[]) => void)[] = [];
  const prisma = {
    $queryRaw: () => new Promise<unknown[]>((resolve) => claims.push(resolve)),
  } as unknown as PrismaClient;
  const deps = { prisma, config: {}, load: { tryStart: () => true } } as unknown as ExecutorDeps;
  return { executor: createRunExecutor(deps), claims };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("executor start()", () => {
  it("starts a run again when asked while its pass is still ending", async () => {
    const { executor, claims } = harness();
    executor.start(7);
    await turn();
    expect(claims).toHaveLength(1);
    executor.start(7); // the pass is still going: remembered, not dropped
    await turn();
    expect(claims).toHaveLength(1);
    claims[0]!([]); // the first pass finds nothing to run and ends
    await turn();
    expect(claims).toHaveLength(2); // …and the run is claimed again
    claims[1]!([]);
    await executor.idle();
    expect(claims).toHaveLength(2);
  });

  it("asks once however often it was asked meanwhile", async () => {
    const { executor, claims } = harness();
    executor.start(8);
    await turn();
    executor.start(8);
    executor.start(8);
    claims[0]!([]);
    await turn();
    claims[1]!([]);
    await executor.idle();
    expect(claims).toHaveLength(2);
  });
});
