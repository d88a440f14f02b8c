// The end of a run's pass in one statement (services/runs/run-end.ts) writes what the transaction it
// replaces in the usual case writes (transitionRun, then settleRunIn with the run's webhook event): the
// same run row, account, ledger and webhook event; and writes nothing when it must leave the run to
// that transaction (a cost past the hold, a value the event was built from that changed) or when the
// run is no longer running. Each case ends two twin runs, one each way, and compares what they left.
// With the pass's last model call, the statement meters it too: what recordModelCall wrote before it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunFrame } from "@inlay/core/schemas/runs";
import { type MeteredCall, recordModelCall } from "@/server/platform/repositories/billing";
import type { Db } from "@/server/platform/repositories/db";
import { createRequests, type NewRequest } from "@/server/platform/repositories/permission-requests";
import { findRunById, type RunRow, type RunUpdate, transitionRun } from "@/server/platform/repositories/runs";
import { settleRunIn } from "@/server/platform/services/billing/billing";
import { endRunInOneStatement } from "@/server/platform/services/runs/run-end";
import { runWebhookEvent, type RunWebhookType } from "@/server/platform/services/runs/run-webhooks";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let receiver: WebhookReceiver;
beforeAll(async () => {
  // web: nothing executes, so a created run stays running with its hold until the test ends it.
  platform = await startPlatform({ role: "web" });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await platform.close();
  await receiver.close();
});

const prisma = () => platform.database.prisma as unknown as Db;

interface Twin {
  accountId: number;
  runId: number;
}

/** A running run of a new account that has a webhook for every event of its scopes; `userId` makes it an end-user's run. */
async function runningRun(userId?: string): Promise<Twin> {
  const account = await platform.signup({ require_end_user_id: false });
  await prisma().platformAccount.update({ where: { id: account.id }, data: { emailVerifiedAt: new Date() } });
  const hook = await platform.call("/webhooks", { key: account.key, body: { url: receiver.url("/ended"), all_end_users: true } });
  expect(hook.status).toBe(201);
  const agentId = (await platform.call("/agents", { key: account.key, body: { name: "Ending", ...(userId ? { user_id: userId } : {}) } })).body.id;
  const created = await platform.call("/runs", {
    key: account.key,
    body: { teammate_id: agentId, message: "hi", stream: false, ...(userId ? { user_id: userId } : {}) },
  });
  expect(created.status).toBe(200);
  return { accountId: account.id, runId: created.body.id as number };
}

async function twins(costs: { cost: bigint; settled?: bigint }, userId?: string): Promise<[Twin, Twin]> {
  const pair: [Twin, Twin] = [await runningRun(userId && `${userId}-a`), await runningRun(userId && `${userId}-b`)];
  for (const { runId } of pair) {
    await prisma().platformRun.update({ where: { id: runId }, data: { costMicros: costs.cost, settledMicros: costs.settled ?? 0n } });
  }
  return pair;
}

/** What ending a run leaves, with what differs between twins by construction (ids, times, user ids) taken out. */
async function leftBy({ accountId, runId }: Twin) {
  const run = await prisma().platformRun.findUniqueOrThrow({ where: { id: runId } });
  const account = await prisma().platformAccount.findUniqueOrThrow({ where: { id: accountId } });
  const ledger = await prisma().platformBalanceTransaction.findMany({ where: { accountId, type: "debit" }, orderBy: { id: "asc" } });
  const events = await prisma().platformWebhookEvent.findMany({ where: { runId }, orderBy: { id: "asc" } });
  const pending = await prisma().platformPendingSettlement.count({ where: { runId } });
  const requests = await prisma().platformPermissionRequest.findMany({ where: { runId }, orderBy: { id: "asc" } });
  const usage = await prisma().platformUsageRecord.findMany({ where: { runId }, orderBy: { id: "asc" } });
  return {
    run: {
      status: run.status, error: run.error, stopReason: run.stopReason, output: run.output, outputData: run.outputData,
      messages: run.messages, turnsUsed: run.turnsUsed, leaseOwner: run.leaseOwner, leaseExpiresAt: run.leaseExpiresAt,
      checkpoint: run.checkpoint, costMicros: run.costMicros, settledMicros: run.settledMicros, holdMicros: run.holdMicros,
      inputTokens: run.inputTokens, outputTokens: run.outputTokens, finished: run.finishedAt !== null,
    },
    account: { balanceMicros: account.balanceMicros, heldMicros: account.heldMicros },
    ledger: ledger.map((entry) => ({
      amountMicros: entry.amountMicros,
      balanceAfterMicros: entry.balanceAfterMicros,
      description: entry.description.replace(String(runId), "<run>"),
    })),
    events: events.map((event) => {
      const { run_id: eventRun, teammate_id: _agent, user_id: user, ...payload } = event.payload as Record<string, unknown>;
      expect(eventRun).toBe(runId);
      return { type: event.type, endUser: event.endUserId !== null, user: typeof user === "string" ? user.slice(0, -2) : user, payload };
    }),
    pending,
    requests: requests.map(({ id, runId: _run, createdAt: _at, ...request }) => ({ ...request, id: id.slice(0, -2) })),
    usage: usage.map(({ id: _id, runId: _run, accountId: account, agentId: _agent, endUserId, createdAt: _at, ...record }) => {
      expect(account).toBe(accountId);
      return { ...record, endUser: endUserId !== null };
    }),
  };
}

