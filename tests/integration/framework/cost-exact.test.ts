// Money exact end to end (issue #34): runs of the `sim` model (priced 1 micro-USD an input token, 2 an
// output token) started every way the framework starts them (tRPC runs.create and replies, the embed's
// chat backend and its replies, a schedule's "run now", a schedule's fire adopted by the sweep) are
// counted in the framework's spend to the micro-USD the platform's ledger debits: per tenant, per
// member, per run, and on the owner's and the members' screens' data. Nothing is rounded per run. The
// framework's run ledger settles them from the platform's run.* webhooks (tests/helpers/ledger-endpoint.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessDatabase } from "@/server/shared/db";
import { EMBED_ORIGIN_HEADER, EMBED_TOKEN_HEADER, setPlatformClientBinding } from "@/server/framework/chat/framework-context";
import { chatHandlers } from "@/server/framework/chat/handlers";
import { setAllowedOrigins } from "@/server/framework/embed/origins";
import { signEmbedToken } from "@/server/framework/embed/tokens";
import { setTenantLimits } from "@/server/framework/tenancy/limits";
import { lazyPlatformClient } from "@/server/framework/tenancy/platform-users";
import { sweepSchedules } from "@/server/framework/tenancy/schedules";
import { startFramework, type FrameworkHarness } from "../../helpers/framework";
import { startLedgerEndpoint, type LedgerEndpoint } from "../../helpers/ledger-endpoint";
import { pollUntil, waitForRun } from "../../helpers/poll";

type Caller = Awaited<ReturnType<FrameworkHarness["callerFor"]>>;

let fw: FrameworkHarness;
let ledger: LedgerEndpoint;
let acmeId: string;
const ORIGIN = "http://127.0.0.1:4000";
const AGENT = "Acme assistant";
const MEMBER = "member@acme.test";
const ADMIN = "admin@acme.test";

beforeAll(async () => {
  fw = await startFramework({ outboundAllowLoopback: true, jobPollSeconds: 0.5 });
  ledger = await startLedgerEndpoint(fw);
  setProcessDatabase(fw.database);
  setPlatformClientBinding((prisma, member) => lazyPlatformClient(prisma, () => fw.connect(), member.tenant, member.userId)());
  acmeId = (await fw.database.prisma.tenant.findUniqueOrThrow({ where: { slug: "acme" } })).id;
  await setAllowedOrigins(fw.database.prisma, acmeId, [ORIGIN]);
  // The demo's cost limits stay on (so admission compares them); the per-minute and at-once limits
  // would only slow a hundred runs down.
  await setTenantLimits(fw.database.prisma, acmeId, { runsPerMonth: 1000, costPerMonthCents: 50_000, concurrentRuns: null, turnsPerMinutePerMember: null });
}, 120_000);
afterAll(async () => {
  await fw?.close();
  await ledger?.close();
});

const done = ["completed", "failed", "cancelled"];
const untilDone = (caller: Caller, runId: number) => waitForRun((id) => caller.runs.get({ runId: id }), runId, done);
/** A different length each time, so runs cost different amounts (`::words N` answers N words). */
const text = (index: number) => `Run ${index} ${"x".repeat(index % 7)}\n::words ${(index % 11) + 1}`;

let counter = 0;
async function embedSend(email: string, body: { message: string; runId?: number }): Promise<number> {
  const user = await fw.database.prisma.user.findUniqueOrThrow({ where: { email } });
  const { token } = await signEmbedToken({ tenantId: acmeId, userId: user.id, origin: ORIGIN });
  const request = new Request("http://127.0.0.1/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json", [EMBED_TOKEN_HEADER]: token, [EMBED_ORIGIN_HEADER]: ORIGIN },
    body: JSON.stringify({
      agent: AGENT,
      ...(body.runId === undefined ? {} : { runId: body.runId }),
      message: { id: `m${++counter}`, role: "user", parts: [{ type: "text", text: body.message }] },
    }),
  });
  const response = await chatHandlers.send(request);
  expect(response.status).toBe(200);
  const runId = Number(response.headers.get("x-run-id"));
  await response.text();
  return runId;
}

/** In batches, so the run starts overlap a little without queueing a hundred at once. */
async function inBatches<T>(count: number, size: number, each: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let start = 0; start < count; start += size) {
    results.push(...(await Promise.all(Array.from({ length: Math.min(size, count - start) }, (_, offset) => each(start + offset)))));
  }
  return results;
}

