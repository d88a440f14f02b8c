// Run creation's two paths (services/runs/run-admission.ts): the one-statement fast path
// (repositories/run-start.ts) for a verified, funded account without per-end-user caps, and the
// admission transaction for every other. Both must store the same run, first event, outbox row and
// turn; the statement itself must write everything or nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findAgent, findAgentAnyScope } from "@/server/platform/repositories/agents";
import { startAdmittedRun, type FastRunStart } from "@/server/platform/repositories/run-start";
import { claimRuns } from "@/server/platform/repositories/run-leases";
import { findEndUserExternalId } from "@/server/platform/repositories/end-users";
import { sealedEnvOfAgent } from "@/server/platform/repositories/agent-repos";
import { recentMemoryContents } from "@/server/platform/repositories/memories";
import { rememberedTools } from "@/server/platform/repositories/permission-requests";
import { runToolSources } from "@/server/platform/repositories/run-tool-sources";
import { readFrames, textOf } from "../../helpers/sse";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

const HOLD = 50_000;
let platform: PlatformHarness;

beforeAll(async () => {
  platform = await startPlatform({ billing: { runHoldMicros: HOLD } });
});
afterAll(() => platform.close());

const prisma = () => platform.database.prisma;

async function newAccount(verified: boolean, overrides: Record<string, unknown> = {}): Promise<Account> {
  const account = await platform.signup(overrides);
  if (verified) await prisma().platformAccount.update({ where: { id: account.id }, data: { emailVerifiedAt: new Date() } });
  return account;
}

async function newAgent(account: Account, userId?: string): Promise<number> {
  const { status, body } = await platform.call("/agents", { key: account.key, body: { name: "Maker", ...(userId ? { user_id: userId } : {}) } });
  expect(status).toBe(201);
  return body.id;
}

async function waitForStatus(account: Account, runId: number, statuses: string[], userId?: string) {
  return platform.waitForRun(account.key, runId, statuses, { user_id: userId });
}

const held = async (accountId: number) => (await prisma().platformAccount.findUniqueOrThrow({ where: { id: accountId } })).heldMicros;

