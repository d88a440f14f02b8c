// The framework's side of the platform through tRPC (createCaller) over the embedded platform:
// provisioning, the user mapping, agent copies, runs under caps, tenant isolation, usage.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resealSecrets } from "@/server/platform/jobs/reseal-secrets";
import { connectEmbedded } from "@/server/framework/tenancy/platform-connection";
import { frameworkSealedColumns } from "@/server/framework/tenancy/sealing";
import { prepareOperatorAccount } from "@/server/framework/tenancy/platform-operator";
import { admitRun } from "@/server/framework/tenancy/limits";
import { sweepRunLedger } from "@/server/framework/tenancy/run-ledger";
import { TEST_SECRET, startFramework, type FrameworkHarness } from "../../helpers/framework";
import { startLedgerEndpoint, type LedgerEndpoint } from "../../helpers/ledger-endpoint";
import { pollUntil, waitForRun } from "../../helpers/poll";

let fw: FrameworkHarness;
let ledger: LedgerEndpoint;
beforeAll(async () => {
  // Runs are settled from the platform's webhooks (the run ledger), so deliveries reach a loopback endpoint.
  fw = await startFramework({ outboundAllowLoopback: true, jobPollSeconds: 0.5 });
  ledger = await startLedgerEndpoint(fw);
});
afterAll(async () => {
  await fw?.close();
  await ledger?.close();
});

/** Every admission of the tenant settled or given back (the ledger's webhooks have come). */
const allSettled = (tenantSlug = "acme") =>
  pollUntil(
    () => fw.database.prisma.runAdmission.count({ where: { tenant: { slug: tenantSlug }, releasedAt: null } }),
    (open) => open === 0,
    `every ${tenantSlug} admission settled`,
  );

const agentInput = (name: string, instructions = "Answer briefly.") => ({
  name,
  instructions,
  model: null,
  permissionMode: "autonomous" as const,
  tools: ["calculator" as const],
});

const untilDone = (caller: Awaited<ReturnType<FrameworkHarness["callerFor"]>>, runId: number) =>
  waitForRun<Awaited<ReturnType<typeof caller.runs.get>>>((id) => caller.runs.get({ runId: id }), runId, ["completed", "failed", "cancelled"]);

describe("platform connection (embedded)", () => {
  it("concurrent first starts converge on one account; the key is sealed; the account is verified and funded", async () => {
    const connect = () =>
      connectEmbedded({
        prisma: fw.database.prisma,
        appFetch: (request) => fw.app.fetch(request),
        secrets: [TEST_SECRET],
        prepareAccount: (accountId) => prepareOperatorAccount(fw.database.prisma, accountId),
      });
    const connections = await Promise.all([connect(), connect(), connect(), fw.connect()]);
    const keys = new Set(connections.map((connection) => connection.options.apiKey));
    expect(keys.size).toBe(1);
    const [key] = [...keys];
    const rows = await fw.database.prisma.frameworkPlatformAccount.findMany();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.apiKeyCipher).toMatch(/^v1\./);
    expect(rows[0]!.apiKeyCipher).not.toContain(key!);
    expect(await fw.database.prisma.platformAccount.count({ where: { email: { startsWith: "framework-" } } })).toBe(1);
    const account = await fw.database.prisma.platformAccount.findUniqueOrThrow({ where: { id: rows[0]!.accountId! } });
    expect(account.emailVerifiedAt).not.toBeNull();
    expect(account.balanceMicros).toBeGreaterThan(100_000_000n);
    // A wrong secret cannot read the key.
    await expect(
      connectEmbedded({ prisma: fw.database.prisma, appFetch: (request) => fw.app.fetch(request), secrets: ["another"] }),
    ).rejects.toThrow(/cannot be decrypted/);
  });

  it("after a key rotation, reads the key under the previous secret, and under the new one alone once re-sealed", async () => {
    const connect = (secrets: string[]) => connectEmbedded({ prisma: fw.database.prisma, appFetch: (request) => fw.app.fetch(request), secrets });
    const key = (await fw.connect()).options.apiKey;
    expect((await connect(["rotated-secret", TEST_SECRET])).options.apiKey).toBe(key);
    await expect(connect(["rotated-secret"])).rejects.toThrow(/cannot be decrypted/);
    const result = await resealSecrets(fw.database.prisma, frameworkSealedColumns(["rotated-secret", TEST_SECRET]));
    // The platform key and the run ledger's webhook secret (run-ledger-webhook.ts).
    expect(result).toEqual({ stale: 2, resealed: 2, unreadable: [] });
    expect((await connect(["rotated-secret"])).options.apiKey).toBe(key);
    // And back, so the rest of the file reads it with the harness's secret.
    await resealSecrets(fw.database.prisma, frameworkSealedColumns([TEST_SECRET, "rotated-secret"]));
    expect((await connect([TEST_SECRET])).options.apiKey).toBe(key);
  });
});

