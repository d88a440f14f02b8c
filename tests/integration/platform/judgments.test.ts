// Judgments: POST /judgments (decide and verify), GET /judgments/{id}, /judgments/connection, with
// the sim judge (deterministic verdicts, docs/sim-model.md) and a loopback OpenAI stand-in for
// customer-funded calls; isolation, limits, idempotency, retention and the balance left untouched.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { JUDGMENT_SOURCE_MAX_CHARS } from "@inlay/core/schemas/judgments";
import { deleteAllExpiredJudgments } from "@/server/platform/jobs/platform-jobs";
import { createSimModel } from "@/server/platform/models/sim";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { pollUntil } from "../../helpers/poll";
import { startProviderServer, type ProviderServer } from "../../helpers/provider-servers";

const GOOD_KEY = "sk-customer-good";

let platform: PlatformHarness;
let provider: ProviderServer;
let account: Account;
let other: Account;
// The sim judge, counted and optionally held mid-call.
let simCalls = 0;
let hold: Promise<void> | undefined;

function countedSim(): LanguageModelV3 {
  const sim = createSimModel();
  return {
    ...sim,
    doGenerate: async (options) => {
      simCalls++;
      if (hold) await hold;
      return sim.doGenerate(options);
    },
  };
}

const customerAnswer = JSON.stringify({ answers: { q1: { answer: "likely", rationale: "scripted" } } });

beforeAll(async () => {
  provider = await startProviderServer({
    wire: "openai-chat",
    basePath: "/v1",
    apiKey: GOOD_KEY,
    // One turn per request, refused ones included: the first request carries a wrong key.
    turns: [
      { kind: "text", text: "never sent", usage: { input: 1, output: 1 } },
      { kind: "text", text: customerAnswer, usage: { input: 100, output: 20 } },
    ],
  });
  platform = await startPlatform({
    languageModel: () => countedSim(),
    judgments: { enabled: true, customerModel: "openai/gpt-4.1-mini", customerBaseUrl: provider.baseUrl },
  });
  account = await platform.signup({ require_end_user_id: false });
  other = await platform.signup({ require_end_user_id: false });
});
afterAll(async () => {
  await platform.close();
  await provider.close();
});

let counter = 0;
const freshUser = () => `judged-${++counter}`;
const freshKey = () => `judgment-key-${++counter}`;

type Query = Record<string, string | number | undefined>;

const judge = (key: string, body: Record<string, unknown>, options: { query?: Query; idempotencyKey?: string } = {}) =>
  platform.call("/judgments", {
    key,
    body,
    query: options.query,
    headers: options.idempotencyKey ? { "idempotency-key": options.idempotencyKey } : {},
  });

const decideBody = (extra: Record<string, unknown> = {}) => ({
  mode: "decide",
  state: { order: 42, status: "shipped late" },
  questions: [
    { type: "Choice", id: "route", prompt: "Which team handles it?", options: ["support", "billing", "logistics"] },
    { type: "score", id: "urgency", prompt: "How urgent?", min: 3, max: 7 },
    { type: "score", id: "tone", prompt: "How angry?" },
    { type: "noul", id: "refund", prompt: "Is a refund owed?" },
  ],
  ...extra,
});

const field = (body: any) => body.error.details?.fields?.[0]?.field;