describe.each([
  { path: "the one-statement fast path (verified account)", verified: true },
  { path: "the admission transaction (unverified account)", verified: false },
])("POST /runs through $path", ({ verified }) => {
  it("stores the run, its first event, run.started and the end-user's turn with the hold, as the answer says", async () => {
    const account = await newAccount(verified);
    const agentId = await newAgent(account, "u1");
    await platform.keepWebhookEvents(account.key, "u1");
    const before = await held(account.id);
    const started = await platform.call("/runs", {
      key: account.key,
      query: { user_id: "u1" },
      body: {
        teammate_id: agentId,
        // Slow enough that the run still holds its hold when we look.
        message: "::delay 400\n::words 2",
        stream: false,
        permission_mode: "autonomous",
        metadata: { order: 7, nested: { ok: true } },
        tools: ["calculator"],
        max_turns: 3,
        output_schema: { type: "object", properties: { ok: { type: "boolean" } } },
      },
    });
    expect(started.status).toBe(200);
    const run = started.body;
    expect(run).toMatchObject({ status: "running", user_id: "u1", teammate_id: agentId, metadata: { order: 7, nested: { ok: true } }, max_turns: 3 });
    expect(await held(account.id)).toBe(before + BigInt(HOLD));

    const fetched = await platform.call(`/runs/${run.id}`, { key: account.key, query: { user_id: "u1" } });
    for (const field of ["id", "teammate_id", "user_id", "metadata", "permission_mode", "human_in_the_loop", "model", "effort", "max_turns", "created_at"]) {
      expect(fetched.body[field]).toEqual(run[field]);
    }
    const row = await prisma().platformRun.findUniqueOrThrow({ where: { id: run.id } });
    expect(row).toMatchObject({ holdMicros: BigInt(HOLD), tools: ["calculator"], retention: "standard", outputSchema: { type: "object" } });
    expect(row.messages).toEqual([{ role: "user", content: "::delay 400\n::words 2" }]);

    const [first] = await prisma().platformRunEvent.findMany({ where: { runId: run.id }, orderBy: { id: "asc" }, take: 1 });
    // Timed (Inlay's `at`): when the platform produced it, the run's creation.
    expect(first?.data).toEqual({ type: "run_status", status: "running", at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) });
    expect(Math.abs(Date.parse((first!.data as { at: string }).at) - Date.parse(run.created_at))).toBeLessThan(60_000);
    const outbox = await prisma().platformWebhookEvent.findMany({ where: { runId: run.id, type: "run.started" } });
    expect(outbox).toHaveLength(1);
    expect(outbox[0]).toMatchObject({ accountId: account.id, endUserId: row.endUserId });
    expect(outbox[0]!.payload).toEqual({
      type: "run.started",
      run_id: run.id,
      teammate_id: agentId,
      task_id: null,
      user_id: "u1",
      status: "running",
      permission_mode: "autonomous",
    });
    const turns = await prisma().platformTurn.findMany({ where: { accountId: account.id, endUserId: row.endUserId! } });
    expect(turns.map((turn) => turn.kind)).toEqual(["start"]);

    const done = await waitForStatus(account, run.id, ["completed", "failed"], "u1");
    expect(done.status).toBe("completed");
  });

  it("names no user and records no turn for an account-level run", async () => {
    const account = await newAccount(verified, { require_end_user_id: false });
    const agentId = await newAgent(account);
    await platform.keepWebhookEvents(account.key);
    const started = await platform.call("/runs", { key: account.key, body: { teammate_id: agentId, message: "hello", stream: false } });
    expect(started.status).toBe(200);
    expect(started.body.user_id).toBeNull();
    const outbox = await prisma().platformWebhookEvent.findFirstOrThrow({ where: { runId: started.body.id, type: "run.started" } });
    expect(outbox).toMatchObject({ endUserId: null, payload: { user_id: null, run_id: started.body.id } });
    expect(await prisma().platformTurn.count({ where: { accountId: account.id } })).toBe(0);
    expect((await waitForStatus(account, started.body.id, ["completed", "failed"])).output).toBe("Echo: hello");
  });

  it("stores only the skeleton of a metadata_only run, whose stream still shows everything", async () => {
    const account = await newAccount(verified);
    await platform.call("/settings", { key: account.key, method: "PATCH", body: { retention_mode: "metadata_only" } });
    const agentId = await newAgent(account, "z1");
    await platform.keepWebhookEvents(account.key, "z1");
    const response = await platform.request("/runs?user_id=z1", {
      method: "POST",
      headers: { authorization: `Bearer ${account.key}`, "content-type": "application/json" },
      body: JSON.stringify({ teammate_id: agentId, message: "okapi", permission_mode: "autonomous" }),
    });
    const frames = await readFrames(response, { until: (frame) => frame.data.type === "done" });
    expect(textOf(frames)).toBe("Echo: okapi");
    const row = await prisma().platformRun.findFirstOrThrow({ where: { accountId: account.id } });
    expect(row.retention).toBe("metadata_only");
    expect(JSON.stringify(row.messages)).not.toContain("okapi");
    const outbox = await prisma().platformWebhookEvent.findMany({ where: { runId: row.id } });
    expect(JSON.stringify(outbox.map((event) => event.payload))).not.toContain("okapi");
    expect(outbox.map((event) => event.type)).toContain("run.started");
  });
});

