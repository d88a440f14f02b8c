import type { Session } from "next-auth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "@/server/framework/api/root";
import { createInnerContext } from "@/server/framework/api/trpc";
import { LimitExceededError } from "@/server/framework/tenancy/errors";
import { admitRun, releaseRun, setTenantLimits, withdrawRun } from "@/server/framework/tenancy/limits";
import { beginRun, costMicrosOf, runRefused, runStarted, settleRun } from "@/server/framework/tenancy/run-ledger";
import { settleAdmission } from "@/server/framework/tenancy/run-ledger-repository";
import { seedDemoData } from "@/prisma/seed";
import { createTestDatabase, type TestDatabase } from "../../helpers/database";

let database: TestDatabase;
let acmeId: string;
let globexId: string;
let adminId: string;
let memberId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  await seedDemoData(database.prisma);
  const { prisma } = database;
  acmeId = (await prisma.tenant.findUniqueOrThrow({ where: { slug: "acme" } })).id;
  globexId = (await prisma.tenant.findUniqueOrThrow({ where: { slug: "globex" } })).id;
  adminId = (await prisma.user.findUniqueOrThrow({ where: { email: "admin@acme.test" } })).id;
  memberId = (await prisma.user.findUniqueOrThrow({ where: { email: "member@acme.test" } })).id;
});
afterAll(() => database.dispose());

async function callerFor(email: string) {
  const user = await database.prisma.user.findUniqueOrThrow({ where: { email } });
  const session: Session = {
    expires: new Date(Date.now() + 60_000).toISOString(),
    user: { id: user.id, email, isOwner: user.isOwner },
  };
  return createCaller(createInnerContext({ session, prisma: database.prisma }));
}

const noLimits = { runsPerMonth: null, costPerMonthCents: null, concurrentRuns: null, turnsPerMinutePerMember: null };

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(LimitExceededError);
  return (error as LimitExceededError).details;
}

async function resetCounters() {
  const { prisma } = database;
  await prisma.runAdmission.deleteMany();
  await prisma.tenantUsage.deleteMany();
  await prisma.memberUsage.deleteMany();
  await prisma.tenantConcurrency.deleteMany();
  await prisma.memberTurnWindow.deleteMany();
  await prisma.memberCap.deleteMany();
  await prisma.tenantLimits.deleteMany();
}