/** A pass's end, written with the status it reaches; `split` gives its transition and the rest. */
type Change = RunUpdate & { status: "completed" | "awaiting_approval" | "failed" };
const TRANSITION_TO = { completed: "complete", awaiting_approval: "pause", failed: "fail" } as const;
const split = ({ status, ...data }: Change) => [TRANSITION_TO[status], data] as const;

/** The transaction the pass ended a run with before (and still does when the statement leaves it). */
const endInTransaction = (runId: number, data: Change, type: RunWebhookType, requests: NewRequest[] = []) =>
  platform.database.prisma.$transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    const moved = await transitionRun(tx, runId, ...split(data));
    if (!moved) return null;
    if (requests.length > 0) await createRequests(tx, runId, requests);
    return { moved, settlement: await settleRunIn(tx, moved, await runWebhookEvent(tx, moved, type)) };
  });

const endInOneStatement = async (runId: number, data: Change, type: RunWebhookType, latest?: RunRow, requests?: NewRequest[], call?: MeteredCall) =>
  endRunInOneStatement(prisma(), latest ?? (await findRunById(prisma(), runId))!, ...split(data), { webhook: (db, row) => runWebhookEvent(db, row, type), requests, call });

/** The pass's last model call, as the pass meters it (services/billing/billing.ts modelCall). */
async function callOf(runId: number, costMicros: bigint, settledMeter: "wallet" | "own_sub" = "wallet"): Promise<MeteredCall> {
  const run = (await findRunById(prisma(), runId))!;
  return {
    accountId: run.accountId, endUserId: run.endUserId, runId, agentId: run.agentId, model: run.model, surface: run.surface,
    inputTokens: 120, outputTokens: 34, cacheReadTokens: 5, cacheCreationTokens: 6, costMicros, settledMeter,
  };
}

/** What the pass did before: the call metered on its own, then the transaction. */
async function meterThenTransaction(runId: number, call: MeteredCall, data: Change, type: RunWebhookType, requests?: NewRequest[]) {
  await recordModelCall(platform.database.prisma, call);
  return endInTransaction(runId, data, type, requests);
}

/** The requests a run pauses on; ids end in `twin` (ids are unique across runs). */
const requestsOf = (twin: string): NewRequest[] => [
  { id: `perm_tool-${twin}`, kind: "tool", toolName: "web_fetch", toolCallId: "call_1", input: { url: "https://example.com", n: [1, null] } },
  { id: `perm_conn-${twin}`, kind: "connection", app: "github", toolName: "github_issue", toolCallId: "call_2", input: {} },
];

const completed = (): Change => ({
  status: "completed", output: "done", outputData: null, stopReason: "stop", finishedAt: new Date(),
  leaseOwner: null, leaseExpiresAt: null, checkpoint: null, messages: [{ role: "user", content: "hi" }], turnsUsed: { increment: 2 },
});