describe("the fast path's statement", () => {
  let accountId: number;
  let agentId: number;
  let endUserId: number;

  beforeAll(async () => {
    const account = await newAccount(true);
    accountId = account.id;
    agentId = await newAgent(account, "s1");
    await platform.keepWebhookEvents(account.key, "s1");
    endUserId = (await prisma().platformEndUser.findFirstOrThrow({ where: { accountId, externalId: "s1" } })).id;
  });

  const start = (overrides: Partial<FastRunStart> = {}): FastRunStart => ({
    accountId,
    endUserId,
    agentId,
    taskId: null,
    permissionMode: "autonomous",
    humanInTheLoop: false,
    model: "inlay/sim",
    effort: "medium",
    tools: [],
    memory: null,
    history: null,
    taskSetupTools: true,
    feedback: null,
    emailNotifications: false,
    outputSchema: null,
    metadata: null,
    maxTurns: 5,
    messages: { standard: [{ role: "user", content: "kept" }], metadataOnly: [{ role: "user", content: "" }] },
    first: { type: "run_status", status: "running" },
    maxHoldMicros: BigInt(HOLD),
    webhookPayload: { type: "run.started", user_id: "s1" },
    lease: { owner: "test-owner", ms: 60_000 },
    passMemories: 2,
    turn: { at: new Date(), forgetBefore: new Date(Date.now() - 120_000) },
    ...overrides,
  });

  /** Everything the statement may write, to show that a refusal wrote none of it. */
  const footprint = async () => ({
    runs: await prisma().platformRun.count({ where: { accountId } }),
    events: await prisma().platformRunEvent.count({ where: { run: { accountId } } }),
    outbox: await prisma().platformWebhookEvent.count({ where: { accountId } }),
    turns: await prisma().platformTurn.count({ where: { accountId } }),
    keys: await prisma().platformIdempotencyKey.count({ where: { accountId } }),
    held: await held(accountId),
  });

  it("admits and writes the run with its lease, returning it as the client reads it", async () => {
    const before = await footprint();
    const outcome = await startAdmittedRun(prisma(), start());
    expect(outcome.kind).toBe("inserted");
    if (outcome.kind !== "inserted") return;
    expect(outcome.run).toEqual(await prisma().platformRun.findUniqueOrThrow({ where: { id: outcome.run.id } }));
    expect(outcome.run).toMatchObject({ leaseOwner: "test-owner", holdMicros: BigInt(HOLD), status: "running", messages: [{ role: "user", content: "kept" }] });
    expect(outcome.run.leaseExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 30_000);
    expect(await footprint()).toEqual({ ...before, runs: before.runs + 1, events: before.events + 1, outbox: before.outbox + 1, turns: before.turns + 1, held: before.held + BigInt(HOLD) });
  });

  it("reads with a lease what the run's pass reads before the model, as the pass's own reads read them; nothing without", async () => {
    for (const [content, owner] of [["s-old", endUserId], ["other", null], ["s-new", endUserId], ["s-newest", endUserId]] as const) {
      await prisma().platformMemory.create({ data: { accountId, endUserId: owner, content } });
    }
    await prisma().platformToolServer.create({ data: { accountId, endUserId, name: "srv-s1", url: "http://127.0.0.1:1/mcp", kind: "mcp", status: "approved" } });
    await prisma().platformAgentRepo.create({ data: { accountId, agentId, repoFullName: "acme/s1", connectionId: "conn", envSealed: "sealed-s1", envKeys: ["TOKEN"] } });
    const leased = await startAdmittedRun(prisma(), start());
    if (leased.kind !== "inserted") throw new Error(`not inserted: ${leased.kind}`);
    expect(leased.reads).toEqual({ envSealed: ["sealed-s1"], toolSources: { connections: false, servers: true }, memories: ["s-newest", "s-new"], rememberedTools: [], userId: "s1" });
    expect(leased.reads).toEqual({
      envSealed: await sealedEnvOfAgent(prisma(), accountId, agentId),
      toolSources: await runToolSources(prisma(), accountId, endUserId),
      memories: await recentMemoryContents(prisma(), { accountId, endUserId }, 2),
      rememberedTools: [...(await rememberedTools(prisma(), leased.run.id))],
      userId: await findEndUserExternalId(prisma(), endUserId),
    });
    const unleased = await startAdmittedRun(prisma(), start({ lease: undefined }));
    expect(unleased.kind === "inserted" && unleased.reads).toBeUndefined();
  });

  it("writes no outbox row in a scope without a webhook (here the account level)", async () => {
    const before = await footprint();
    expect((await startAdmittedRun(prisma(), start({ endUserId: null, turn: undefined }))).kind).toBe("inserted");
    const after = await footprint();
    expect(after).toMatchObject({ runs: before.runs + 1, events: before.events + 1, outbox: before.outbox });
  });

  it("binds an Idempotency-Key to its run, and writes nothing for a key another request holds", async () => {
    const key = { key: `fast-${Date.now()}`, resource: "run" as const, requestHash: "h", expiresAt: new Date(Date.now() + 60_000) };
    const first = await startAdmittedRun(prisma(), start({ key }));
    expect(first.kind).toBe("inserted");
    if (first.kind !== "inserted") return;
    expect((await prisma().platformIdempotencyKey.findFirstOrThrow({ where: { accountId, key: key.key } })).runId).toBe(first.run.id);
    const before = await footprint();
    expect((await startAdmittedRun(prisma(), start({ key }))).kind).toBe("key_taken");
    expect(await footprint()).toEqual(before);
  });

  it("sends what needs a count or a lock to the transaction, writing nothing: caps, a short balance, an unverified email", async () => {
    await prisma().platformAccount.update({ where: { id: accountId }, data: { perEndUserRunLimit: 100 } });
    let before = await footprint();
    const key = { key: `refused-${Date.now()}`, resource: "run" as const, requestHash: "h", expiresAt: new Date(Date.now() + 60_000) };
    expect((await startAdmittedRun(prisma(), start({ key }))).kind).toBe("not_admitted");
    expect(await footprint()).toEqual(before);
    // Caps are per end-user: an account-level run does not count against them.
    expect((await startAdmittedRun(prisma(), start({ endUserId: null }))).kind).toBe("inserted");
    await prisma().platformAccount.update({ where: { id: accountId }, data: { perEndUserRunLimit: null } });

    const account = await prisma().platformAccount.findUniqueOrThrow({ where: { id: accountId } });
    before = await footprint();
    // The unreserved balance must cover the hold (the whole balance, when that is smaller).
    expect((await startAdmittedRun(prisma(), start({ maxHoldMicros: account.balanceMicros - account.heldMicros + 1n }))).kind).toBe("not_admitted");
    await prisma().platformAccount.update({ where: { id: accountId }, data: { emailVerifiedAt: null } });
    expect((await startAdmittedRun(prisma(), start({ key }))).kind).toBe("not_admitted");
    expect(await footprint()).toEqual(before);
    await prisma().platformAccount.update({ where: { id: accountId }, data: { emailVerifiedAt: new Date() } });
  });

  it("stores the skeleton under metadata_only, deciding by the account's mode as it writes", async () => {
    await prisma().platformAccount.update({ where: { id: accountId }, data: { retentionMode: "metadata_only" } });
    const outcome = await startAdmittedRun(prisma(), start());
    await prisma().platformAccount.update({ where: { id: accountId }, data: { retentionMode: "standard" } });
    expect(outcome.kind).toBe("inserted");
    if (outcome.kind !== "inserted") return;
    expect(outcome.run).toMatchObject({ retention: "metadata_only", messages: [{ role: "user", content: "" }] });
  });
});