async function createAgent(key: string, userId?: string) {
  const response = await platform.call("/agents", { key, query: { user_id: userId }, body: { name: "Judged" } });
  if (response.status !== 201) throw new Error(`POST /agents: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.id as number;
}

async function createDocument(accountId: number, agentId: number, content: string) {
  const document = await platform.database.prisma.platformAgentDocument.create({
    data: { accountId, agentId, name: `doc-${++counter}`, content, sizeBytes: Buffer.byteLength(content) },
  });
  return document.id;
}

/** A finished run of the scope that called the calculator: its tool_result event's id. */
async function toolResultOf(key: string, userId: string) {
  const agentId = await createAgent(key, userId);
  const started = await platform.call("/runs", {
    key,
    query: { user_id: userId },
    body: { teammate_id: agentId, stream: false, permission_mode: "autonomous", message: '::tool calculator {"expression":"6*7"}' },
  });
  if (started.status !== 200) throw new Error(`POST /runs: ${started.status} ${JSON.stringify(started.body)}`);
  const runId = started.body.id as number;
  const { status } = await platform.waitForRun(key, runId, ["completed", "failed"], { user_id: userId });
  expect(status).toBe("completed");
  const event = await platform.database.prisma.platformRunEvent.findFirstOrThrow({ where: { runId, type: "tool_result" } });
  return { runId, eventId: Number(event.id) };
}

describe("POST /judgments (decide)", () => {
  it("answers every typed question with the sim judge's deterministic verdicts", async () => {
    const { status, body } = await judge(account.key, decideBody());
    expect(status).toBe(200);
    expect(body).toMatchObject({
      object: "judgment",
      mode: "decide",
      user_id: null,
      run_id: null,
      independently_authenticated: false,
      model: "inlay/sim",
      funding_source: "platform",
    });
    expect(body.answers).toEqual([
      { question_id: "route", type: "choice", answer: "support", rationale: "sim" },
      { question_id: "urgency", type: "score", answer: 3, rationale: "sim" },
      { question_id: "tone", type: "score", answer: 0, rationale: "sim" },
      { question_id: "refund", type: "noul", answer: "no", rationale: "sim" },
    ]);
    expect(body.usage.input_tokens).toBeGreaterThan(0);
    expect(body.usage.output_tokens).toBeGreaterThan(0);
    expect(Number(body.cost_usd)).toBeGreaterThan(0);
    expect(Number.isInteger(body.latency_ms)).toBe(true);
    expect(body.rubric_version).toBeUndefined();
    expect(new Date(body.expires_at).getTime() - new Date(body.created_at).getTime()).toBe(30 * 24 * 60 * 60 * 1000);
  });

  it("never debits the balance", async () => {
    const before = (await platform.call("/billing/balance", { key: account.key })).body;
    expect((await judge(account.key, decideBody())).status).toBe(200);
    expect((await judge(account.key, { mode: "verify", claims: [{ id: "c", text: "x", evidence_ids: ["e"] }], evidence: [{ id: "e", text: "x" }] })).status).toBe(200);
    const after = (await platform.call("/billing/balance", { key: account.key })).body;
    expect(after.balance_micros).toBe(before.balance_micros);
    expect(after.available_micros).toBe(before.available_micros);
    expect(await platform.database.prisma.platformBalanceTransaction.count({ where: { accountId: account.id, type: "debit" } })).toBe(0);
  });

  it("refuses malformed questions with 422 naming the field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ questions: Array.from({ length: 33 }, (_, i) => ({ type: "noul", id: `q${i}`, prompt: "?" })) }, "questions"],
      [{ questions: [{ type: "noul", id: "a", prompt: "?" }, { type: "noul", id: "a", prompt: "?" }] }, "questions[1].id"],
      [{ questions: [{ type: "choice", id: "a", prompt: "?", options: ["only"] }] }, "questions.0.options"],
      [{ questions: [{ type: "score", id: "a", prompt: "?", min: 5, max: 5 }] }, "questions.0.max"],
      [{ questions: [{ type: "verdict", id: "a", prompt: "?" }] }, "questions.0"],
      [{ questions: [] }, "questions"],
      [{ state: "x".repeat(JUDGMENT_SOURCE_MAX_CHARS + 1) }, "state"],
      [{ state: undefined }, "state"],
      [{ questions: [{ type: "noul", id: "__proto__", prompt: "?" }] }, "questions.0.id"],
      [{ questions: [{ type: "noul", id: "x".repeat(65), prompt: "?" }] }, "questions.0.id"],
    ];
    for (const [change, name] of cases) {
      const { status, body } = await judge(account.key, decideBody(change));
      expect(status, JSON.stringify(change).slice(0, 80)).toBe(422);
      expect(body.error.type).toBe("validation_error");
      expect(`${field(body) ?? ""} ${body.error.message}`).toContain(name.split(".")[0]);
    }
    const unknownMode = await judge(account.key, { mode: "guess", questions: [] });
    expect(unknownMode.status).toBe(422);
  });

  it("accepts 32 questions", async () => {
    const questions = Array.from({ length: 32 }, (_, i) => ({ type: "noul", id: `q${i}`, prompt: "Likely?" }));
    const { status, body } = await judge(account.key, decideBody({ questions }));
    expect(status).toBe(200);
    expect(body.answers).toHaveLength(32);
  });

  it("answers 404 for a run_id of another scope, and keeps its own", async () => {
    const userId = freshUser();
    const { runId } = await toolResultOf(account.key, userId);
    const own = await judge(account.key, decideBody({ run_id: runId, user_id: userId }));
    expect(own.status).toBe(200);
    expect(own.body.run_id).toBe(runId);
    expect((await judge(account.key, decideBody({ run_id: runId, user_id: freshUser() }))).status).toBe(404);
    expect((await judge(account.key, decideBody({ run_id: runId }))).status).toBe(404);
    expect((await judge(other.key, decideBody({ run_id: runId, user_id: userId }))).status).toBe(404);
  });

  it("answers 401 without a key", async () => {
    expect((await judge("", decideBody())).status).toBe(401);
  });
});

describe("POST /judgments (verify)", () => {
  it("judges claims with evidence and gives insufficient_evidence to the others", async () => {
    const { status, body } = await judge(account.key, {
      mode: "verify",
      claims: [
        { id: "shipped", text: "The order shipped", evidence_ids: ["log"] },
        { id: "paid", text: "The order was paid", evidence_ids: [] },
        { id: "ghost", text: "Cites nothing that exists", evidence_ids: ["nope"] },
      ],
      evidence: [
        { id: "log", text: "2026-11-02 order 42 shipped" },
        { id: "spare", text: "unused" },
      ],
    });
    expect(status).toBe(200);
    expect(body.claims).toEqual([
      { claim_id: "shipped", verdict: "supported", evidence_ids: ["log"], rationale: "sim" },
      expect.objectContaining({ claim_id: "paid", verdict: "insufficient_evidence", evidence_ids: [] }),
      expect.objectContaining({ claim_id: "ghost", verdict: "insufficient_evidence", evidence_ids: [] }),
    ]);
    expect(body.rubric_version).toMatch(/^inlay-verify-/);
    expect(body.coverage).toEqual({ claims_total: 3, claims_with_evidence: 1, evidence_total: 2, evidence_resolved: 2, evidence_cited: 1 });
    expect(body.provenance[0]).toMatchObject({ evidence_id: "log", kind: "text", source_id: null, resolved: true, chars: 27 });
    expect(body.provenance[0].sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(body.independently_authenticated).toBe(false);
    expect(body.model).toBe("inlay/sim");
  });

  it("calls no model when no claim has evidence: model not_called, no cost", async () => {
    const before = simCalls;
    const { status, body } = await judge(account.key, { mode: "verify", claims: [{ id: "a", text: "Unbacked", evidence_ids: [] }] });
    expect(status).toBe(200);
    expect(simCalls).toBe(before);
    expect(body).toMatchObject({ model: "not_called", cost_usd: "0.000000", usage: { input_tokens: 0, output_tokens: 0 }, funding_source: "platform" });
    expect(body.claims[0].verdict).toBe("insufficient_evidence");
  });

  it("resolves documents and tool results in the caller's scope; a foreign or missing source is 404, binding nothing", async () => {
    const userId = freshUser();
    const agentId = await createAgent(account.key, userId);
    const documentId = await createDocument(account.id, agentId, "The warehouse confirmed order 42 shipped.");
    const { runId, eventId } = await toolResultOf(account.key, userId);
    const strangerAgent = await createAgent(account.key, freshUser());
    const strangerDocument = await createDocument(account.id, strangerAgent, "someone else's");
    const otherAgent = await createAgent(other.key);
    const foreignDocument = await createDocument(other.id, otherAgent, "another account's");
    const body = {
      mode: "verify",
      user_id: userId,
      claims: [
        { id: "doc", text: "Order 42 shipped", evidence_ids: ["d"] },
        { id: "calc", text: "6*7 is 42", evidence_ids: ["t"] },
      ],
      evidence: [
        { id: "d", source: { type: "document", id: documentId } },
        { id: "t", source: { type: "tool_result", id: eventId } },
      ],
    };
    const { status, body: result } = await judge(account.key, body);
    expect(status).toBe(200);
    expect(result.claims.map((claim: any) => claim.verdict)).toEqual(["supported", "supported"]);
    expect(result.provenance[0]).toMatchObject({ kind: "document", source_id: documentId, resolved: true, agent_id: agentId });
    expect(result.provenance[1]).toMatchObject({ kind: "tool_result", source_id: eventId, resolved: true, run_id: runId });

    // Another end-user's or account's record answers exactly as a missing one: 404, no model call, no
    // judgment, and the Idempotency-Key stays free.
    const before = simCalls;
    const judgments = await platform.database.prisma.platformJudgment.count();
    const unreachable = [
      { type: "document", id: strangerDocument },
      { type: "document", id: foreignDocument },
      { type: "document", id: 2_000_000_000 },
      { type: "tool_result", id: 2_000_000_000 },
    ];
    for (const source of unreachable) {
      const idempotencyKey = freshKey();
      const refused = await judge(
        account.key,
        { ...body, evidence: [body.evidence[0], { id: "x", source }], claims: [...body.claims, { id: "x", text: "x", evidence_ids: ["x"] }] },
        { idempotencyKey },
      );
      expect(refused.status, JSON.stringify(source)).toBe(404);
      expect(refused.body.error.type).toBe("not_found");
      expect(refused.body.error.message).toBe(`evidence[1].source: ${source.type} ${source.id} not found`);
      expect((await judge(account.key, body, { idempotencyKey })).status).toBe(200);
    }
    // The same tool result, judged from another end-user's scope, is not there.
    const elsewhere = await judge(account.key, { ...body, user_id: freshUser() });
    expect(elsewhere.status).toBe(404);
    expect(simCalls).toBe(before + unreachable.length);
    expect(await platform.database.prisma.platformJudgment.count()).toBe(judgments + unreachable.length);
  });

  it("enforces the limits: 32 claims, 16,384 characters per source, 128 KiB after resolution", async () => {
    const claims = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `c${i}`, text: "claim", evidence_ids: ["e"] }));
    const evidence = [{ id: "e", text: "evidence" }];
    expect((await judge(account.key, { mode: "verify", claims: claims(32), evidence })).status).toBe(200);
    const tooMany = await judge(account.key, { mode: "verify", claims: claims(33), evidence });
    expect(tooMany.status).toBe(422);
    expect(field(tooMany.body)).toBe("claims");

    const longText = await judge(account.key, { mode: "verify", claims: claims(1), evidence: [{ id: "e", text: "x".repeat(JUDGMENT_SOURCE_MAX_CHARS + 1) }] });
    expect(longText.status).toBe(422);
    expect(field(longText.body)).toBe("evidence.0.text");
    expect((await judge(account.key, { mode: "verify", claims: claims(1), evidence: [{ id: "e", text: "x".repeat(JUDGMENT_SOURCE_MAX_CHARS) }] })).status).toBe(200);

    const agentId = await createAgent(account.key);
    const bigDocument = await createDocument(account.id, agentId, "y".repeat(JUDGMENT_SOURCE_MAX_CHARS + 1));
    const oversized = await judge(account.key, { mode: "verify", claims: claims(1), evidence: [{ id: "e", source: { type: "document", id: bigDocument } }] });
    expect(oversized.status).toBe(422);
    expect(field(oversized.body)).toBe("evidence[0].source");

    // Nine full sources fit the 256 KB body but not the 128 KiB the judge may read.
    const nine = Array.from({ length: 9 }, (_, i) => ({ id: `e${i}`, text: "z".repeat(JUDGMENT_SOURCE_MAX_CHARS) }));
    const heavy = await judge(account.key, { mode: "verify", claims: [{ id: "c", text: "claim", evidence_ids: ["e0"] }], evidence: nine });
    expect(heavy.status).toBe(422);
    expect(field(heavy.body)).toBe("evidence");
    expect(heavy.body.error.message).toContain("131072");
    // Documents count after resolution too: seven inline sources and two documents of the same size.
    const documents = await Promise.all([1, 2].map(() => createDocument(account.id, agentId, "w".repeat(JUDGMENT_SOURCE_MAX_CHARS))));
    const mixed = [...nine.slice(0, 7), ...documents.map((id, i) => ({ id: `d${i}`, source: { type: "document", id } }))];
    const resolvedHeavy = await judge(account.key, { mode: "verify", claims: [{ id: "c", text: "claim", evidence_ids: ["e0"] }], evidence: mixed });
    expect(resolvedHeavy.status).toBe(422);
    expect(field(resolvedHeavy.body)).toBe("evidence");
  });

  it("refuses evidence with both text and source, or neither, and repeated ids", async () => {
    const claims = [{ id: "c", text: "claim", evidence_ids: ["e"] }];
    const both = await judge(account.key, { mode: "verify", claims, evidence: [{ id: "e", text: "t", source: { type: "document", id: 1 } }] });
    expect(both.status).toBe(422);
    const neither = await judge(account.key, { mode: "verify", claims, evidence: [{ id: "e" }] });
    expect(neither.status).toBe(422);
    const badSource = await judge(account.key, { mode: "verify", claims, evidence: [{ id: "e", source: { type: "document", id: 0 } }] });
    expect(badSource.status).toBe(422);
    const repeated = await judge(account.key, { mode: "verify", claims: [...claims, ...claims] });
    expect(repeated.status).toBe(422);
    expect(field(repeated.body)).toBe("claims[1].id");
  });

  it("refuses a body over 256 KB with 413", async () => {
    const evidence = Array.from({ length: 20 }, (_, i) => ({ id: `e${i}`, text: "q".repeat(JUDGMENT_SOURCE_MAX_CHARS) }));
    const response = await platform.request("/judgments", {
      method: "POST",
      // The server stops reading an oversized body and may drop the connection afterwards.
      headers: { "content-type": "application/json", authorization: `Bearer ${account.key}`, connection: "close" },
      body: JSON.stringify({ mode: "verify", claims: [{ id: "c", text: "x", evidence_ids: [] }], evidence }),
    });
    expect(response.status).toBe(413);
  });
});

describe("GET /judgments/{judgment_id}", () => {
  it("returns the saved result without a new model call, to its own scope only", async () => {
    const userId = freshUser();
    const created = await judge(account.key, decideBody({ user_id: userId }));
    expect(created.status).toBe(200);
    const before = simCalls;
    const read = await platform.call(`/judgments/${created.body.id}`, { key: account.key, query: { user_id: userId } });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
    expect(simCalls).toBe(before);

    const path = `/judgments/${created.body.id}`;
    expect((await platform.call(path, { key: account.key })).status).toBe(404);
    expect((await platform.call(path, { key: account.key, query: { user_id: freshUser() } })).status).toBe(404);
    expect((await platform.call(path, { key: other.key, query: { user_id: userId } })).status).toBe(404);
    expect((await platform.call("/judgments/999999999", { key: account.key })).status).toBe(404);
    expect((await platform.call(path, { key: account.key, query: { user_id: userId, verbose: 1 } })).body.error.error_code).toBe("unknown_query_parameter");
  });

  it("answers 410 result_not_retained once the 30 days are over", async () => {
    const created = await judge(account.key, decideBody());
    await platform.database.prisma.platformJudgment.update({ where: { id: created.body.id }, data: { resultExpiresAt: new Date(Date.now() - 1_000) } });
    const read = await platform.call(`/judgments/${created.body.id}`, { key: account.key });
    expect(read.status).toBe(410);
    expect(read.body.error.error_code).toBe("result_not_retained");
  });

  it("keeps the metadata 90 days, then the housekeeping job deletes it: 404", async () => {
    const created = await judge(account.key, decideBody());
    const created_at = new Date(created.body.created_at).getTime();
    const day = 24 * 60 * 60 * 1000;
    expect(await deleteAllExpiredJudgments(platform.database.prisma, new Date(created_at + 89 * day))).toBe(0);
    expect(await platform.database.prisma.platformJudgment.count({ where: { id: created.body.id } })).toBe(1);
    expect(await deleteAllExpiredJudgments(platform.database.prisma, new Date(created_at + 90 * day))).toBeGreaterThanOrEqual(1);
    expect((await platform.call(`/judgments/${created.body.id}`, { key: account.key })).status).toBe(404);
  });

  it("keeps only metadata under metadata_only: GET and replays answer 410", async () => {
    const quiet = await platform.signup({ require_end_user_id: false });
    expect((await platform.call("/settings", { key: quiet.key, method: "PATCH", body: { retention_mode: "metadata_only" } })).status).toBe(200);
    const key = freshKey();
    const created = await judge(quiet.key, decideBody(), { idempotencyKey: key });
    expect(created.status).toBe(200);
    expect(created.body.answers).toHaveLength(4);
    const stored = await platform.database.prisma.platformJudgment.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(stored.result).toBeNull();
    expect(stored.costMicros).toBeGreaterThan(0n);

    const read = await platform.call(`/judgments/${created.body.id}`, { key: quiet.key });
    expect(read.status).toBe(410);
    expect(read.body.error.error_code).toBe("result_not_retained");
    const replay = await judge(quiet.key, decideBody(), { idempotencyKey: key });
    expect(replay.status).toBe(410);
    expect(replay.body.error.error_code).toBe("result_not_retained");
  });
});

describe("Idempotency-Key on POST /judgments", () => {
  it("replays the same id and cost without a new model call", async () => {
    const key = freshKey();
    const first = await judge(account.key, decideBody(), { idempotencyKey: key });
    expect(first.status).toBe(200);
    const before = simCalls;
    const again = await judge(account.key, decideBody(), { idempotencyKey: key });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replay")).toBe("true");
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.cost_usd).toBe(first.body.cost_usd);
    expect(again.body).toEqual(first.body);
    expect(simCalls).toBe(before);
    // Another account's identical key is its own.
    const elsewhere = await judge(other.key, decideBody(), { idempotencyKey: key });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.id).not.toBe(first.body.id);
  });

  it("answers 409 idempotency_key_reuse for the same key with another request", async () => {
    const key = freshKey();
    expect((await judge(account.key, decideBody(), { idempotencyKey: key })).status).toBe(200);
    const conflict = await judge(account.key, decideBody({ state: "something else" }), { idempotencyKey: key });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.error_code).toBe("idempotency_key_reuse");
  });

  it("answers 409 idempotency_key_in_progress while the first attempt is pending", async () => {
    const key = freshKey();
    let release!: () => void;
    hold = new Promise((resolve) => (release = resolve));
    const before = simCalls;
    const first = judge(account.key, decideBody(), { idempotencyKey: key });
    try {
      await pollUntil(async () => simCalls, (calls) => calls > before, "the judge model to be called");
      const second = await judge(account.key, decideBody(), { idempotencyKey: key });
      expect(second.status).toBe(409);
      expect(second.body.error.error_code).toBe("idempotency_key_in_progress");
    } finally {
      hold = undefined;
      release();
    }
    expect((await first).status).toBe(200);
  });

  it("binds the key of a failed attempt: 409 idempotency_key_failed, and GET finds nothing", async () => {
    const key = freshKey();
    const failing = decideBody({ state: "broken judge\n::fail judge down" });
    const failed = await judge(account.key, failing, { idempotencyKey: key });
    expect(failed.status).toBe(503);
    expect(failed.body.error.error_code).toBe("judge_failed");
    expect(failed.body.error.message).toContain("judge down");
    const again = await judge(account.key, failing, { idempotencyKey: key });
    expect(again.status).toBe(409);
    expect(again.body.error.error_code).toBe("idempotency_key_failed");
    const row = await platform.database.prisma.platformJudgment.findFirstOrThrow({ where: { accountId: account.id, idempotencyKeys: { some: { key } } } });
    expect(row.status).toBe("failed");
    expect((await platform.call(`/judgments/${row.id}`, { key: account.key })).status).toBe(404);
  });

  it("keeps the key in the account's one idempotency store, beside the runs' keys", async () => {
    const key = freshKey();
    const first = await judge(account.key, decideBody(), { idempotencyKey: key });
    expect(first.status).toBe(200);
    const stored = await platform.database.prisma.platformIdempotencyKey.findUniqueOrThrow({ where: { accountId_key: { accountId: account.id, key } } });
    expect(stored).toMatchObject({ resource: "judgment", judgmentId: first.body.id, runId: null });

    // One namespace per account: a run-creating call with the judgment's key is another request.
    const agentId = await createAgent(account.key);
    const run = await platform.call("/runs", { key: account.key, body: { teammate_id: agentId, message: "hi" }, headers: { "idempotency-key": key } });
    expect(run.status).toBe(409);
    expect(run.body.error.error_code).toBe("idempotency_key_reuse");
    // ...and a judgment with a run's key.
    const runKey = freshKey();
    const created = await platform.call("/runs", { key: account.key, body: { teammate_id: agentId, message: "hi" }, headers: { "idempotency-key": runKey } });
    expect(created.status).toBe(200);
    const judged = await judge(account.key, decideBody(), { idempotencyKey: runKey });
    expect(judged.status).toBe(409);
    expect(judged.body.error.error_code).toBe("idempotency_key_reuse");
  });

  it("frees a key after its 24 hours: the next identical request makes a new judgment", async () => {
    const key = freshKey();
    const first = await judge(account.key, decideBody(), { idempotencyKey: key });
    expect(first.status).toBe(200);
    await platform.database.prisma.platformIdempotencyKey.update({
      where: { accountId_key: { accountId: account.id, key } },
      data: { expiresAt: new Date(Date.now() - 1_000) },
    });
    const again = await judge(account.key, decideBody(), { idempotencyKey: key });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replay")).toBeNull();
    expect(again.body.id).not.toBe(first.body.id);
    const stored = await platform.database.prisma.platformIdempotencyKey.findUniqueOrThrow({ where: { accountId_key: { accountId: account.id, key } } });
    expect(stored.judgmentId).toBe(again.body.id);
  });

  it("answers one judgment to identical requests sent at once, with one model call", async () => {
    const key = freshKey();
    let release!: () => void;
    hold = new Promise((resolve) => (release = resolve));
    const before = simCalls;
    const attempts = Array.from({ length: 4 }, () => judge(account.key, decideBody(), { idempotencyKey: key }));
    try {
      await pollUntil(async () => simCalls, (calls) => calls > before, "the judge model to be called");
    } finally {
      hold = undefined;
      release();
    }
    const answers = await Promise.all(attempts);
    expect(simCalls).toBe(before + 1);
    const made = answers.filter((answer) => answer.status === 200);
    // The one that was called answers 200; the others saw it in progress (or, once done, replay it).
    expect(made.length).toBeGreaterThanOrEqual(1);
    expect(new Set(made.map((answer) => answer.body.id)).size).toBe(1);
    for (const answer of answers.filter((candidate) => candidate.status !== 200)) {
      expect(answer.status).toBe(409);
      expect(answer.body.error.error_code).toBe("idempotency_key_in_progress");
    }
  });

  it("refuses a malformed key with 422", async () => {
    const { status, body } = await judge(account.key, decideBody(), { idempotencyKey: "x".repeat(256) });
    expect(status).toBe(422);
    expect(field(body)).toBe("Idempotency-Key");
  });
});

describe("/judgments/connection and customer funding", () => {
  it("starts unconnected and platform-funded, and accepts no user_id", async () => {
    const { status, body } = await platform.call("/judgments/connection", { key: account.key });
    expect(status).toBe(200);
    expect(body).toEqual({ connected: false, enabled: true, funding_source: "platform", model: "inlay/sim", updated_at: null });
    const scoped = await platform.call("/judgments/connection", { key: account.key, query: { user_id: "u" } });
    expect(scoped.status).toBe(400);
    expect(scoped.body.error.error_code).toBe("unknown_query_parameter");
    expect((await platform.call("/judgments/connection", { key: account.key, method: "PUT", body: {} })).status).toBe(422);
    expect((await platform.call("/judgments/connection", { key: account.key, method: "PUT", body: { api_key: " " } })).status).toBe(422);
  });

  it("funds judgments with the stored key, never falls back when it is refused, and rotates", async () => {
    const customer = await platform.signup({ require_end_user_id: false });
    const stored = await platform.call("/judgments/connection", { key: customer.key, method: "PUT", body: { api_key: "sk-customer-wrong" } });
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ connected: true, enabled: true, funding_source: "customer", model: "openai/gpt-4.1-mini" });
    expect(JSON.stringify(stored.body)).not.toContain("sk-customer");
    const row = await platform.database.prisma.platformJudgmentConnection.findUniqueOrThrow({ where: { accountId: customer.id } });
    expect(row.keySealed).not.toContain("sk-customer-wrong");

    // The wrong key: the provider refuses it, the judgment fails, the sim is never asked.
    const key = freshKey();
    const before = simCalls;
    const refused = await judge(customer.key, decideBody(), { idempotencyKey: key });
    expect(refused.status).toBe(400);
    expect(refused.body.error.error_code).toBe("judgment_connection_invalid");
    expect(simCalls).toBe(before);
    expect(provider.requests).toHaveLength(1);
    expect(provider.requests[0]!.headers.authorization).toBe("Bearer sk-customer-wrong");
    // A failed attempt binds its key.
    const retried = await judge(customer.key, decideBody(), { idempotencyKey: key });
    expect(retried.status).toBe(409);
    expect(retried.body.error.error_code).toBe("idempotency_key_failed");
    expect(provider.requests).toHaveLength(1);

    // Rotated to the right key: customer-funded, priced at the customer model's list price.
    const rotated = await platform.call("/judgments/connection", { key: customer.key, method: "PUT", body: { api_key: GOOD_KEY } });
    expect(rotated.body.updated_at).not.toBeNull();
    const balanceBefore = (await platform.call("/billing/balance", { key: customer.key })).body.balance_micros;
    const funded = await judge(customer.key, decideBody({ questions: [{ type: "noul", id: "q1", prompt: "Owed?" }] }));
    expect(funded.status).toBe(200);
    expect(funded.body).toMatchObject({
      funding_source: "customer",
      model: "openai/gpt-4.1-mini",
      answers: [{ question_id: "q1", type: "noul", answer: "likely", rationale: "scripted" }],
      usage: { input_tokens: 100, output_tokens: 20 },
      // 100 × $0.40/M + 20 × $1.60/M
      cost_usd: "0.000072",
    });
    expect(provider.requests[1]!.headers.authorization).toBe(`Bearer ${GOOD_KEY}`);
    expect(simCalls).toBe(before);
    expect((await platform.call("/billing/balance", { key: customer.key })).body.balance_micros).toBe(balanceBefore);
    expect(provider.problems).toEqual([]);

    // Removed: platform funding again.
    expect((await platform.call("/judgments/connection", { key: customer.key, method: "DELETE" })).status).toBe(204);
    expect((await platform.call("/judgments/connection", { key: customer.key })).body).toMatchObject({ connected: false, funding_source: "platform" });
    const platformFunded = await judge(customer.key, decideBody());
    expect(platformFunded.body).toMatchObject({ funding_source: "platform", model: "inlay/sim" });
    expect(provider.requests).toHaveLength(2);
  });
});

describe("the kill switch", () => {
  it("answers 503 judgments_disabled when judgments are switched off", async () => {
    // The switch is read on every request, so flipping this instance's configuration is enough.
    const settings = platform.config.judgments!;
    settings.enabled = false;
    try {
      const { status, body } = await judge(account.key, decideBody());
      expect(status).toBe(503);
      expect(body.error).toMatchObject({ type: "api_error", error_code: "judgments_disabled" });
      expect((await platform.call("/judgments/connection", { key: account.key })).body.enabled).toBe(false);
    } finally {
      settings.enabled = true;
    }
    expect((await judge(account.key, decideBody())).status).toBe(200);
  });
});
