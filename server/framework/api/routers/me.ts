// me.get: who is signed in, the tenants they belong to and which one is active.
import { TRPCError } from "@trpc/server";
import { MeOutput } from "@inlay/core/schemas/tenancy";
import { findUserById } from "@/server/framework/tenancy/repository";
import { resolveActiveMembership } from "@/server/framework/tenancy/tenants";
import { protectedProcedure, router } from "../trpc";

export const meRouter = router({
  get: protectedProcedure.output(MeOutput).query(async ({ ctx }) => {
    const user = await findUserById(ctx.prisma, ctx.userId);
    if (!user) throw new TRPCError({ code: "UNAUTHORIZED", message: "this account no longer exists" });
    const { memberships, active } = await resolveActiveMembership(ctx.prisma, user.id, ctx.activeTenantSlug);
    return { user, memberships, activeTenant: active?.tenant ?? null, role: active?.role ?? null };
  }),
});
