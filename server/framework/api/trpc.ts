// tRPC building blocks: the context (an inner part tests build directly with createCaller) and the
// procedures every router uses. Procedures stay thin; the work lives in server/framework/tenancy and services.
import { initTRPC, TRPCError } from "@trpc/server";
import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import type { Session } from "next-auth";
import { ZodError, z } from "zod";
import type { Db } from "@/server/shared/db";
import { getSession } from "@/server/framework/auth/session";
import { getDb } from "@/server/shared/db";
import { publicOrigin } from "@/server/shared/public-origin";
import { PlatformApiError } from "@inlay/core/platform-client";
import { DATABASE_AWAY_MESSAGE, isAppDatabaseAway, LimitExceededError, TenancyError } from "@/server/framework/tenancy/errors";
import { getPlatformConnection } from "@/server/framework/platform";
import { trpcDuration } from "@/server/framework/observability/metrics";
import type { PlatformConnection } from "@/server/framework/tenancy/platform-connection";
import { lazyPlatformClient } from "@/server/framework/tenancy/platform-users";
import { isOwner, resolveActiveMembership } from "@/server/framework/tenancy/tenants";

// The active tenant lives in this cookie rather than in the JWT: switching needs no token refresh,
// and the cookie is only a preference, checked against the memberships in the database on every
// call (a slug the user does not belong to is ignored).
export const ACTIVE_TENANT_COOKIE = "inlay_tenant";

export interface InnerContext {
  session: Session | null;
  prisma: Db;
  /** The tenant slug the browser last switched to; the first membership when absent. */
  activeTenantSlug?: string;
  /** Response headers (Set-Cookie of tenants.switch); absent where no response is sent. */
  responseHeaders?: Headers;
  /** Where the app is reached, for links in mail (invites). */
  baseUrl?: string;
  /**
   * How to reach the platform: createContext passes the environment's (embedded or remote); tests
   * pass their own. Absent, procedures that need the platform fail and backstop pushes are skipped.
   */
  platformConnection?: () => Promise<PlatformConnection>;
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


export async function createContext({
  headers,
  responseHeaders,
}: {
  headers: Headers;
  responseHeaders?: Headers;
}): Promise<InnerContext> {
  const [session, database] = await Promise.all([getSession(), getDb()]);
  return createInnerContext({
    session,
    prisma: database.prisma,
    activeTenantSlug: readCookie(headers, ACTIVE_TENANT_COOKIE),
    responseHeaders,
    baseUrl: publicOrigin(),
    platformConnection: () => getPlatformConnection(database.prisma),
  });
}

const t = initTRPC.context<InnerContext>().create({
  errorFormatter({ shape, error }) {
    return {
      ...shape,
      data: {
        ...shape.data,
        zodError: error.cause instanceof ZodError ? z.flattenError(error.cause) : null,
        // Which form field a domain error is about, so forms can show it next to the field.
        field: error.cause instanceof TenancyError ? (error.cause.field ?? null) : null,
        // A refused admission: which limit, how much is used, the ceiling and when it resets.
        limitExceeded: error.cause instanceof LimitExceededError ? error.cause.details : null,
      },
    };
  },
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** The tRPC code for a platform answer the framework passes on (its message is the platform's). */
function platformErrorCode(error: PlatformApiError): TRPCError["code"] {
  switch (error.status) {
    case 400:
    case 422:
      return "BAD_REQUEST";
    case 402:
      return "PAYMENT_REQUIRED";
    case 403:
      return "FORBIDDEN";
    case 404:
      return "NOT_FOUND";
    case 409:
      return "CONFLICT";
    case 429:
      return "TOO_MANY_REQUESTS";
    default:
      return "INTERNAL_SERVER_ERROR";
  }
}

/**
 * Services throw TenancyError (no tRPC types in domain code), and platform calls PlatformApiError;
 * here they become TRPCErrors. A platform 404 stays NOT_FOUND: another member's or tenant's run,
 * agent or memory looks exactly like one that does not exist.
 */
const domainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof TenancyError) {
    const cause = result.error.cause;
    throw new TRPCError({ code: cause.code, message: cause.message, cause });
  }
  if (!result.ok && result.error.cause instanceof PlatformApiError) {
    const cause = result.error.cause;
    const code = platformErrorCode(cause);
    // Server faults keep their details in the log; the caller gets the request id to quote.
    const message = code === "INTERNAL_SERVER_ERROR" ? `the platform failed (request ${cause.requestId ?? "unknown"})` : cause.message;
    throw new TRPCError({ code, message, cause });
  }
  if (!result.ok && isAppDatabaseAway(result.error.cause)) {
    throw new TRPCError({ code: "SERVICE_UNAVAILABLE", message: DATABASE_AWAY_MESSAGE, cause: result.error.cause });
  }
  return result;
});

/** Each procedure's duration by path, type and the HTTP status its answer (or error) maps to. */
const timed = t.middleware(async ({ path, type, next }) => {
  const end = trpcDuration.startTimer({ procedure: path, type });
  const result = await next();
  end({ status: String(result.ok ? 200 : getHTTPStatusCodeFromError(result.error)) });
  return result;
});

export const publicProcedure = t.procedure.use(timed).use(domainErrors);

/** Adds ctx.userId and ctx.connection() (the platform connection, made on first use). */
export const protectedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.session?.user.id) throw new TRPCError({ code: "UNAUTHORIZED", message: "sign in first" });
  const connection =
    ctx.platformConnection ?? (() => Promise.reject(new Error("no platform connection in this context (createInnerContext without platformConnection)")));
  return next({ ctx: { ...ctx, session: ctx.session, userId: ctx.session.user.id, connection } });
});

/**
 * Adds ctx.tenant and ctx.role: the caller's active tenant, which they must belong to. Memberships are
 * read from the database on every call, so removing a member or changing a role takes effect at once.
 * Also ctx.platform(): the platform client bound with
 * forUser to the caller's end-user in this tenant, made (and the mapping created) only when a
 * procedure first asks for it. The browser never names a user_id.
 */
export const tenantProcedure = protectedProcedure.use(async ({ ctx, next }) => {
  const { active } = await resolveActiveMembership(ctx.prisma, ctx.userId, ctx.activeTenantSlug);
  if (!active) throw new TRPCError({ code: "FORBIDDEN", message: "you do not belong to any tenant" });
  return next({
    ctx: {
      ...ctx,
      tenant: active.tenant,
      role: active.role,
      platform: lazyPlatformClient(ctx.prisma, ctx.connection, active.tenant, ctx.userId),
    },
  });
});

export const adminProcedure = tenantProcedure.use(({ ctx, next }) => {
  if (ctx.role !== "admin") throw new TRPCError({ code: "FORBIDDEN", message: "tenant admins only" });
  return next();
});

/** The vendor owner of the installation; the flag is read from the database, not the session. */
export const ownerProcedure = protectedProcedure.use(async ({ ctx, next }) => {
  if (!(await isOwner(ctx.prisma, ctx.userId))) {
    throw new TRPCError({ code: "FORBIDDEN", message: "the installation owner only" });
  }
  return next();
});
