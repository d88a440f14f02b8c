// The framework's run ledger (issue #34): runs started every way the framework starts them (tRPC runs
// and replies, the embed's chat, a schedule's "run now") are settled from the platform's signed run.*
// webhooks, delivered by the embedded platform's outbox to the framework's endpoint (here a loopback
// server over receiveLedgerWebhook, which the Next route only wraps). Duplicate and out-of-order
// deliveries count once, a missed delivery is settled by the sweep (reads settle nothing), a refused
// start gives its admission back, and tenant spend, member spend and the platform ledger agree to the
// micro-USD.
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessDatabase } from "@/server/shared/db";
import { EMBED_ORIGIN_HEADER, EMBED_TOKEN_HEADER, setPlatformClientBinding } from "@/server/framework/chat/framework-context";
import { chatHandlers } from "@/server/framework/chat/handlers";
import { setAllowedOrigins } from "@/server/framework/embed/origins";
import { signEmbedToken } from "@/server/framework/embed/tokens";
import { openWithKeys, seal } from "@/server/shared/secret-box";
import { setTenantLimits } from "@/server/framework/tenancy/limits";
import { findFrameworkWebhook } from "@/server/framework/tenancy/platform-repository";
import { lazyPlatformClient } from "@/server/framework/tenancy/platform-users";
import { sweepRunLedger } from "@/server/framework/tenancy/run-ledger";
import { ledgerSettled } from "@/server/framework/observability/metrics";
import { ensureLedgerWebhook, receiveLedgerWebhook } from "@/server/framework/tenancy/run-ledger-webhook";
import { keysFor, PLATFORM_WEBHOOK_SECRET } from "@/server/framework/tenancy/sealing";
import { TEST_SECRET, startFramework, type FrameworkHarness } from "../../helpers/framework";
import { startLedgerEndpoint, type LedgerEndpoint } from "../../helpers/ledger-endpoint";
import { pollUntil, waitForRun } from "../../helpers/poll";

type Caller = Awaited<ReturnType<FrameworkHarness["callerFor"]>>;
let fw: FrameworkHarness;
let endpoint: LedgerEndpoint;
let acmeId: string;
const ORIGIN = "http://127.0.0.1:4000";
const AGENT = "Acme assistant";
const MEMBER = "member@acme.test";
const ADMIN = "admin@acme.test";

beforeAll(async () => {
  fw = await startFramework({ webhooks: { retryScheduleMs: [0, 200, 200] }, outboundAllowLoopback: true, jobPollSeconds: 0.5 });
  setProcessDatabase(fw.database);
  setPlatformClientBinding((prisma, member) => lazyPlatformClient(prisma, () => fw.connect(), member.tenant, member.userId)());
  acmeId = (await fw.database.prisma.tenant.findUniqueOrThrow({ where: { slug: "acme" } })).id;
  await setAllowedOrigins(fw.database.prisma, acmeId, [ORIGIN]);
  await setTenantLimits(fw.database.prisma, acmeId, { runsPerMonth: 1000, costPerMonthCents: 50_000, concurrentRuns: null, turnsPerMinutePerMember: null });
  endpoint = await startLedgerEndpoint(fw);
}, 120_000);
afterAll(async () => {
  await fw?.close();
  await endpoint?.close();
});

const done = ["completed", "failed", "cancelled"];
const untilDone = (caller: Caller, runId: number) => waitForRun((id) => caller.runs.get({ runId: id }), runId, done);
const userId = async (email: string) => (await fw.database.prisma.user.findUniqueOrThrow({ where: { email } })).id;
const openAdmissions = () => fw.database.prisma.runAdmission.count({ where: { tenantId: acmeId, releasedAt: null } });
const settledBy = (runId: number) =>
  endpoint.deliveries.filter((each) => each.result !== "dropped" && each.result.outcome === "settled" && each.result.event.run_id === runId);

/** What the platform's ledger debited for these runs, and what the framework charged for them. */
async function books(runIds: number[]) {
  const { prisma } = fw.database;
  const debits = await prisma.platformBalanceTransaction.findMany({ where: { runId: { in: runIds }, type: "debit" } });
  const admissions = await prisma.runAdmission.findMany({ where: { tenantId: acmeId, platformRunId: { in: runIds } } });
  return {
    ledger: debits.reduce((sum, debit) => sum - debit.amountMicros, 0n),
    charged: admissions.reduce((sum, admission) => sum + admission.costMicros, 0n),
    turns: admissions.length,
  };
}