describe("limits validation", () => {
  it("the owner sets tenant limits; admins set caps within them, refused per field above them", async () => {
    await resetCounters();
    const owner = await callerFor("owner@inlay.test");
    await owner.tenants.setLimits({ tenantId: acmeId, limits: { ...noLimits, runsPerMonth: 100, costPerMonthCents: 5000 } });
    expect((await owner.tenants.listAll()).find((t) => t.id === acmeId)?.limits).toMatchObject({
      runsPerMonth: 100,
      costPerMonthCents: 5000,
    });
    await expect(
      owner.tenants.setLimits({ tenantId: acmeId, limits: { ...noLimits, runsPerMonth: -1 } }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(
      owner.tenants.setLimits({ tenantId: "00000000-0000-4000-8000-000000000000", limits: noLimits }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });

    const admin = await callerFor("admin@acme.test");
    await expect(admin.limits.setDefaultCap({ runsPerMonth: 101, costPerMonthCents: null })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { field: "runsPerMonth" },
    });
    await expect(admin.limits.setDefaultCap({ runsPerMonth: null, costPerMonthCents: 5001 })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      cause: { field: "costPerMonthCents" },
    });
    await admin.limits.setDefaultCap({ runsPerMonth: 20, costPerMonthCents: 1000 });

    const caps = await admin.limits.get();
    const member = caps.members.find((m) => m.email === "member@acme.test")!;
    await expect(
      admin.limits.setMemberCap({ membershipId: member.membershipId, cap: { runsPerMonth: 500, costPerMonthCents: null } }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", cause: { field: "runsPerMonth" } });
    await admin.limits.setMemberCap({ membershipId: member.membershipId, cap: { runsPerMonth: 5, costPerMonthCents: null } });

    const after = await admin.limits.get();
    expect(after.defaultCap).toEqual({ runsPerMonth: 20, costPerMonthCents: 1000 });
    const row = after.members.find((m) => m.email === "member@acme.test")!;
    expect(row.override).toEqual({ runsPerMonth: 5, costPerMonthCents: null });
    // A null field of the override inherits the default.
    expect(row.effective).toEqual({ runsPerMonth: 5, costPerMonthCents: 1000 });

    const mine = await (await callerFor("member@acme.test")).limits.mine();
    expect(mine.member.runs).toEqual({ used: 0, max: 5 });
    expect(mine.tenant.runs).toEqual({ used: 0, max: 100 });

    await admin.limits.setMemberCap({ membershipId: member.membershipId, cap: null });
    expect((await admin.limits.get()).members.find((m) => m.email === "member@acme.test")!.effective.runsPerMonth).toBe(20);
  });
});

describe("admitRun", () => {
  it("counts runs and cost per member and tenant, and refuses with the limit that was reached", async () => {
    await resetCounters();
    const { prisma } = database;
    await setTenantLimits(prisma, acmeId, { ...noLimits, runsPerMonth: 3, costPerMonthCents: 100 });
    await prisma.tenantLimits.update({ where: { tenantId: acmeId }, data: { memberRunsPerMonth: 2 } });

    const now = new Date(Date.UTC(2026, 10, 22, 12));
    const first = await admitRun(prisma, { tenantId: acmeId, userId: memberId }, now);
    expect(first.period).toBe("2026-11");
    const second = await admitRun(prisma, { tenantId: acmeId, userId: memberId }, now);
    expect(await refusal(admitRun(prisma, { tenantId: acmeId, userId: memberId }, now))).toEqual({
      limit: "member_runs",
      used: 2,
      max: 2,
      resetsAt: "2026-12-01T00:00:00.000Z",
    });
    await admitRun(prisma, { tenantId: acmeId, userId: adminId }, now);
    expect(await refusal(admitRun(prisma, { tenantId: acmeId, userId: adminId }, now))).toMatchObject({
      limit: "tenant_runs",
      used: 3,
      max: 3,
    });
    // A refusal reserves nothing.
    expect((await prisma.memberUsage.findFirstOrThrow({ where: { userId: adminId } })).runs).toBe(1);

    // Cost: charged to the admission's month; the next admission sees it.
    await setTenantLimits(prisma, acmeId, { ...noLimits, costPerMonthCents: 100 });
    // Compared in exact micro-USD: one micro-USD under the $1.00 limit still admits; reaching it refuses.
    // (Runs 900_001 and 900_002 are none of the platform's: the ledger is told they ended at that cost.)
    const member = { tenantId: acmeId, userId: memberId };
    const ended = (runId: number, costUsd: string) => ({ run: { id: runId, status: "completed", usage: { cost_usd: costUsd } } });
    await runStarted(prisma, { ...member, admissionId: first.admissionId }, 900_001, ended(900_001, "0.999999"));
    const under = await admitRun(prisma, { tenantId: acmeId, userId: adminId }, now);
    await withdrawRun(prisma, { tenantId: acmeId, admissionId: under.admissionId });
    await runStarted(prisma, { ...member, admissionId: second.admissionId }, 900_002, ended(900_002, "0.000001"));
    // Settled once: the same run ending again (a duplicate delivery) charges nothing more.
    expect(await settleRun(prisma, ended(900_001, "0.999999").run)).toBe(0);
    const tenantCost = await admitRun(prisma, { tenantId: acmeId, userId: adminId }, now).catch((error: unknown) => error);
    expect(tenantCost).toBeInstanceOf(LimitExceededError);
    expect((tenantCost as LimitExceededError).details).toMatchObject({ limit: "tenant_cost", used: 1_000_000, max: 1_000_000 });
    expect((tenantCost as LimitExceededError).message).toContain("($1.00 of $1.00)");
    // The next month starts from zero.
    await admitRun(prisma, { tenantId: acmeId, userId: adminId }, new Date(Date.UTC(2026, 11, 1)));

    await setTenantLimits(prisma, acmeId, noLimits);
    await prisma.tenantLimits.update({ where: { tenantId: acmeId }, data: { memberRunsPerMonth: null, memberCostPerMonthCents: 100 } });
    expect(await refusal(admitRun(prisma, { tenantId: acmeId, userId: memberId }, now))).toMatchObject({
      limit: "member_cost",
      used: 1_000_000,
      max: 1_000_000,
    });
    // Another tenant's counters are its own.
    await admitRun(prisma, {
      tenantId: globexId,
      userId: (await prisma.user.findUniqueOrThrow({ where: { email: "admin@globex.test" } })).id,
    }, now);
    await expect(admitRun(prisma, { tenantId: globexId, userId: memberId }, now)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("holds concurrent runs until released, once per admission", async () => {
    await resetCounters();
    const { prisma } = database;
    await setTenantLimits(prisma, acmeId, { ...noLimits, concurrentRuns: 1 });
    const running = await admitRun(prisma, { tenantId: acmeId, userId: memberId });
    expect(await refusal(admitRun(prisma, { tenantId: acmeId, userId: adminId }))).toEqual({
      limit: "concurrent_runs",
      used: 1,
      max: 1,
      resetsAt: null,
    });
    expect(await releaseRun(prisma, { tenantId: globexId, admissionId: running.admissionId })).toBe(false);
    expect(await releaseRun(prisma, { tenantId: acmeId, admissionId: running.admissionId })).toBe(true);
    expect(await releaseRun(prisma, { tenantId: acmeId, admissionId: running.admissionId })).toBe(false);
    const next = await admitRun(prisma, { tenantId: acmeId, userId: adminId });
    expect(await refusal(admitRun(prisma, { tenantId: acmeId, userId: adminId }))).toMatchObject({ limit: "concurrent_runs" });
    await releaseRun(prisma, { tenantId: acmeId, admissionId: next.admissionId });
    expect((await prisma.tenantConcurrency.findUniqueOrThrow({ where: { tenantId: acmeId } })).activeRuns).toBe(0);
  });

  it("a refusal at a later limit leaves the counters before it as they were", async () => {
    await resetCounters();
    const { prisma } = database;
    await setTenantLimits(prisma, acmeId, { ...noLimits, concurrentRuns: 1, turnsPerMinutePerMember: 1 });
    const counts = async () => {
      const tenant = await prisma.tenantUsage.findMany({ where: { tenantId: acmeId } });
      const members = await prisma.memberUsage.findMany({ where: { tenantId: acmeId }, orderBy: { userId: "asc" } });
      const concurrency = await prisma.tenantConcurrency.findUnique({ where: { tenantId: acmeId } });
      return {
        tenantRuns: tenant.reduce((sum, row) => sum + row.runs, 0),
        memberRuns: Object.fromEntries(members.map((row) => [row.userId === memberId ? "member" : "admin", row.runs])),
        active: concurrency?.activeRuns ?? 0,
      };
    };
    const first = await admitRun(prisma, { tenantId: acmeId, userId: memberId });
    const admitted = await counts();
    expect(admitted).toMatchObject({ tenantRuns: 1, active: 1 });
    expect(admitted.memberRuns.member).toBe(1);
    // Refused at the running runs: the tenant's and the admin's months took nothing.
    expect(await refusal(admitRun(prisma, { tenantId: acmeId, userId: adminId }))).toMatchObject({ limit: "concurrent_runs" });
    expect(await counts()).toEqual(admitted);
    // Refused at the minute's turns: the months and the running runs took nothing.
    await releaseRun(prisma, { tenantId: acmeId, admissionId: first.admissionId });
    expect(await refusal(admitRun(prisma, { tenantId: acmeId, userId: memberId }))).toMatchObject({ limit: "turns_per_minute", used: 1 });
    expect(await counts()).toEqual({ ...admitted, active: 0 });
    expect(await prisma.runAdmission.count({ where: { tenantId: acmeId, releasedAt: null } })).toBe(0);
  });

  it("gives a withdrawn admission's run back to the month's counts and frees its slot, once", async () => {
    await resetCounters();
    const { prisma } = database;
    await setTenantLimits(prisma, acmeId, { ...noLimits, runsPerMonth: 1, concurrentRuns: 1 });
    const refusedByPlatform = await admitRun(prisma, { tenantId: acmeId, userId: memberId });
    expect(await refusal(admitRun(prisma, { tenantId: acmeId, userId: memberId }))).toMatchObject({ limit: "tenant_runs", used: 1 });
    expect(await withdrawRun(prisma, { tenantId: globexId, admissionId: refusedByPlatform.admissionId })).toBe(false);
    expect(await withdrawRun(prisma, { tenantId: acmeId, admissionId: refusedByPlatform.admissionId })).toBe(true);
    expect(await withdrawRun(prisma, { tenantId: acmeId, admissionId: refusedByPlatform.admissionId })).toBe(false);
    expect(await releaseRun(prisma, { tenantId: acmeId, admissionId: refusedByPlatform.admissionId })).toBe(false);
    const mine = await (await callerFor("member@acme.test")).limits.mine();
    expect([mine.member.runs.used, mine.tenant.runs.used, mine.tenant.concurrentRuns.used]).toEqual([0, 0, 0]);
    // The month's one run is still there to take.
    const started = await admitRun(prisma, { tenantId: acmeId, userId: memberId });
    expect(await releaseRun(prisma, { tenantId: acmeId, admissionId: started.admissionId })).toBe(true);
    expect(await refusal(admitRun(prisma, { tenantId: acmeId, userId: adminId }))).toMatchObject({ limit: "tenant_runs", used: 1 });
  });

  it("limits turns per minute per member, and a new minute starts over", async () => {
    await resetCounters();
    const { prisma } = database;
    await setTenantLimits(prisma, acmeId, { ...noLimits, turnsPerMinutePerMember: 2 });
    await admitRun(prisma, { tenantId: acmeId, userId: memberId });
    await admitRun(prisma, { tenantId: acmeId, userId: memberId });
    const details = await refusal(admitRun(prisma, { tenantId: acmeId, userId: memberId }));
    expect(details).toMatchObject({ limit: "turns_per_minute", used: 2, max: 2 });
    expect(new Date(details.resetsAt!).getTime() % 60_000).toBe(0);
    // Per member: the admin still has turns.
    await admitRun(prisma, { tenantId: acmeId, userId: adminId });
    // The member's window moved back a minute, as if a minute had passed.
    await prisma.memberTurnWindow.update({
      where: { tenantId_userId: { tenantId: acmeId, userId: memberId } },
      data: { windowStart: new Date(Date.now() - 120_000) },
    });
    await admitRun(prisma, { tenantId: acmeId, userId: memberId });
    expect((await (await callerFor("member@acme.test")).limits.mine()).member.turnsThisMinute).toEqual({ used: 1, max: 2 });
  });

  it("admits exactly K of N parallel calls against a cap of K", async () => {
    await resetCounters();
    const { prisma } = database;
    const K = 5;
    const N = 24;
    await setTenantLimits(prisma, acmeId, { ...noLimits, concurrentRuns: 100 });
    await prisma.tenantLimits.update({ where: { tenantId: acmeId }, data: { memberRunsPerMonth: K } });
    const results = await Promise.allSettled(
      Array.from({ length: N }, () => admitRun(prisma, { tenantId: acmeId, userId: memberId })),
    );
    const admitted = results.filter((result) => result.status === "fulfilled");
    const refused = results.filter(
      (result): result is PromiseRejectedResult => result.status === "rejected" && result.reason instanceof LimitExceededError,
    );
    expect(admitted).toHaveLength(K);
    expect(refused).toHaveLength(N - K);
    expect(refused.every((result) => (result.reason as LimitExceededError).details.limit === "member_runs")).toBe(true);
    expect((await prisma.memberUsage.findFirstOrThrow({ where: { userId: memberId } })).runs).toBe(K);
    expect((await prisma.tenantConcurrency.findUniqueOrThrow({ where: { tenantId: acmeId } })).activeRuns).toBe(K);
  });

  it("admits exactly K parallel runs against a concurrent-runs limit of K across members", async () => {
    await resetCounters();
    const { prisma } = database;
    const K = 3;
    await setTenantLimits(prisma, acmeId, { ...noLimits, concurrentRuns: K });
    const results = await Promise.allSettled(
      Array.from({ length: 16 }, (_, index) =>
        admitRun(prisma, { tenantId: acmeId, userId: index % 2 ? memberId : adminId }),
      ),
    );
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(K);
    expect(results.filter((result) => result.status === "rejected" && result.reason instanceof LimitExceededError)).toHaveLength(16 - K);
  });

  it("admits and settles one tenant's turns side by side without a deadlock or a lost micro-USD", async () => {
    await resetCounters();
    const { prisma } = database;
    const userOf = (index: number) => (index % 2 ? memberId : adminId);
    const first = await Promise.all(Array.from({ length: 12 }, (_, index) => admitRun(prisma, { tenantId: acmeId, userId: userOf(index) })));
    // Each settlement takes the month's rows and the running runs in the order an admission does.
    const [settled] = await Promise.all([
      Promise.all(first.map((ticket, index) => settleAdmission(prisma, { tenantId: acmeId, id: ticket.admissionId }, 1_000 + index))),
      Promise.all(Array.from({ length: 12 }, (_, index) => admitRun(prisma, { tenantId: acmeId, userId: userOf(index) }))),
    ]);
    expect(settled.map((each) => each?.chargedMicros)).toEqual(Array.from({ length: 12 }, (_, index) => 1_000 + index));
    // Settled once: a second settlement charges nothing.
    expect(await settleAdmission(prisma, { tenantId: acmeId, id: first[0]!.admissionId }, 5_000)).toBeNull();
    const tenant = await prisma.tenantUsage.findFirstOrThrow({ where: { tenantId: acmeId } });
    expect([tenant.runs, Number(tenant.costMicros)]).toEqual([24, 12 * 1_000 + 66]);
    const members = await prisma.memberUsage.findMany({ where: { tenantId: acmeId } });
    expect(members.reduce((sum, row) => sum + Number(row.costMicros), 0)).toBe(12 * 1_000 + 66);
    expect((await prisma.tenantConcurrency.findUniqueOrThrow({ where: { tenantId: acmeId } })).activeRuns).toBe(12);
  });
});

describe("a chat turn", () => {
  const ran = (costUsd: string) => ({ status: "completed", usage: { cost_usd: costUsd } });
  const memberMicros = async () =>
    (await database.prisma.memberUsage.findFirstOrThrow({ where: { tenantId: acmeId, userId: memberId } })).costMicros;

  it("is charged the run's exact micro-USD, as a run polled through tRPC is: nothing rounded", async () => {
    await resetCounters();
    const { prisma } = database;
    await setTenantLimits(prisma, acmeId, noLimits);
    const member = { tenantId: acmeId, userId: memberId };
    // Under a cent: counted as the platform debits it (costMicrosOf), not as a whole cent.
    const first = await beginRun(prisma, member);
    await runStarted(prisma, first, 900_010);
    expect(await settleRun(prisma, { id: 900_010, ...ran("0.000400") })).toBe(1);
    expect(costMicrosOf("0.000400")).toBe(400);
    expect(await memberMicros()).toBe(400n);
    // A reply to the same run adds what the run's total grew by beyond what it cost when it began.
    const reply = await beginRun(prisma, member, { kind: "reply" });
    await runStarted(prisma, reply, 900_010, { baseCostUsd: "0.000400" });
    expect(await settleRun(prisma, { id: 900_010, ...ran("0.015131") })).toBe(1);
    expect(await memberMicros()).toBe(15_131n);
    // Released both times: nothing running.
    expect((await prisma.tenantConcurrency.findFirst({ where: { tenantId: acmeId } }))?.activeRuns ?? 0).toBe(0);
  });

  it("a reply continues its run: a message and its cost are counted, not another run", async () => {
    await resetCounters();
    const { prisma } = database;
    await setTenantLimits(prisma, acmeId, { ...noLimits, runsPerMonth: 10 });
    await prisma.tenantLimits.update({ where: { tenantId: acmeId }, data: { memberRunsPerMonth: 2 } });
    const member = { tenantId: acmeId, userId: memberId };
    const mine = async () => (await (await callerFor("member@acme.test")).limits.mine());
    const first = await beginRun(prisma, member);
    await runStarted(prisma, first, 900_020);
    await settleRun(prisma, { id: 900_020, ...ran("0.000400") });
    const reply = await beginRun(prisma, member, { kind: "reply" });
    await runStarted(prisma, reply, 900_020, { baseCostUsd: "0.000400" });
    await settleRun(prisma, { id: 900_020, ...ran("0.000873") });
    // One run, as the platform lists it; both messages in the minute; the cost of both.
    let usage = await mine();
    expect([usage.member.runs.used, usage.tenant.runs.used, usage.member.turnsThisMinute.used]).toEqual([1, 1, 2]);
    expect(usage.member.costMicros.used).toBe(873);
    // A refused reply gives back nothing it did not take.
    await runRefused(prisma, await beginRun(prisma, member, { kind: "reply" }));
    usage = await mine();
    expect([usage.member.runs.used, usage.tenant.runs.used]).toEqual([1, 1]);
    // A second run takes the cap's last; once the runs are used up, the agent stops until the month
    // resets, for a reply too (as the platform's per_end_user_run_limit), naming the run cap.
    await beginRun(prisma, member);
    expect(await refusal(beginRun(prisma, member, { kind: "reply" }))).toMatchObject({ limit: "member_runs", used: 2, max: 2 });
    expect(await refusal(beginRun(prisma, member))).toMatchObject({ limit: "member_runs", used: 2, max: 2 });
    expect((await mine()).member.runs.used).toBe(2);
  });

  it("refused by the platform gives the run back", async () => {
    await resetCounters();
    const { prisma } = database;
    await setTenantLimits(prisma, acmeId, noLimits);
    const turn = await beginRun(prisma, { tenantId: acmeId, userId: memberId });
    await runRefused(prisma, turn);
    expect((await prisma.memberUsage.findFirstOrThrow({ where: { tenantId: acmeId, userId: memberId } })).runs).toBe(0);
  });
});

describe("limits through tRPC", () => {
  it("a refusal reaches the client as TOO_MANY_REQUESTS with the details in the error data", async () => {
    await resetCounters();
    const { prisma } = database;
    await setTenantLimits(prisma, acmeId, noLimits);
    await prisma.tenantLimits.update({ where: { tenantId: acmeId }, data: { memberRunsPerMonth: 0 } });
    const caller = await callerFor("member@acme.test");
    expect((await caller.limits.mine()).member.runs).toEqual({ used: 0, max: 0 });
    // The runs router will call admitRun inside a procedure; the trpc layer maps the domain error.
    const { createCallerFactory, router, tenantProcedure } = await import("@/server/framework/api/trpc");
    const probe = router({ start: tenantProcedure.mutation(({ ctx }) => admitRun(ctx.prisma, { tenantId: ctx.tenant.id, userId: ctx.userId })) });
    const user = await prisma.user.findUniqueOrThrow({ where: { email: "member@acme.test" } });
    const probeCaller = createCallerFactory(probe)(
      createInnerContext({
        session: { expires: new Date(Date.now() + 60_000).toISOString(), user: { id: user.id, email: user.email, isOwner: false } },
        prisma,
      }),
    );
    const error = await probeCaller.start().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "TOO_MANY_REQUESTS", cause: { details: { limit: "member_runs", used: 0, max: 0 } } });
  });
});