describe("ending a run's pass in one statement", () => {
  it("completed within its hold: the same run, account, ledger and event as the transaction", async () => {
    const [one, other] = await twins({ cost: 12_345n });
    const hold = (await findRunById(prisma(), one.runId))!.holdMicros;
    expect(hold).toBeGreaterThan(12_345n);
    const change = completed();
    const ended = await endInOneStatement(one.runId, change, "run.completed");
    const old = await endInTransaction(other.runId, change, "run.completed");
    expect(ended.ended?.status).toBe("completed");
    // The row it returns is the run as the database now has it, shaped as the client's reads shape it.
    expect(ended.ended).toEqual(await findRunById(prisma(), one.runId));
    expect(ended.ended).toMatchObject({ settledMicros: 12_345n, holdMicros: 0n, turnsUsed: 2, leaseOwner: null });
    if (!ended.ended) return;
    expect(ended.settlement).toEqual({ chargedMicros: 12_345n, writtenOffMicros: 0n, releasedMicros: hold - 12_345n, watches: false });
    expect(old?.settlement).toEqual({ ...ended.settlement, watches: false });
    const left = await leftBy(one);
    expect(left).toEqual(await leftBy(other));
    expect(left.ledger).toEqual([{ amountMicros: -12_345n, balanceAfterMicros: left.account.balanceMicros, description: "Run <run> on inlay/sim" }]);
    expect(left.account.heldMicros).toBe(0n);
    expect(left.events.map((event) => event.type)).toEqual(["run.started", "run.completed"]);
    expect(left.pending).toBe(0);
  });

  it("paused within its hold (an end-user's run): keeps the lease and the rest of its hold", async () => {
    const [one, other] = await twins({ cost: 20_000n, settled: 5_000n }, "paused-user");
    const hold = (await findRunById(prisma(), one.runId))!.holdMicros;
    const change: Change = { status: "awaiting_approval", messages: [], turnsUsed: { increment: 1 } };
    const ended = await endInOneStatement(one.runId, change, "run.awaiting_input", undefined, requestsOf("a"));
    await endInTransaction(other.runId, change, "run.awaiting_input", requestsOf("b"));
    expect(ended.ended).toMatchObject({ status: "awaiting_approval", settledMicros: 20_000n, holdMicros: hold - 15_000n });
    const left = await leftBy(one);
    expect(left).toEqual(await leftBy(other));
    expect(left.run.leaseOwner).toBeNull(); // web: never leased; the change does not touch it
    expect(left.requests).toEqual([
      expect.objectContaining({ id: "perm_conn", kind: "connection", app: "github", status: "pending", input: {} }),
      expect.objectContaining({ id: "perm_tool", kind: "tool", app: null, input: { url: "https://example.com", n: [1, null] } }),
    ]);
    expect(left.account.heldMicros).toBe(hold - 15_000n);
    expect(left.events.at(-1)).toEqual({
      type: "run.awaiting_input",
      endUser: true,
      user: "paused-user",
      payload: expect.objectContaining({ status: "awaiting_approval" }),
    });
  });

  it("failed with nothing due: gives back the whole hold, no ledger entry", async () => {
    const [one, other] = await twins({ cost: 0n });
    const change: Change = { status: "failed", error: "boom", stopReason: "error", finishedAt: new Date(), leaseOwner: null, leaseExpiresAt: null };
    const ended = await endInOneStatement(one.runId, change, "run.failed");
    await endInTransaction(other.runId, change, "run.failed");
    expect(ended.ended).toMatchObject({ status: "failed", holdMicros: 0n });
    const left = await leftBy(one);
    expect(left).toEqual(await leftBy(other));
    expect(left.ledger).toEqual([]);
    expect(left.account.heldMicros).toBe(0n);
    expect(left.events.at(-1)?.payload).toMatchObject({ error: "boom", status: "failed" });
  });

  it("past its hold: writes nothing, and the transaction then ends it as it always did", async () => {
    const [one, other] = await twins({ cost: 80_000n });
    expect((await findRunById(prisma(), one.runId))!.holdMicros).toBeLessThan(80_000n);
    const before = await leftBy(one);
    const change = completed();
    expect(await endInOneStatement(one.runId, change, "run.completed", undefined, requestsOf("x"))).toEqual({ ended: undefined });
    expect(await leftBy(one)).toEqual(before);
    await endInTransaction(one.runId, change, "run.completed");
    await endInTransaction(other.runId, change, "run.completed");
    const left = await leftBy(one);
    expect(left).toEqual(await leftBy(other));
    expect(left.ledger.map((entry) => entry.amountMicros)).toEqual([-80_000n]);
    expect(left.run.settledMicros).toBe(80_000n);
  });

  it("a value its event was built from changed since it was read: writes nothing", async () => {
    const [one] = await twins({ cost: 1_000n });
    const latest = (await findRunById(prisma(), one.runId))!;
    await prisma().platformRun.update({ where: { id: one.runId }, data: { permissionMode: latest.permissionMode === "plan" ? "approval" : "plan" } });
    const before = await leftBy(one);
    expect(await endInOneStatement(one.runId, completed(), "run.completed", latest)).toEqual({ ended: undefined });
    expect(await leftBy(one)).toEqual(before);
  });

  it("a run that holds nothing (a plan's): left to the transaction, without a statement", async () => {
    const [one] = await twins({ cost: 1_000n });
    await prisma().platformRun.update({ where: { id: one.runId }, data: { holdMicros: 0n } });
    const before = await leftBy(one);
    expect(await endInOneStatement(one.runId, completed(), "run.completed")).toEqual({ ended: undefined });
    expect(await leftBy(one)).toEqual(before);
  });

  it("completed with its last call metered in the statement: the same usage row, run, ledger and balance as metering it first", async () => {
    const [one, other] = await twins({ cost: 10_000n, settled: 4_000n }, "metered-user");
    const hold = (await findRunById(prisma(), one.runId))!.holdMicros;
    const change = completed();
    const ended = await endInOneStatement(one.runId, change, "run.completed", undefined, undefined, await callOf(one.runId, 2_345n));
    const old = await meterThenTransaction(other.runId, await callOf(other.runId, 2_345n), change, "run.completed");
    expect(ended.ended).toEqual(await findRunById(prisma(), one.runId));
    expect(ended.ended).toMatchObject({ costMicros: 12_345n, settledMicros: 12_345n, holdMicros: 0n, inputTokens: 120, outputTokens: 34 });
    if (!ended.ended) return;
    expect(ended.settlement).toEqual({ chargedMicros: 8_345n, writtenOffMicros: 0n, releasedMicros: hold - 8_345n, watches: false });
    expect(old?.settlement).toEqual(ended.settlement);
    const left = await leftBy(one);
    expect(left).toEqual(await leftBy(other));
    expect(left.usage).toEqual([
      { model: "inlay/sim", surface: left.usage[0]!.surface, settledMeter: "wallet", inputTokens: 120, outputTokens: 34, cacheCreationTokens: 6, cacheReadTokens: 5, costMicros: 2_345n, endUser: true },
    ]);
    expect(left.ledger.map((entry) => entry.amountMicros)).toEqual([-8_345n]);
    expect(left.account.heldMicros).toBe(0n);
  });

  it("paused with its last call metered: keeps the rest of its hold, as metering it first does", async () => {
    const [one, other] = await twins({ cost: 3_000n });
    const hold = (await findRunById(prisma(), one.runId))!.holdMicros;
    const change: Change = { status: "awaiting_approval", messages: [], turnsUsed: { increment: 1 } };
    const ended = await endInOneStatement(one.runId, change, "run.awaiting_input", undefined, requestsOf("c"), await callOf(one.runId, 1_000n));
    await meterThenTransaction(other.runId, await callOf(other.runId, 1_000n), change, "run.awaiting_input", requestsOf("d"));
    expect(ended.ended).toMatchObject({ status: "awaiting_approval", costMicros: 4_000n, settledMicros: 4_000n, holdMicros: hold - 4_000n });
    const left = await leftBy(one);
    expect(left).toEqual(await leftBy(other));
    expect(left.usage.map((record) => record.costMicros)).toEqual([1_000n]);
    expect(left.account.heldMicros).toBe(hold - 4_000n);
  });

  it("a call on the account's own connection: metered own_sub and settled as it is recorded, as metering it first does", async () => {
    const [one, other] = await twins({ cost: 7_000n });
    const change = completed();
    const ended = await endInOneStatement(one.runId, change, "run.completed", undefined, undefined, await callOf(one.runId, 50_000n, "own_sub"));
    await meterThenTransaction(other.runId, await callOf(other.runId, 50_000n, "own_sub"), change, "run.completed");
    expect(ended.ended).toMatchObject({ costMicros: 57_000n, settledMicros: 57_000n });
    const left = await leftBy(one);
    expect(left).toEqual(await leftBy(other));
    expect(left.usage.map((record) => [record.settledMeter, record.costMicros])).toEqual([["own_sub", 50_000n]]);
    expect(left.ledger.map((entry) => entry.amountMicros)).toEqual([-7_000n]);
  });

  it("a last call that takes it past its hold: meters nothing, and metering then the transaction end it as before", async () => {
    const [one, other] = await twins({ cost: 1_000n });
    const hold = (await findRunById(prisma(), one.runId))!.holdMicros;
    const call = await callOf(one.runId, hold);
    const before = await leftBy(one);
    expect(await endInOneStatement(one.runId, completed(), "run.completed", undefined, undefined, call)).toEqual({ ended: undefined });
    expect(await leftBy(one)).toEqual(before);
    await meterThenTransaction(one.runId, call, completed(), "run.completed");
    await meterThenTransaction(other.runId, await callOf(other.runId, hold), completed(), "run.completed");
    const left = await leftBy(one);
    expect(left).toEqual(await leftBy(other));
    expect(left.usage).toHaveLength(1);
    expect(left.run.settledMicros).toBe(hold + 1_000n);
  });

  it("no longer running, with a last call: null, and the call not metered either", async () => {
    const [one] = await twins({ cost: 1_000n });
    await prisma().platformRun.update({ where: { id: one.runId }, data: { status: "cancelled" } });
    const before = await leftBy(one);
    expect(await endInOneStatement(one.runId, completed(), "run.completed", undefined, undefined, await callOf(one.runId, 500n))).toEqual({ ended: null });
    expect(await leftBy(one)).toEqual(before);
  });

  it("with the pass's last frames: appends them after the log's last event when it ends, and none when it does not", async () => {
    const [one, cancelled] = await twins({ cost: 1_000n });
    const [past] = await twins({ cost: 80_000n });
    await prisma().platformRun.update({ where: { id: cancelled.runId }, data: { status: "cancelled" } });
    const frames: RunFrame[] = [
      { type: "content_block_delta", id: "t", delta: { type: "text_delta", text: "last words" } },
      { type: "run_status", status: "completed" },
      { type: "done", completion_state: "completed", stop_reason: "stop", message_count: 2 },
    ];
    const logOf = async (runId: number) =>
      (await prisma().platformRunEvent.findMany({ where: { runId }, orderBy: { id: "asc" } })).map((row) => ({ id: row.id, frame: row.data }));
    const end = async (runId: number) =>
      endRunInOneStatement(prisma(), (await findRunById(prisma(), runId))!, ...split(completed()), { events: { frames } });

    const before = await logOf(one.runId);
    expect(before.length).toBeGreaterThan(0);
    const ended = await end(one.runId);
    const after = await logOf(one.runId);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length).map((event) => event.frame)).toEqual(frames);
    expect(ended.ended?.status).toBe("completed");
    expect(ended).toMatchObject({ appended: { after: before.at(-1)!.id, ids: after.slice(before.length).map((event) => event.id) } });

    for (const [twin, outcome] of [[cancelled, { ended: null }], [past, { ended: undefined }]] as const) {
      const untouched = await logOf(twin.runId);
      expect(await end(twin.runId)).toEqual(outcome);
      expect(await logOf(twin.runId)).toEqual(untouched);
    }
  });

  it("no longer running: null, and nothing written", async () => {
    const [one] = await twins({ cost: 1_000n });
    await prisma().platformRun.update({ where: { id: one.runId }, data: { status: "cancelled" } });
    const before = await leftBy(one);
    expect(await endInOneStatement(one.runId, completed(), "run.completed")).toEqual({ ended: null });
    expect(await leftBy(one)).toEqual(before);
  });
});