describe("the raw reads of run creation and start", () => {
  it("return the rows the Prisma client returns (agents with and without an end-user, a run's lease claim)", async () => {
    const account = await newAccount(true, { require_end_user_id: false });
    const scoped = await newAgent(account, "r1");
    const unscoped = await newAgent(account);
    const endUserId = (await prisma().platformEndUser.findFirstOrThrow({ where: { accountId: account.id, externalId: "r1" } })).id;
    const viaClient = (id: number) => prisma().platformAgent.findUniqueOrThrow({ where: { id }, include: { endUser: { select: { externalId: true } } } });
    expect(await findAgent(prisma(), { accountId: account.id, endUserId, userId: "r1" }, scoped)).toEqual(await viaClient(scoped));
    expect(await findAgent(prisma(), { accountId: account.id, endUserId: null, userId: null }, unscoped)).toEqual(await viaClient(unscoped));
    expect(await findAgent(prisma(), { accountId: account.id, endUserId: null, userId: null }, scoped)).toBeNull();
    expect(await findAgentAnyScope(prisma(), account.id, scoped)).toEqual(await viaClient(scoped));
    expect(await findAgentAnyScope(prisma(), account.id, unscoped)).toEqual(await viaClient(unscoped));

    const started = await platform.call("/runs", { key: account.key, body: { teammate_id: unscoped, message: "hello", stream: false, metadata: { a: 1 } } });
    await waitForStatus(account, started.body.id, ["completed"]);
    const options = { limit: 1_000, leaseMs: 60_000, graceMs: 0, memories: 2 };
    // The scope's memories the claim reads for the pass: the newest `memories`, of exactly the run's scope.
    for (const [content, owner] of [["a1", null], ["a2", null], ["u1", endUserId], ["a3", null]] as const) {
      await prisma().platformMemory.create({ data: { accountId: account.id, endUserId: owner, content } });
    }
    // Completed: not running, so not claimable.
    expect((await claimRuns(prisma(), "nobody", options)).map((claimed) => claimed.run.id)).not.toContain(started.body.id);
    await prisma().platformRun.update({ where: { id: started.body.id }, data: { status: "running", leaseOwner: null, leaseExpiresAt: null } });
    const taken = (await claimRuns(prisma(), "reader", options)).find((claimed) => claimed.run.id === started.body.id);
    // The claim reads the run's agent too, as the client reads it, and what the pass reads before the model.
    expect(taken).toEqual({
      run: await prisma().platformRun.findUniqueOrThrow({ where: { id: started.body.id } }),
      abandoned: false,
      agent: await viaClient(unscoped),
      reads: { envSealed: [], toolSources: { connections: false, servers: false }, memories: ["a3", "a2"], rememberedTools: [], userId: null },
    });
    // As the pass's own reads read them (a run leased at admission has no claim).
    expect(taken?.reads).toEqual({
      envSealed: await sealedEnvOfAgent(prisma(), account.id, unscoped),
      toolSources: await runToolSources(prisma(), account.id, null),
      memories: await recentMemoryContents(prisma(), { accountId: account.id, endUserId: null }, 2),
      rememberedTools: [],
      userId: null,
    });
    expect(taken?.run.leaseOwner).toBe("reader");
    await prisma().platformRun.update({ where: { id: started.body.id }, data: { status: "completed", leaseOwner: null } });

    // An end-user's agent comes with its user_id; an archived one does not come.
    const scopedRun = await platform.call("/runs", { key: account.key, query: { user_id: "r1" }, body: { teammate_id: scoped, message: "hello", stream: false } });
    await waitForStatus(account, scopedRun.body.id, ["completed"], "r1");
    await prisma().platformRun.update({ where: { id: scopedRun.body.id }, data: { status: "running", leaseOwner: null, leaseExpiresAt: null } });
    // The end-user's approved tool server, and a sealed env set on one of the agent's repositories.
    await prisma().platformToolServer.create({ data: { accountId: account.id, endUserId, name: "srv", url: "http://127.0.0.1:1/mcp", kind: "mcp", status: "approved" } });
    const sealed = "sealed-env-as-stored";
    await prisma().platformAgentRepo.create({ data: { accountId: account.id, agentId: scoped, repoFullName: "acme/app", connectionId: "conn", envSealed: sealed, envKeys: ["TOKEN"] } });
    // A tool the person allowed with remember=true in this run (twice), one allowed once, one denied.
    const answered = [
      ["always", true, "allowed"],
      ["always", true, "allowed"],
      ["once", false, "allowed"],
      ["never", true, "denied"],
    ] as const;
    for (const [index, [toolName, remember, status]] of answered.entries()) {
      await prisma().platformPermissionRequest.create({
        data: { id: `req_claim_${scopedRun.body.id}_${index}`, runId: scopedRun.body.id, kind: "tool", toolName, toolCallId: `call_${index}`, input: {}, status, remember },
      });
    }
    const takenScoped = (await claimRuns(prisma(), "reader", options)).find((claimed) => claimed.run.id === scopedRun.body.id);
    expect(takenScoped?.agent).toEqual(await viaClient(scoped));
    expect(takenScoped?.reads).toEqual({ envSealed: [sealed], toolSources: { connections: false, servers: true }, memories: ["u1"], rememberedTools: ["always"], userId: "r1" });
    expect(takenScoped?.reads).toEqual({
      envSealed: await sealedEnvOfAgent(prisma(), account.id, scoped),
      toolSources: await runToolSources(prisma(), account.id, endUserId),
      memories: await recentMemoryContents(prisma(), { accountId: account.id, endUserId }, 2),
      rememberedTools: [...(await rememberedTools(prisma(), scopedRun.body.id))],
      userId: await findEndUserExternalId(prisma(), endUserId),
    });
    await prisma().platformRun.update({ where: { id: scopedRun.body.id }, data: { leaseOwner: null, leaseExpiresAt: null } });
    await prisma().platformAgent.update({ where: { id: scoped }, data: { status: "archived" } });
    const takenArchived = (await claimRuns(prisma(), "reader", options)).find((claimed) => claimed.run.id === scopedRun.body.id);
    expect(takenArchived).toMatchObject({ abandoned: false });
    expect(takenArchived?.agent).toBeUndefined();
    await prisma().platformRun.update({ where: { id: scopedRun.body.id }, data: { status: "completed", leaseOwner: null } });
  });
});
