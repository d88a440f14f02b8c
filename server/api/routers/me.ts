// me.get: who is signed in, the tenants they belong to and which one is active.
import { TRPCError } from "@trpc/server";
import { findUserById, listMemberships } from "@/server/tenancy/repository";
import { protectedProcedure, router } from "../trpc";

export const meRouter = router({
  get: protectedProcedure.query(async ({ ctx }) => {
    const user = await findUserById(ctx.prisma, ctx.userId);
    if (!user) throw new TRPCError({ code: "UNAUTHORIZED", message: "this account no longer exists" });
    const memberships = await listMemberships(ctx.prisma, user.id);
    const active =
      memberships.find((membership) => membership.tenant.slug === ctx.activeTenantSlug) ?? memberships[0] ?? null;
    return { user, memberships, activeTenant: active?.tenant ?? null };
  }),
});