const spend = async () => {
  const { prisma } = fw.database;
  const tenant = await prisma.tenantUsage.findMany({ where: { tenantId: acmeId } });
  const member = await prisma.memberUsage.findMany({ where: { tenantId: acmeId, userId: await userId(MEMBER) } });
  return {
    tenant: tenant.reduce((sum, row) => sum + row.costMicros, 0n),
    member: member.reduce((sum, row) => sum + row.costMicros, 0n),
  };
};

/** The month's runs counted for the tenant and the member. */
const runCounts = async () => {
  const { prisma } = fw.database;
  const tenant = await prisma.tenantUsage.findMany({ where: { tenantId: acmeId } });
  const member = await prisma.memberUsage.findMany({ where: { tenantId: acmeId, userId: await userId(MEMBER) } });
  return { tenant: tenant.reduce((sum, row) => sum + row.runs, 0), member: member.reduce((sum, row) => sum + row.runs, 0) };
};

let counter = 0;
async function embedSend(email: string, body: { message: string; runId?: number }): Promise<number> {
  const { token } = await signEmbedToken({ tenantId: acmeId, userId: await userId(email), origin: ORIGIN });
  const request = new Request("http://127.0.0.1/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json", [EMBED_TOKEN_HEADER]: token, [EMBED_ORIGIN_HEADER]: ORIGIN },
    body: JSON.stringify({
      agent: AGENT,
      ...(body.runId === undefined ? {} : { runId: body.runId }),
      message: { id: `ledger-${++counter}`, role: "user", parts: [{ type: "text", text: body.message }] },
    }),
  });
  const response = await chatHandlers.send(request);
  expect(response.status).toBe(200);
  await response.text();
  return Number(response.headers.get("x-run-id"));
}

