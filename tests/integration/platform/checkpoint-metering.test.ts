// A tool step's model call is billed exactly when the step is checkpointed (runtime/recovery.ts): a pass
// handed back redoes the steps after its last checkpoint, so a step billed but not checkpointed would be
// billed twice, and one checkpointed but not billed never. The checkpointer is driven directly here, on
// a run no worker holds (a web-only platform), its lease set by the test.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCheckpointer } from "@/server/platform/runtime/recovery";
import type { MeteredCall } from "@/server/platform/services/billing/billing";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let account: Account;
let agentId: number;

beforeAll(async () => {
  platform = await startPlatform({ role: "web" });
  account = await platform.signup({ require_end_user_id: false });
  agentId = (await platform.call("/agents", { key: account.key, body: { name: "Metered" } })).body.id;
});
afterAll(() => platform.close());

const prisma = () => platform.database.prisma;

/** A run that stays running and unclaimed (no worker here), leased to `owner` by the test. */
async function leasedRun(owner: string) {
  const created = await platform.call("/runs", { key: account.key, body: { teammate_id: agentId, message: "hi", stream: false } });
  expect(created.status).toBe(200);
  const run = await prisma().platformRun.update({
    where: { id: created.body.id },
    data: { leaseOwner: owner, leaseExpiresAt: new Date(Date.now() + 60_000) },
  });
  expect(run.status).toBe("running");
  return run;
}

/** A finished tool step, as the SDK hands it to onStepEnd, and its model call as agent-loop.ts meters it. */
function toolStep(run: { id: number; accountId: number; agentId: number }) {
  const step = {
    content: [
      { type: "tool-call" as const, toolCallId: "call_1", toolName: "calculator", input: { expression: "2*3" } },
      { type: "tool-result" as const, toolCallId: "call_1", toolName: "calculator", input: { expression: "2*3" }, output: 6 },
    ],
    response: { messages: [] },
  };
  const call: MeteredCall = {
    accountId: run.accountId,
    endUserId: null,
    runId: run.id,
    agentId: run.agentId,
    model: "inlay/sim",
    surface: "run",
    inputTokens: 120,
    outputTokens: 30,
    cacheReadTokens: 0,
    cacheCreationTokens: 0,
    costMicros: 4_321n,
    settledMeter: "wallet",
  };
  return { step, call };
}

/** Frames already in the log: the checkpointer waits for the tool result's frame. */
const sink = { writtenResults: new Set(["call_1"]), flush: async () => {} };

const billed = async (runId: number) => {
  const [usage, run] = await Promise.all([
    prisma().platformUsageRecord.findMany({ where: { runId } }),
    prisma().platformRun.findUniqueOrThrow({ where: { id: runId } }),
  ]);
  return { rows: usage.length, costMicros: run.costMicros, inputTokens: run.inputTokens, checkpoint: run.checkpoint };
};

describe("a tool step's model call and its checkpoint", () => {
  it("are written together while the pass holds the run", async () => {
    const run = await leasedRun("worker_a");
    const before = await billed(run.id);
    const { step, call } = toolStep(run);
    const { hooks, state } = createCheckpointer(prisma(), run.id, "worker_a", sink);
    hooks.onStepStart({ messages: [{ role: "user", content: "hi" }] });
    await hooks.onStepEnd(step, call);
    const after = await billed(run.id);
    expect(state.saved).toBe(true);
    expect(after.checkpoint).toMatchObject({ steps: 1, messages_json: expect.any(String) });
    expect(after.rows).toBe(before.rows + 1);
    expect(after.costMicros - before.costMicros).toBe(4_321n);
    expect(after.inputTokens - before.inputTokens).toBe(120);
  });

  it("are neither written once the run went on elsewhere: the next pass redoes the step and bills it", async () => {
    for (const owner of ["worker_b", null]) {
      const run = await leasedRun("worker_a");
      // Taken over by another worker, or handed back (no lease) before this step's checkpoint.
      await prisma().platformRun.update({ where: { id: run.id }, data: { leaseOwner: owner } });
      const before = await billed(run.id);
      const { step, call } = toolStep(run);
      const { hooks, state } = createCheckpointer(prisma(), run.id, "worker_a", sink);
      hooks.onStepStart({ messages: [{ role: "user", content: "hi" }] });
      await hooks.onStepEnd(step, call);
      expect(state.saved).toBe(false);
      expect(await billed(run.id)).toEqual(before);
    }
  });

  it("bills the step without a checkpoint when the run ended meanwhile: nothing will redo it", async () => {
    const run = await leasedRun("worker_a");
    await platform.call(`/runs/${run.id}/cancel`, { key: account.key, method: "POST" });
    const cancelled = await prisma().platformRun.findUniqueOrThrow({ where: { id: run.id } });
    expect(cancelled.status).toBe("cancelled");
    const before = await billed(run.id);
    const { step, call } = toolStep(run);
    const { hooks } = createCheckpointer(prisma(), run.id, "worker_a", sink);
    hooks.onStepStart({ messages: [{ role: "user", content: "hi" }] });
    await hooks.onStepEnd(step, call);
    const after = await billed(run.id);
    expect(after.rows).toBe(before.rows + 1);
    expect(after.costMicros - before.costMicros).toBe(4_321n);
    expect(after.checkpoint).toEqual(before.checkpoint);
  });
});
