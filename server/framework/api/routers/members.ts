// members: a tenant admin lists the tenant's members, changes their role, removes them.
import { z } from "zod";
import { IdOutput, MemberRow, tenantRoleSchema } from "@inlay/core/schemas/tenancy";
import { changeMemberRole, listMembers, removeMember } from "@/server/framework/tenancy/members";
import { adminProcedure, router } from "../trpc";

export const membersRouter = router({
  list: adminProcedure.output(z.array(MemberRow)).query(({ ctx }) => listMembers(ctx.prisma, ctx.tenant.id)),

  changeRole: adminProcedure
    .input(z.object({ id: z.uuid(), role: tenantRoleSchema }))
    .output(MemberRow)
    .mutation(({ ctx, input }) => changeMemberRole(ctx.prisma, ctx.tenant.id, input.id, input.role)),

  remove: adminProcedure.input(z.object({ id: z.uuid() })).output(IdOutput).mutation(async ({ ctx, input }) => {
    await removeMember(ctx.prisma, ctx.tenant.id, input.id);
    return { id: input.id };
  }),
});
