// tRPC `tasks` over the embedded platform: a member's schedules (create, list, pause, resume, run now,
// delete), isolation between members and tenants, the tenant's cap on active schedules, the admins'
// read-only list, and scheduled runs counted into the caps by the sweep.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import { sweepSchedules } from "@/server/framework/tenancy/schedules";
import { startFramework, type FrameworkHarness } from "../../helpers/framework";

let fw: FrameworkHarness;
beforeAll(async () => {
  fw = await startFramework();
});
afterAll(() => fw?.close());

type Caller = Awaited<ReturnType<FrameworkHarness["callerFor"]>>;

async function acmeAgentId(caller: Caller) {
  const { agents } = await caller.agents.list();
  return agents.find((agent) => agent.name === "Acme assistant")!.id;
}

const weekdays = { kind: "weekly" as const, days: [1, 2, 3, 4, 5], time: "09:00" };

async function setScheduleCap(max: number | null) {
  const admin = await fw.callerFor("admin@acme.test");
  await admin.limits.setScheduleCap({ maxActiveSchedules: max });
}

async function codeOf(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return error instanceof TRPCError ? error.code : String(error);
  }
  return "resolved";
}

describe("tasks (schedules)", () => {
  it("a member creates, lists, pauses, resumes, runs now and deletes a schedule in their time zone", async () => {
    const member = await fw.callerFor("member@acme.test");
    const agentId = await acmeAgentId(member);
    const created = await member.tasks.create({ agentId, instructions: "Summarise yesterday's tickets", when: weekdays, timezone: "Europe/Paris" });
    expect(created).toMatchObject({
      cron: "0 9 * * 1,2,3,4,5",
      timezone: "Europe/Paris",
      description: "Every weekday at 09:00",
      active: true,
      agentName: "Acme assistant",
      name: "Summarise yesterday's tickets",
    });
    expect(created.nextRunAt).not.toBeNull();

    const [listed] = await member.tasks.list();
    expect(listed).toMatchObject({ taskId: created.taskId, active: true, runs: [] });

    expect(await member.tasks.pause({ taskId: created.taskId })).toEqual({ taskId: created.taskId, active: false });
    expect((await member.tasks.list())[0]).toMatchObject({ active: false, nextRunAt: null });
    await member.tasks.resume({ taskId: created.taskId });
    expect((await member.tasks.list())[0]!.nextRunAt).not.toBeNull();

    const run = await member.tasks.runNow({ taskId: created.taskId });
    expect(run.agentId).toBe(agentId);
    const [afterRun] = await member.tasks.list();
    expect(afterRun!.runs.map((r) => r.id)).toEqual([run.id]);
    // The run is the member's like any other: runs.get knows it.
    expect((await member.runs.get({ runId: run.id })).id).toBe(run.id);

    await member.tasks.delete({ taskId: created.taskId });
    expect(await member.tasks.list()).toEqual([]);
  });

  it("accepts every-N-minutes and raw cron, and refuses bad input", async () => {
    const member = await fw.callerFor("member@acme.test");
    const agentId = await acmeAgentId(member);
    const every = await member.tasks.create({ agentId, instructions: "Ping", when: { kind: "interval", minutes: 15 }, timezone: "UTC" });
    expect(every).toMatchObject({ cron: "*/15 * * * *", description: "Every 15 minutes" });
    const raw = await member.tasks.create({ agentId, instructions: "Monthly", when: { kind: "cron", cron: "0 8 1 * *" }, timezone: "America/New_York" });
    expect(raw.description).toBe("Cron 0 8 1 * *");
    expect(await codeOf(member.tasks.create({ agentId, instructions: "x", when: { kind: "cron", cron: "* * *" }, timezone: "UTC" }))).toBe("BAD_REQUEST");
    expect(await codeOf(member.tasks.create({ agentId, instructions: "x", when: weekdays, timezone: "Mars/Olympus" }))).toBe("BAD_REQUEST");
    await member.tasks.delete({ taskId: every.taskId });
    await member.tasks.delete({ taskId: raw.taskId });
  });

  it("another member, or another tenant's admin, cannot see or touch it", async () => {
    const member = await fw.callerFor("member@acme.test");
    const created = await member.tasks.create({ agentId: await acmeAgentId(member), instructions: "Mine", when: weekdays, timezone: "UTC" });
    const taskId = created.taskId;
    for (const other of [await fw.callerFor("admin@acme.test"), await fw.callerFor("admin@globex.test")]) {
      expect((await other.tasks.list()).map((s) => s.taskId)).not.toContain(taskId);
      for (const call of [other.tasks.pause, other.tasks.resume, other.tasks.delete, other.tasks.runNow]) {
        expect(await codeOf(call({ taskId }))).toBe("NOT_FOUND");
      }
    }
    // A Globex admin cannot schedule an Acme agent either.
    const globex = await fw.callerFor("admin@globex.test");
    expect(await codeOf(globex.tasks.create({ agentId: await acmeAgentId(member), instructions: "x", when: weekdays, timezone: "UTC" }))).toBe("NOT_FOUND");
    expect((await member.tasks.list()).map((s) => s.active)).toEqual([true]);
    await member.tasks.delete({ taskId });
  });

  it("caps the tenant's active schedules on create and resume; admins list members' schedules", async () => {
    const member = await fw.callerFor("member@acme.test");
    const admin = await fw.callerFor("admin@acme.test");
    const agentId = await acmeAgentId(member);
    await setScheduleCap(2);
    const first = await member.tasks.create({ agentId, instructions: "One", when: weekdays, timezone: "UTC" });
    await admin.tasks.create({ agentId, instructions: "Two", when: weekdays, timezone: "UTC" });
    const refused = await member.tasks.create({ agentId, instructions: "Three", when: weekdays, timezone: "UTC" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TRPCError);
    expect((refused as TRPCError).code).toBe("TOO_MANY_REQUESTS");
    expect((refused as TRPCError).message).toMatch(/active schedules \(2 of 2\)/);

    // A paused schedule frees its slot; resuming needs one again.
    await member.tasks.pause({ taskId: first.taskId });
    await member.tasks.create({ agentId, instructions: "Three", when: weekdays, timezone: "UTC" });
    expect(await codeOf(member.tasks.resume({ taskId: first.taskId }))).toBe("TOO_MANY_REQUESTS");
    expect((await member.tasks.list()).find((s) => s.taskId === first.taskId)!.active).toBe(false);

    const caps = await admin.limits.get();
    expect(caps.schedules).toEqual({ maxActive: 2, active: 2 });
    const all = await admin.tasks.tenantSchedules();
    expect(all.map((s) => [s.member.email, s.name, s.active])).toEqual([
      ["member@acme.test", "One", false],
      ["admin@acme.test", "Two", true],
      ["member@acme.test", "Three", true],
    ]);
    expect(all.find((s) => s.name === "Two")!.nextRunAt).not.toBeNull();
    expect(await codeOf(member.tasks.tenantSchedules())).toBe("FORBIDDEN");
    expect((await (await fw.callerFor("admin@globex.test")).tasks.tenantSchedules()).length).toBe(0);

    await setScheduleCap(null);
    await member.tasks.resume({ taskId: first.taskId });
    for (const schedule of await admin.tasks.tenantSchedules()) {
      const owner = schedule.member.email === "admin@acme.test" ? admin : member;
      await owner.tasks.delete({ taskId: schedule.taskId });
    }
  });

  it("counts runs the platform started on a fire into the caps, and pauses schedules at a used-up cap", async () => {
    const member = await fw.callerFor("member@acme.test");
    const created = await member.tasks.create({ agentId: await acmeAgentId(member), instructions: "Fire", when: weekdays, timezone: "UTC" });
    const before = await member.limits.mine();

    // What a fire does: the platform starts a run of the task with no framework call.
    const { prisma } = fw.database;
    const user = await prisma.user.findUniqueOrThrow({ where: { email: "member@acme.test" } });
    const link = await prisma.tenantPlatformUser.findFirstOrThrow({ where: { userId: user.id } });
    const connection = await fw.connect();
    const fired = await connection.client.forUser(link.platformUserId).tasks.run(created.taskId, { stream: false });

    // Cap the member at what they will have used once the fired run counts.
    const admin = await fw.callerFor("admin@acme.test");
    const membership = (await admin.limits.get()).members.find((m) => m.email === "member@acme.test")!;
    await admin.limits.setMemberCap({ membershipId: membership.membershipId, cap: { runsPerMonth: before.member.runs.used + 1, costPerMonthCents: null } });

    expect(await sweepSchedules(prisma, connection)).toMatchObject({ adopted: 1 });
    expect(await sweepSchedules(prisma, connection)).toMatchObject({ adopted: 0 });
    const after = await member.limits.mine();
    expect(after.member.runs.used).toBe(before.member.runs.used + 1);
    expect(after.tenant.runs.used).toBe(before.tenant.runs.used + 1);
    expect((await member.runs.get({ runId: fired.id })).id).toBe(fired.id);

    const [paused] = await member.tasks.list();
    expect(paused).toMatchObject({ active: false, pausedReason: "caps", nextRunAt: null });
    expect(paused!.runs.map((r) => r.id)).toContain(fired.id);
    const refused = await member.tasks.resume({ taskId: created.taskId }).catch((e: unknown) => e as TRPCError);
    expect(refused).toMatchObject({ code: "TOO_MANY_REQUESTS" });
    expect((refused as TRPCError).message).toMatch(/monthly run cap/);

    await admin.limits.setMemberCap({ membershipId: membership.membershipId, cap: null });
    await member.tasks.resume({ taskId: created.taskId });
    await member.tasks.delete({ taskId: created.taskId });
  });
});
