// A run whose process died must not stay `running`: the sweeper ends it as failed and interrupted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sweepAbandonedRuns } from "@/server/platform/runtime/sweeper";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { readFrames } from "../../helpers/sse";

let platform: PlatformHarness;
let account: Account;
beforeAll(async () => {
  platform = await startPlatform();
  account = await platform.signup({ require_end_user_id: false });
});
afterAll(() => platform.close());

async function runRow(overrides: { leaseExpiresAt: Date | null; updatedAt?: Date }) {
  const agent = (await platform.call("/agents", { key: account.key, body: { name: "Orphan" } })).body;
  const { prisma } = platform.database;
  const run = await prisma.platformRun.create({
    data: {
      accountId: account.id,
      agentId: agent.id,
      status: "running",
      permissionMode: "autonomous",
      humanInTheLoop: false,
      model: "inlay/sim",
      effort: "max",
      maxTurns: 2000,
      messages: [{ role: "user", content: "hello" }],
      metadata: { mine: 1 },
      leaseOwner: overrides.leaseExpiresAt ? "exec_dead" : null,
      leaseExpiresAt: overrides.leaseExpiresAt,
    },
  });
  if (overrides.updatedAt) {
    await prisma.$executeRaw`UPDATE platform_runs SET updated_at = ${overrides.updatedAt} WHERE id = ${run.id}`;
  }
  return run.id;
}

describe("abandoned runs", () => {
  it("ends a running run whose lease expired, with interrupted and auto_retryable, and a done frame", async () => {
    const { bus } = await platform.runtime();
    const orphan = await runRow({ leaseExpiresAt: new Date(Date.now() - 60_000) });
    const live = await runRow({ leaseExpiresAt: new Date(Date.now() + 60_000) });
    const fresh = await runRow({ leaseExpiresAt: null });

    const swept = await sweepAbandonedRuns(platform.database.prisma, bus, 30_000);
    expect(swept).toContain(orphan);
    expect(swept).not.toContain(live);
    expect(swept).not.toContain(fresh);

    const { body } = await platform.call(`/runs/${orphan}`, { key: account.key });
    expect(body).toMatchObject({
      status: "failed",
      stop_reason: "interrupted",
      metadata: { mine: 1, interrupted: true, auto_retryable: true },
    });
    const events = await platform.request(`/runs/${orphan}/events`, { headers: { authorization: `Bearer ${account.key}` } });
    const frames = await readFrames(events, { until: (frame) => frame.data.type === "done" });
    expect(frames.at(-1)!.data).toMatchObject({ type: "done", completion_state: "failed", stop_reason: "interrupted" });

    // Sweeping again ends nothing twice.
    expect(await sweepAbandonedRuns(platform.database.prisma, bus, 30_000)).not.toContain(orphan);
  });

  it("ends a run that was never claimed long after it was written", async () => {
    const { bus } = await platform.runtime();
    const stale = await runRow({ leaseExpiresAt: null, updatedAt: new Date(Date.now() - 120_000) });
    expect(await sweepAbandonedRuns(platform.database.prisma, bus, 30_000)).toContain(stale);
  });
});