describe("user mapping", () => {
  it("one stable opaque user_id per (tenant, user), made once under concurrency, with a profile", async () => {
    const member = await fw.callerFor("member@acme.test");
    await Promise.all(Array.from({ length: 5 }, () => member.memories.list()));
    const { prisma } = fw.database;
    const user = await prisma.user.findUniqueOrThrow({ where: { email: "member@acme.test" } });
    const rows = await prisma.tenantPlatformUser.findMany({ where: { userId: user.id } });
    expect(rows).toHaveLength(1);
    const platformUserId = rows[0]!.platformUserId;
    expect(platformUserId).toMatch(/^eu_[A-Za-z0-9_-]{20,}$/);
    expect(platformUserId).not.toContain(user.id);
    await member.permissions.list();
    expect((await prisma.tenantPlatformUser.findFirstOrThrow({ where: { userId: user.id } })).platformUserId).toBe(platformUserId);

    const profile = await (await fw.connect()).client.users.get(platformUserId);
    const acme = await prisma.tenant.findUniqueOrThrow({ where: { slug: "acme" } });
    expect(profile).toMatchObject({ email: "member@acme.test", company: "Acme", metadata: { tenant_id: acme.id } });
  });
});

describe("agents, runs and caps", () => {
  let agentId: string;

  it("admins define tenant agents; members cannot, and see them; globex sees none", async () => {
    const admin = await fw.callerFor("admin@acme.test");
    const member = await fw.callerFor("member@acme.test");
    const globex = await fw.callerFor("admin@globex.test");
    await expect(member.agents.create({ scope: "tenant", agent: agentInput("Nope") })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(member.agents.create({ scope: "personal", agent: agentInput("Mine") })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const agent = await admin.agents.create({ scope: "tenant", agent: agentInput("Helper") });
    agentId = agent.id;
    expect((await member.agents.list()).agents.map((each) => each.name)).toContain("Helper");
    expect((await globex.agents.list()).agents.map((each) => each.id)).not.toContain(agentId);
    await expect(globex.agents.get({ id: agentId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(globex.agents.update({ id: agentId, agent: agentInput("Mine now") })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(member.agents.update({ id: agentId, agent: agentInput("Edited") })).rejects.toMatchObject({ code: "FORBIDDEN" });

    await admin.agents.setPersonalAllowed({ allow: true });
    const personal = await member.agents.create({ scope: "personal", agent: agentInput("Mine") });
    expect((await admin.agents.list()).agents.map((each) => each.id)).not.toContain(personal.id);
    await admin.agents.setPersonalAllowed({ allow: false });
  });

  it("a member's copy is provisioned once (even at once) and follows the admin's edits", async () => {
    const admin = await fw.callerFor("admin@acme.test");
    const member = await fw.callerFor("member@acme.test");
    const { prisma } = fw.database;
    const runs = await Promise.all([1, 2, 3].map((n) => member.runs.create({ agentId, message: `hello ${n}` })));
    const copies = await prisma.tenantAgentCopy.findMany({ where: { tenantAgentId: agentId } });
    expect(copies).toHaveLength(1);
    const platformAgent = await prisma.platformAgent.findUniqueOrThrow({ where: { id: copies[0]!.platformAgentId } });
    expect(platformAgent.instructions).toBe("Answer briefly.");
    const liveCopies = await prisma.platformAgent.count({ where: { name: "Helper", status: { not: "archived" } } });
    expect(liveCopies).toBe(1);
    for (const run of runs) expect((await untilDone(member, run.id)).status).toBe("completed");
    await allSettled();

    await admin.agents.update({ id: agentId, agent: agentInput("Helper", "Answer in French.") });
    const run = await member.runs.create({ agentId, message: "bonjour" });
    await untilDone(member, run.id);
    const synced = await prisma.platformAgent.findUniqueOrThrow({ where: { id: copies[0]!.platformAgentId } });
    expect(synced.instructions).toBe("Answer in French.");
    expect((await prisma.tenantAgentCopy.findFirstOrThrow({ where: { tenantAgentId: agentId } })).syncedVersion).toBe(2);
    const done = await untilDone(member, run.id);
    expect(done.output).toContain("bonjour");
    await allSettled();
  });

  it("runs pass the member's cap: the third is refused naming it; admissions are released and cost recorded", async () => {
    const { prisma } = fw.database;
    await prisma.memberUsage.deleteMany();
    const admin = await fw.callerFor("admin@acme.test");
    const member = await fw.callerFor("member@acme.test");
    const membership = (await admin.members.list()).find((each) => each.email === "member@acme.test")!;
    await admin.limits.setMemberCap({ membershipId: membership.id, cap: { runsPerMonth: 2, costPerMonthCents: null } });

    const first = await member.runs.create({ agentId, message: "one" });
    const second = await member.runs.create({ agentId, message: "two" });
    const refused = await member.runs.create({ agentId, message: "three" }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "TOO_MANY_REQUESTS", cause: { details: { limit: "member_runs", used: 2, max: 2 } } });
    expect((refused as Error).message).toMatch(/monthly run cap/);

    for (const run of [first, second]) await untilDone(member, run.id);
    await allSettled();
    const held = await prisma.tenantRun.findMany({ where: { platformRunId: { in: [first.id, second.id] } } });
    expect(held.every((run) => run.admissionId === null)).toBe(true);
    expect(held.every((run) => run.costMicros > 0n)).toBe(true);
    const mine = await member.usage.mine();
    expect(mine.member.runs).toEqual({ used: 2, max: 2 });
    expect(mine.member.costMicros.used).toBe(Number(held.reduce((sum, run) => sum + run.costMicros, 0n)));
    expect(mine.tenant.concurrentRuns.used).toBe(0);
    await admin.limits.setMemberCap({ membershipId: membership.id, cap: null });
  });

  it("a start the platform refuses (402, balance used up) does not use up a run of the member's cap", async () => {
    const { prisma } = fw.database;
    await prisma.memberUsage.deleteMany();
    const member = await fw.callerFor("member@acme.test");
    const { accountId } = await prisma.frameworkPlatformAccount.findFirstOrThrow({ where: { accountId: { not: null } } });
    const account = await prisma.platformAccount.findUniqueOrThrow({ where: { id: accountId! } });
    // Nothing left that runs in progress do not hold: the platform answers 402 TOKEN_BALANCE_DEPLETED.
    await prisma.platformAccount.update({ where: { id: account.id }, data: { balanceMicros: account.heldMicros } });
    try {
      const refused = await member.runs.create({ agentId, message: "broke" }).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: "PAYMENT_REQUIRED", cause: { errorCode: "TOKEN_BALANCE_DEPLETED" } });
      const mine = await member.usage.mine();
      expect([mine.member.runs.used, mine.tenant.concurrentRuns.used]).toEqual([0, 0]);
    } finally {
      await prisma.platformAccount.update({ where: { id: account.id }, data: { balanceMicros: account.balanceMicros } });
    }
    const run = await member.runs.create({ agentId, message: "funded again" });
    await untilDone(member, run.id);
    expect((await member.usage.mine()).member.runs.used).toBe(1);
  });

  it("the sweep releases admissions that never named a run (the process died before the platform answered)", async () => {
    const { prisma } = fw.database;
    const acme = await prisma.tenant.findUniqueOrThrow({ where: { slug: "acme" } });
    const member = await prisma.user.findUniqueOrThrow({ where: { email: "member@acme.test" } });
    const orphan = await admitRun(prisma, { tenantId: acme.id, userId: member.id });
    const runtime = await fw.connect();
    // Not yet: it may still be waiting for the platform's answer.
    expect((await sweepRunLedger(prisma, runtime)).orphans).toBe(0);
    const swept = await sweepRunLedger(prisma, runtime, { now: new Date(Date.now() + 60 * 60_000) });
    expect(swept.orphans).toBe(1);
    expect((await prisma.runAdmission.findUniqueOrThrow({ where: { id: orphan.admissionId } })).releasedAt).not.toBeNull();
  });

  it("isolation: globex gets NOT_FOUND for acme's runs; members cannot use admin procedures; usage is per tenant", async () => {
    const member = await fw.callerFor("member@acme.test");
    const globex = await fw.callerFor("admin@globex.test");
    const admin = await fw.callerFor("admin@acme.test");
    const { runs } = await member.runs.list({ limit: 50 });
    expect(runs.length).toBeGreaterThan(0);
    const acmeRun = runs[0]!.id;
    await expect(globex.runs.get({ runId: acmeRun })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(globex.runs.cancel({ runId: acmeRun })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(globex.runs.reply({ runId: acmeRun, message: "mine" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(globex.runs.permissions({ runId: acmeRun })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(admin.runs.get({ runId: acmeRun })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect((await globex.runs.list({ limit: 50 })).runs).toEqual([]);
    await expect(member.usage.tenant({ days: 7 })).rejects.toMatchObject({ code: "FORBIDDEN" });

    const acmeUsage = await admin.usage.tenant({ days: 7 });
    const memberRow = acmeUsage.members.find((row) => row.email === "member@acme.test")!;
    expect(memberRow.runs).toBeGreaterThan(0);
    expect(memberRow.platform?.inputTokens).toBeGreaterThan(0);
    expect(acmeUsage.days.reduce((sum, day) => sum + day.totalTokens, 0)).toBeGreaterThan(0);
    const globexUsage = await globex.usage.tenant({ days: 7 });
    expect(globexUsage.members.map((row) => row.email)).toEqual(["admin@globex.test"]);
    expect(globexUsage.days.reduce((sum, day) => sum + day.totalTokens, 0)).toBe(0);
  });

  it("a reply passes admission too and continues the run", async () => {
    const member = await fw.callerFor("member@acme.test");
    const run = await member.runs.create({ agentId, message: "first" });
    await untilDone(member, run.id);
    const replied = await member.runs.reply({ runId: run.id, message: "second" });
    expect(replied.id).toBe(run.id);
    const done = await untilDone(member, run.id);
    expect(done.output).toContain("second");
  });

  it("a removed member loses access at once", async () => {
    const admin = await fw.callerFor("admin@acme.test");
    const member = await fw.callerFor("member@acme.test");
    const { runs } = await member.runs.list({ limit: 1 });
    const membership = (await admin.members.list()).find((each) => each.email === "member@acme.test")!;
    await admin.members.remove({ id: membership.id });
    await expect(member.runs.get({ runId: runs[0]!.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(member.agents.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(member.memories.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect((await admin.usage.tenant({ days: 7 })).members.map((row) => row.email)).not.toContain("member@acme.test");
  });

  it("the owner's tenant limits push the loosest per-end-user backstops to the platform", async () => {
    const owner = await fw.callerFor("owner@inlay.test");
    const { prisma } = fw.database;
    const acme = await prisma.tenant.findUniqueOrThrow({ where: { slug: "acme" } });
    await owner.tenants.setLimits({
      tenantId: acme.id,
      limits: { runsPerMonth: 1500, costPerMonthCents: 60_000, concurrentRuns: 5, turnsPerMinutePerMember: 30 },
    });
    const settings = await (await fw.connect()).client.settings.get();
    // globex's seeded limits are 300 runs, 10,000 cents, 10 turns: acme's are the loosest.
    expect(settings).toMatchObject({ per_end_user_run_limit: 1500, per_end_user_cost_limit_cents: 60_000, per_end_user_rate_per_minute: 30 });

    // A new tenant has no limits yet: the backstops are lifted as soon as it exists.
    await owner.tenants.create({ name: "Initech" });
    expect(await (await fw.connect()).client.settings.get()).toMatchObject({
      per_end_user_run_limit: null,
      per_end_user_cost_limit_cents: null,
      per_end_user_rate_per_minute: null,
    });
  });
});
