// tasks: a member's schedules (a platform task on their copy of an agent, with a cron trigger in their
// time zone), and, for tenant admins, every member's schedules read-only. Creating and resuming take
// one of the tenant's active-schedule slots and need room in the month's limits (TOO_MANY_REQUESTS
// with data.limitExceeded otherwise); "run now" goes through the same admission as runs.create.
import { z } from "zod";
import { ConsoleRun } from "@inlay/core/schemas/console";
import { ScheduleDeleted, ScheduleState, ScheduleView, TenantScheduleView, scheduleCreateInput, scheduleIdInput } from "@inlay/core/schemas/schedules";
import {
  createSchedule,
  deleteSchedule,
  listSchedules,
  listTenantMemberSchedules,
  pauseSchedule,
  resumeSchedule,
  runScheduleNow,
} from "@/server/framework/tenancy/schedules";
import { adminProcedure, router, tenantProcedure } from "../trpc";
import { callerOf } from "./agents";

export const tasksRouter = router({
  /** The caller's schedules with their trigger's next fire and recent runs. */
  list: tenantProcedure.output(z.array(ScheduleView)).query(async ({ ctx }) =>
    listSchedules(ctx.prisma, await ctx.platform(), await ctx.connection(), callerOf(ctx)),
  ),

  create: tenantProcedure
    .input(scheduleCreateInput)
    .output(ScheduleView)
    .mutation(async ({ ctx, input }) => createSchedule(ctx.prisma, await ctx.platform(), callerOf(ctx), input)),

  pause: tenantProcedure
    .input(scheduleIdInput)
    .output(ScheduleState)
    .mutation(async ({ ctx, input }) => pauseSchedule(ctx.prisma, await ctx.platform(), callerOf(ctx), input.taskId)),

  resume: tenantProcedure
    .input(scheduleIdInput)
    .output(ScheduleState)
    .mutation(async ({ ctx, input }) => resumeSchedule(ctx.prisma, await ctx.platform(), callerOf(ctx), input.taskId)),

  delete: tenantProcedure
    .input(scheduleIdInput)
    .output(ScheduleDeleted)
    .mutation(async ({ ctx, input }) => deleteSchedule(ctx.prisma, await ctx.platform(), callerOf(ctx), input.taskId)),

  runNow: tenantProcedure
    .input(scheduleIdInput)
    .output(ConsoleRun)
    .mutation(async ({ ctx, input }) => runScheduleNow(ctx.prisma, await ctx.platform(), callerOf(ctx), input.taskId)),

  /** Tenant admins: every member's schedules, read-only. */
  tenantSchedules: adminProcedure.output(z.array(TenantScheduleView)).query(async ({ ctx }) =>
    listTenantMemberSchedules(ctx.prisma, await ctx.connection(), ctx.tenant.id),
  ),
});