/** Signs `payload` as the platform signs deliveries to the framework's webhook (a forged replay of our own). */
async function signed(payload: Record<string, unknown>) {
  const row = (await findFrameworkWebhook(fw.database.prisma))!;
  const secret = openWithKeys(keysFor(PLATFORM_WEBHOOK_SECRET, [TEST_SECRET]), row.secretCipher).value;
  const body = JSON.stringify({ ...payload, timestamp: new Date().toISOString() });
  const id = `msg_test_${++counter}`;
  const at = new Date();
  const signature = new Webhook(secret).sign(id, at, body);
  return { body, headers: { "webhook-id": id, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": signature } };
}

describe("the run ledger's webhook", () => {
  it("is registered once however many instances ask, its secret sealed; a delivery that does not verify is refused", async () => {
    const connection = await fw.connect();
    const { prisma } = fw.database;
    const { url } = endpoint;
    // As on a first start: none registered yet, three instances asking at once.
    const registered = (await findFrameworkWebhook(prisma))!;
    await connection.client.webhooks.delete(registered.webhookId);
    await prisma.frameworkPlatformAccount.updateMany({ data: { webhookId: null, webhookSecretCipher: null } });
    expect(await Promise.all([1, 2, 3].map(() => ensureLedgerWebhook(prisma, connection, url, [TEST_SECRET])))).toEqual([true, true, true]);
    const hooks = (await connection.client.webhooks.list({ limit: 100 })).data.filter((hook) => hook.url === url);
    expect(hooks).toHaveLength(1);
    const row = (await findFrameworkWebhook(prisma))!;
    expect(row.webhookId).toBe(hooks[0]!.id);
    expect(row.secretCipher).toMatch(/^v1\./);
    expect(row.secretCipher).not.toContain("whsec_");

    const forged = await receiveLedgerWebhook(prisma, connection, JSON.stringify({ type: "run.completed", run_id: 1 }), {
      "webhook-id": "msg_forged",
      "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
      "webhook-signature": "v1,AAAA",
    }, [TEST_SECRET]);
    expect(forged).toMatchObject({ outcome: "rejected" });
  });

  it("verifies at once against a secret another instance registered anew, and no longer against the old one", async () => {
    const connection = await fw.connect();
    const { prisma } = fw.database;
    const receive = (delivery: { body: string; headers: Record<string, string> }) =>
      receiveLedgerWebhook(prisma, connection, delivery.body, delivery.headers, [TEST_SECRET]);
    // A kind the ledger ignores: verified, nothing settled.
    const event = { type: "run.started", run_id: 1, status: "running", user_id: null };
    const before = await signed(event);
    expect(await receive(before)).toMatchObject({ outcome: "ignored" });
    const original = (await findFrameworkWebhook(prisma))!;
    const [key] = keysFor(PLATFORM_WEBHOOK_SECRET, [TEST_SECRET]);
    await prisma.frameworkPlatformAccount.updateMany({ data: { webhookSecretCipher: seal(key!, `whsec_${randomBytes(24).toString("base64")}`) } });
    try {
      expect(await receive(await signed(event))).toMatchObject({ outcome: "ignored" });
      expect(await receive(before)).toMatchObject({ outcome: "rejected" });
    } finally {
      await prisma.frameworkPlatformAccount.updateMany({ data: { webhookSecretCipher: original.secretCipher } });
    }
  });
});

describe("runs on every path", () => {
  it("settle from the webhooks: tenant, member and the platform ledger agree to the micro-USD", async () => {
    const before = await spend();
    const countsBefore = await runCounts();
    const member = await fw.callerFor(MEMBER);
    const admin = await fw.callerFor(ADMIN);
    const agentId = (await member.agents.list()).agents.find((agent) => agent.name === AGENT)!.id;
    const memberRuns: number[] = [];

    const trpc = await member.runs.create({ agentId, message: "tRPC ::words 4" });
    await untilDone(member, trpc.id);
    await member.runs.reply({ runId: trpc.id, message: "and again ::words 6" });
    await untilDone(member, trpc.id);
    memberRuns.push(trpc.id);
    const adminRun = await admin.runs.create({ agentId, message: "the admin's ::words 3" });
    await untilDone(admin, adminRun.id);

    const chat = await embedSend(MEMBER, { message: "from the widget ::words 5" });
    await embedSend(MEMBER, { runId: chat, message: "a reply ::words 2" });
    memberRuns.push(chat);

    const schedule = await member.tasks.create({ agentId, instructions: "Report ::words 3", when: { kind: "weekly", days: [1], time: "09:00" }, timezone: "UTC" });
    const scheduled = await member.tasks.runNow({ taskId: schedule.taskId });
    await untilDone(member, scheduled.id);
    memberRuns.push(scheduled.id);

    const all = [...memberRuns, adminRun.id];
    await pollUntil(openAdmissions, (open) => open === 0, "every admission settled");
    // Each run was settled by a delivery (no read or sweep settles here).
    for (const runId of all) expect(settledBy(runId).length).toBeGreaterThanOrEqual(1);

    const total = await books(all);
    expect(total.turns).toBe(all.length + 2);
    expect(total.ledger).toBeGreaterThan(0n);
    expect(total.charged).toBe(total.ledger);
    const after = await spend();
    expect(after.tenant - before.tenant).toBe(total.ledger);
    expect(after.member - before.member).toBe((await books(memberRuns)).ledger);
    // Runs are runs, as the platform lists them: the two replies continued theirs and are not counted.
    const counts = await runCounts();
    expect(counts.tenant - countsBefore.tenant).toBe(all.length);
    expect(counts.member - countsBefore.member).toBe(memberRuns.length);
    const listed = (await member.runs.history({ limit: 50 })).runs.map((run) => run.id);
    expect(memberRuns.every((runId) => listed.includes(runId))).toBe(true);
    for (const run of await fw.database.prisma.tenantRun.findMany({ where: { platformRunId: { in: [trpc.id, adminRun.id, scheduled.id] } } })) {
      expect(run.costMicros).toBe((await books([run.platformRunId])).ledger);
      expect(run.admissionId).toBeNull();
    }
    expect((await member.usage.mine()).tenant.concurrentRuns.used).toBe(0);
  });

  it("a chat turn whose stream saw its run end is settled before the stream closes, and its webhook then finds nothing", async () => {
    const settledByStream = async () => (await ledgerSettled.get()).values.find((value) => value.labels.via === "stream")?.value ?? 0;
    const before = await settledByStream();
    const runId = await embedSend(MEMBER, { message: "settled at once ::words 3" });
    // The stream has closed: no waiting for a delivery.
    const [admission] = await fw.database.prisma.runAdmission.findMany({ where: { tenantId: acmeId, platformRunId: runId } });
    expect(admission!.releasedAt).not.toBeNull();
    expect(admission!.costMicros).toBe((await books([runId])).ledger);
    expect(admission!.costMicros).toBeGreaterThan(0n);
    expect(await settledByStream()).toBe(before + 1);
    // The run's webhook comes later and settles nothing more.
    await pollUntil(() => Promise.resolve(settledBy(runId)), (delivered) => delivered.length > 0, "the run's webhook delivered");
    expect(settledBy(runId).every((each) => each.result !== "dropped" && each.result.outcome === "settled" && each.result.settled === 0)).toBe(true);
    expect((await books([runId])).charged).toBe((await books([runId])).ledger);
  });

  it("a duplicate delivery, and a delivery of an earlier event after the run ended, count once", async () => {
    const member = await fw.callerFor(MEMBER);
    const agentId = (await member.agents.list()).agents.find((agent) => agent.name === AGENT)!.id;
    const run = await member.runs.create({ agentId, message: "once ::words 7" });
    await untilDone(member, run.id);
    await pollUntil(openAdmissions, (open) => open === 0, "the run settled");
    const [delivered] = settledBy(run.id);
    const before = await spend();
    const charged = await books([run.id]);
    expect(charged.charged).toBe(charged.ledger);

    const connection = await fw.connect();
    const { prisma } = fw.database;
    // The same delivery again (the outbox delivers at least once: the same webhook-id, the same body).
    const again = await receiveLedgerWebhook(prisma, connection, delivered!.body, delivered!.headers, [TEST_SECRET]);
    expect(again).toMatchObject({ outcome: "settled", settled: 0 });
    // An earlier event of the run, delivered after its run.completed.
    const started = await signed({ type: "run.started", run_id: run.id, status: "running", user_id: null });
    expect(await receiveLedgerWebhook(prisma, connection, started.body, started.headers, [TEST_SECRET])).toMatchObject({ outcome: "ignored" });
    expect(await spend()).toEqual(before);
    expect(await books([run.id])).toEqual(charged);

    // The run's first run.completed arriving after a reply reopened it: the reply's turn is settled only
    // when the run has ended again, and each turn counts its own part of the run's cost once.
    await member.runs.reply({ runId: run.id, message: "more ::words 3" });
    await receiveLedgerWebhook(prisma, connection, delivered!.body, delivered!.headers, [TEST_SECRET]);
    await untilDone(member, run.id);
    await pollUntil(openAdmissions, (open) => open === 0, "the reply settled");
    const both = await books([run.id]);
    expect(both.turns).toBe(2);
    expect(both.charged).toBe(both.ledger);
    expect((await spend()).tenant - before.tenant).toBe(both.ledger - charged.ledger);
  });
});

describe("a missed delivery", () => {
  it("is not settled by reading the run, and is settled by the sweep, once", async () => {
    const member = await fw.callerFor(MEMBER);
    const agentId = (await member.agents.list()).agents.find((agent) => agent.name === AGENT)!.id;
    const before = await spend();
    endpoint.drop(true);
    let runId: number;
    try {
      runId = (await member.runs.create({ agentId, message: "lost ::words 5" })).id;
      await untilDone(member, runId);
      await pollUntil(async () => endpoint.deliveries.filter((each) => each.result === "dropped" && JSON.parse(each.body).run_id === runId).length, (n) => n > 0, "the dropped delivery");
    } finally {
      endpoint.drop(false);
    }
    // runs.get and runs.list read the ended run: nothing is settled by them.
    await member.runs.get({ runId });
    await member.runs.list({ limit: 20 });
    expect(await openAdmissions()).toBe(1);
    expect(await spend()).toEqual(before);

    const connection = await fw.connect();
    const later = new Date(Date.now() + 5 * 60_000);
    const swept = await sweepRunLedger(fw.database.prisma, connection, { now: later });
    expect(swept.settled).toBe(1);
    expect(await openAdmissions()).toBe(0);
    const charged = await books([runId]);
    expect(charged.charged).toBe(charged.ledger);
    expect((await spend()).tenant - before.tenant).toBe(charged.ledger);
    // Swept again: nothing more.
    expect((await sweepRunLedger(fw.database.prisma, connection, { now: later })).settled).toBe(0);
    expect((await spend()).tenant - before.tenant).toBe(charged.ledger);
  });
});

describe("a refused start", () => {
  it("gives its admission back whole (the chat's run on an agent the platform does not know)", async () => {
    const { prisma } = fw.database;
    const memberId = await userId(MEMBER);
    const runs = async () => (await prisma.memberUsage.findMany({ where: { tenantId: acmeId, userId: memberId } })).reduce((sum, row) => sum + row.runs, 0);
    const before = await runs();
    const { token } = await signEmbedToken({ tenantId: acmeId, userId: memberId, origin: ORIGIN });
    const response = await chatHandlers.send(
      new Request("http://127.0.0.1/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json", [EMBED_TOKEN_HEADER]: token, [EMBED_ORIGIN_HEADER]: ORIGIN },
        body: JSON.stringify({ agent: "999999", message: { id: `ledger-${++counter}`, role: "user", parts: [{ type: "text", text: "hi" }] } }),
      }),
    );
    expect(response.status).toBe(404);
    expect(await runs()).toBe(before);
    expect(await openAdmissions()).toBe(0);
  });
});
