// tenants: the caller's tenants and switching between them; for the installation owner, every tenant,
// creating one and setting its limits.
import { z } from "zod";
import {
  MembershipRef,
  OwnerTenantRow,
  TenantCreated,
  TenantLimitsSet,
  TenantMemberships,
  createTenantInput,
  tenantLimitsSchema,
} from "@inlay/core/schemas/tenancy";
import { createInvite } from "@/server/framework/tenancy/invites";
import { setTenantLimits } from "@/server/framework/tenancy/limits";
import {
  createTenantForOwner,
  findSwitchTarget,
  listTenantsForOwner,
  resolveActiveMembership,
} from "@/server/framework/tenancy/tenants";
import { ACTIVE_TENANT_COOKIE, ownerProcedure, protectedProcedure, router } from "../trpc";
import { pushPlatformBackstops } from "@/server/framework/tenancy/backstops";

const YEAR_SECONDS = 365 * 24 * 60 * 60;

export const tenantsRouter = router({
  list: protectedProcedure.output(TenantMemberships).query(async ({ ctx }) => {
    const { memberships, active } = await resolveActiveMembership(ctx.prisma, ctx.userId, ctx.activeTenantSlug);
    return { memberships, activeTenant: active?.tenant ?? null };
  }),

  /** Makes `slug` the active tenant (a cookie, re-checked against memberships on every call). */
  switch: protectedProcedure.input(z.object({ slug: z.string().min(1).max(100) })).output(MembershipRef).mutation(async ({ ctx, input }) => {
    const membership = await findSwitchTarget(ctx.prisma, ctx.userId, input.slug);
    const secure = ctx.baseUrl?.startsWith("https://") ? "; Secure" : "";
    ctx.responseHeaders?.append(
      "Set-Cookie",
      `${ACTIVE_TENANT_COOKIE}=${encodeURIComponent(membership.tenant.slug)}; Path=/; Max-Age=${YEAR_SECONDS}; SameSite=Lax; HttpOnly${secure}`,
    );
    return membership;
  }),

  listAll: ownerProcedure.output(z.array(OwnerTenantRow)).query(({ ctx }) => listTenantsForOwner(ctx.prisma)),

  /** Creates a tenant; with adminEmail, invites its first admin. */
  create: ownerProcedure.input(createTenantInput).output(TenantCreated).mutation(async ({ ctx, input }) => {
    const tenant = await createTenantForOwner(ctx.prisma, input.name);
    // A tenant without limits lifts the platform's backstops (backstops.ts): they must follow at once.
    await pushPlatformBackstops(ctx.prisma, ctx.connection);
    const invite = input.adminEmail
      ? await createInvite(ctx.prisma, {
          tenant,
          invitedById: ctx.userId,
          email: input.adminEmail,
          role: "admin",
          baseUrl: ctx.baseUrl ?? "http://localhost:3000",
        })
      : null;
    return { tenant, inviteLink: invite?.link ?? null };
  }),

  setLimits: ownerProcedure
    .input(z.object({ tenantId: z.uuid(), limits: tenantLimitsSchema }))
    .output(TenantLimitsSet)
    .mutation(async ({ ctx, input }) => {
      await setTenantLimits(ctx.prisma, input.tenantId, input.limits);
      await pushPlatformBackstops(ctx.prisma, ctx.connection);
      return { tenantId: input.tenantId, limits: input.limits };
    }),
});