describe("the framework's spend", () => {
  it("equals the platform ledger's debits to the micro-USD, per tenant, member and run, over 100 runs on every path", async () => {
    const { prisma } = fw.database;
    const member = await fw.callerFor(MEMBER);
    const admin = await fw.callerFor(ADMIN);
    const agentId = (await member.agents.list()).agents.find((agent) => agent.name === AGENT)!.id;
    const users = Object.fromEntries(
      await Promise.all([MEMBER, ADMIN].map(async (email) => [email, (await prisma.user.findUniqueOrThrow({ where: { email } })).id] as const)),
    );
    const runsOf: Record<string, number[]> = { [MEMBER]: [], [ADMIN]: [] };

    // tRPC: 40 runs (30 the member's, 10 the admin's), then 10 replies on the member's.
    const trpcRuns = await inBatches(40, 5, async (index) => {
      const [email, caller] = index < 30 ? [MEMBER, member] : [ADMIN, admin];
      const run = await caller.runs.create({ agentId, message: text(index) });
      await untilDone(caller, run.id);
      runsOf[email]!.push(run.id);
      return run.id;
    });
    for (const runId of trpcRuns.slice(0, 10)) {
      await member.runs.reply({ runId, message: text(runId) });
      await untilDone(member, runId);
    }

    // The embed's chat backend: 30 runs (20 the member's, 10 the admin's), then 5 replies.
    const embedRuns = await inBatches(30, 5, async (index) => {
      const email = index < 20 ? MEMBER : ADMIN;
      const runId = await embedSend(email, { message: text(100 + index) });
      runsOf[email]!.push(runId);
      return runId;
    });
    for (const runId of embedRuns.slice(0, 5)) await embedSend(MEMBER, { runId, message: text(runId) });

    // A schedule: 15 runs by "run now" (tRPC tasks.runNow), 15 fired by the platform and adopted by the sweep.
    const schedule = await member.tasks.create({ agentId, instructions: "Report ::words 3", when: { kind: "weekly", days: [1], time: "09:00" }, timezone: "UTC" });
    await inBatches(15, 5, async () => {
      const run = await member.tasks.runNow({ taskId: schedule.taskId });
      await untilDone(member, run.id);
      runsOf[MEMBER]!.push(run.id);
    });
    const connection = await fw.connect();
    const link = await prisma.tenantPlatformUser.findFirstOrThrow({ where: { tenantId: acmeId, userId: users[MEMBER] } });
    const fired = await inBatches(15, 5, async () => (await connection.client.forUser(link.platformUserId).tasks.run(schedule.taskId, { stream: false })).id);
    for (const runId of fired) await waitForRun(connection.client.forUser(link.platformUserId), runId, done);
    expect((await sweepSchedules(prisma, connection)).adopted).toBe(15);
    // The sweep settled each fired run it listed as ended; the webhooks settle every other turn.
    runsOf[MEMBER]!.push(...fired);
    await pollUntil(() => prisma.runAdmission.count({ where: { tenantId: acmeId, releasedAt: null } }), (open) => open === 0, "every turn settled");

    const all = [...runsOf[MEMBER]!, ...runsOf[ADMIN]!];
    expect(new Set(all).size).toBe(100);
    for (const run of await prisma.platformRun.findMany({ where: { id: { in: all } } })) expect(run.status).toBe("completed");

    // The platform's side: each run's cost is its tokens at the sim's price, and the ledger debited it.
    const platformRuns = await prisma.platformRun.findMany({ where: { id: { in: all } }, select: { id: true, costMicros: true, inputTokens: true, outputTokens: true } });
    for (const run of platformRuns) expect(run.costMicros).toBe(BigInt(run.inputTokens + 2 * run.outputTokens));
    const debits = await prisma.platformBalanceTransaction.findMany({ where: { runId: { in: all }, type: "debit" } });
    const ledgerOf = (ids: number[]) => debits.filter((debit) => ids.includes(debit.runId!)).reduce((sum, debit) => sum - debit.amountMicros, 0n);
    const meteredOf = (ids: number[]) => platformRuns.filter((run) => ids.includes(run.id)).reduce((sum, run) => sum + run.costMicros, 0n);
    const total = ledgerOf(all);
    expect(total).toBe(meteredOf(all));
    // Sub-cent runs: rounding each up to a cent would have counted at least $1.00 for these 100.
    expect(total).toBeGreaterThan(0n);
    expect(total).toBeLessThan(100n * 10_000n);

    // The framework's side, to the micro-USD.
    const tenantUsage = await prisma.tenantUsage.findMany({ where: { tenantId: acmeId } });
    expect(tenantUsage.reduce((sum, row) => sum + row.costMicros, 0n)).toBe(total);
    for (const email of [MEMBER, ADMIN]) {
      const rows = await prisma.memberUsage.findMany({ where: { tenantId: acmeId, userId: users[email] } });
      expect(rows.reduce((sum, row) => sum + row.costMicros, 0n)).toBe(ledgerOf(runsOf[email]!));
    }
    // Each run the framework records (all but the chat's, which are charged to their turns' admissions).
    for (const run of await prisma.tenantRun.findMany({ where: { tenantId: acmeId } })) {
      expect(run.costMicros).toBe(ledgerOf([run.platformRunId]));
    }
    const admissions = await prisma.runAdmission.findMany({ where: { tenantId: acmeId } });
    expect(admissions.every((admission) => admission.releasedAt !== null)).toBe(true);
    expect(admissions.reduce((sum, admission) => sum + admission.costMicros, 0n)).toBe(total);

    // What the screens are given: the member's quota, the admins' usage table, the owner's spend.
    const mine = await member.usage.mine();
    expect(mine.member.costMicros.used).toBe(Number(ledgerOf(runsOf[MEMBER]!)));
    expect(mine.tenant.costMicros).toEqual({ used: Number(total), max: 50_000 * 10_000 });
    const usage = await admin.usage.tenant({ days: 30 });
    expect(usage.members.find((row) => row.email === MEMBER)!.costMicros).toBe(Number(ledgerOf(runsOf[MEMBER]!)));
    const owner = await fw.callerFor("owner@inlay.test");
    const overview = await owner.billing.overview();
    expect(overview.tenants.find((tenant) => tenant.slug === "acme")!.costMicros).toBe(Number(total));
    expect(overview.tenantsCostMicros).toBe(Number(total));
  }, 600_000);
});
