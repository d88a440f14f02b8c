// limits: a member's own usage against their caps; tenant admins read the tenant's limits and set the
// default member cap and per-member overrides (never above the tenant's limits, which the owner sets
// through tenants.setLimits).
import { z } from "zod";
import { MemberCapSet, MemberCapView, MyUsage, ScheduleCapView, TenantCaps, memberCapSchema, scheduleCapSchema } from "@inlay/core/schemas/tenancy";
import { getMyUsage, getTenantCaps, setDefaultMemberCap, setMemberCap, setScheduleCap } from "@/server/framework/tenancy/limits";
import { adminProcedure, router, tenantProcedure } from "../trpc";

export const limitsRouter = router({
  mine: tenantProcedure.output(MyUsage).query(({ ctx }) => getMyUsage(ctx.prisma, ctx.tenant.id, ctx.userId)),

  get: adminProcedure.output(TenantCaps).query(({ ctx }) => getTenantCaps(ctx.prisma, ctx.tenant.id)),

  setDefaultCap: adminProcedure.input(memberCapSchema).output(MemberCapView).mutation(async ({ ctx, input }) => {
    await setDefaultMemberCap(ctx.prisma, ctx.tenant.id, input);
    return input;
  }),

  /** The cap on the tenant's active schedules (maxActiveSchedules null: no cap). */
  setScheduleCap: adminProcedure.input(scheduleCapSchema).output(ScheduleCapView).mutation(async ({ ctx, input }) => {
    await setScheduleCap(ctx.prisma, ctx.tenant.id, input.maxActiveSchedules);
    return input;
  }),

  /** cap null: the member follows the tenant default again. */
  setMemberCap: adminProcedure
    .input(z.object({ membershipId: z.uuid(), cap: memberCapSchema.nullable() }))
    .output(MemberCapSet)
    .mutation(async ({ ctx, input }) => {
      await setMemberCap(ctx.prisma, ctx.tenant.id, input.membershipId, input.cap);
      return input;
    }),
});
