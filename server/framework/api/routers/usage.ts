// usage: a member's own meter; for tenant admins, every member's usage and a timeseries, from the
// framework's counters and the platform's reports about this tenant's end-users only.
import { TenantUsage, usageRangeInput } from "@inlay/core/schemas/console";
import { MyUsage } from "@inlay/core/schemas/tenancy";
import { getMyUsage } from "@/server/framework/tenancy/limits";
import { getTenantUsage } from "@/server/framework/tenancy/usage";
import { adminProcedure, router, tenantProcedure } from "../trpc";

export const usageRouter = router({
  mine: tenantProcedure.output(MyUsage).query(({ ctx }) => getMyUsage(ctx.prisma, ctx.tenant.id, ctx.userId)),
  tenant: adminProcedure
    .input(usageRangeInput)
    .output(TenantUsage)
    .query(async ({ ctx, input }) => getTenantUsage(ctx.prisma, await ctx.connection(), ctx.tenant.id, { days: input.days })),
});
