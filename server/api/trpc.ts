// tRPC building blocks: the context (an inner part tests build directly with createCaller) and the
// procedures every router uses. Procedures stay thin; the work lives in server/tenancy and services.
import { initTRPC, TRPCError } from "@trpc/server";
import type { Session } from "next-auth";
import { ZodError, z } from "zod";
import type { PrismaClient } from "@/server/generated/prisma/client";
import { getSession } from "@/server/auth/session";
import { getDb } from "@/server/db";
import { listMemberships, type MembershipRecord } from "@/server/tenancy/repository";

export const ACTIVE_TENANT_COOKIE = "inlay_tenant";

export interface InnerContext {
  session: Session | null;
  prisma: PrismaClient;
  /** The tenant slug the browser last switched to; the first membership when absent. */
  activeTenantSlug?: string;
}

export const createInnerContext = (inner: InnerContext) => inner;

function readCookie(headers: Headers, name: string): string | undefined {
  const cookies = headers.get("cookie")?.split(";") ?? [];
  for (const cookie of cookies) {
    const [key, ...rest] = cookie.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return undefined;
}

export async function createContext({ headers }: { headers: Headers }): Promise<InnerContext> {
  const [session, database] = await Promise.all([getSession(), getDb()]);
  return createInnerContext({
    session,
    prisma: database.prisma,
    activeTenantSlug: readCookie(headers, ACTIVE_TENANT_COOKIE),
  });
}

const t = initTRPC.context<InnerContext>().create({
  errorFormatter({ shape, error }) {
    return {
      ...shape,
      data: {
        ...shape.data,
        zodError: error.cause instanceof ZodError ? z.flattenError(error.cause) : null,
      },
    };
  },
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure;

export const protectedProcedure = t.procedure.use(({ ctx, next }) => {
  if (!ctx.session?.user.id) throw new TRPCError({ code: "UNAUTHORIZED", message: "sign in first" });
  return next({ ctx: { ...ctx, session: ctx.session, userId: ctx.session.user.id } });
});

/** Adds ctx.tenant and ctx.role: the caller's active tenant, which they must belong to. */
export const tenantProcedure = protectedProcedure.use(async ({ ctx, next }) => {
  const memberships = await listMemberships(ctx.prisma, ctx.userId);
  const active: MembershipRecord | undefined =
    memberships.find((membership) => membership.tenant.slug === ctx.activeTenantSlug) ?? memberships[0];
  if (!active) throw new TRPCError({ code: "FORBIDDEN", message: "you do not belong to any tenant" });
  return next({ ctx: { ...ctx, tenant: active.tenant, role: active.role } });
});

export const adminProcedure = tenantProcedure.use(({ ctx, next }) => {
  if (ctx.role !== "admin") throw new TRPCError({ code: "FORBIDDEN", message: "tenant admins only" });
  return next();
});
