// What the framework's own route handlers (app/api/embed/*) share: the signed-in member of a tenant,
// and one error that knows its response. tRPC and the chat bridge map errors their own way.
import type { z } from "zod";
import { prettifyError } from "zod";
import { getSession } from "@/server/framework/auth/session";
import { getDb } from "@/server/shared/db";
import { DATABASE_RETRY_AFTER_SECONDS } from "@/server/shared/db-errors";
import type { Db } from "@/server/shared/db";
import { DATABASE_AWAY_MESSAGE, isAppDatabaseAway, TenancyError, type TenancyErrorCode } from "@/server/framework/tenancy/errors";
import { resolveActiveMembership } from "@/server/framework/tenancy/tenants";

const noStore = { "cache-control": "no-store" };
const TENANT_COOKIE = /(?:^|;\s*)inlay_tenant=([^;]+)/;

export class RouteError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Fields beside `message` in the error body (a code, the failing field). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }

  toResponse(headers: Record<string, string> = {}): Response {
    return Response.json({ error: { message: this.message, ...this.extra } }, { status: this.status, headers: { ...noStore, ...headers } });
  }
}

/** A JSON answer that no cache keeps. */
export const routeJson = (body: unknown) => Response.json(body, { headers: noStore });

/** The framework's domain errors as these routes answer them (a refused input is 422, with its field). */
const tenancyStatus: Record<TenancyErrorCode, number> = { BAD_REQUEST: 422, NOT_FOUND: 404, FORBIDDEN: 403, CONFLICT: 409, TOO_MANY_REQUESTS: 429 };

/**
 * Runs a handler; a RouteError or a TenancyError becomes its response, the database away 503 with
 * Retry-After, anything else is the framework's 500.
 */
export async function handleRoute(handler: () => Promise<Response>): Promise<Response> {
  try {
    return await handler();
  } catch (error) {
    if (error instanceof RouteError) return error.toResponse();
    if (error instanceof TenancyError) return new RouteError(tenancyStatus[error.code], error.message, error.field ? { field: error.field } : {}).toResponse();
    if (isAppDatabaseAway(error)) {
      return new RouteError(503, DATABASE_AWAY_MESSAGE).toResponse({ "retry-after": String(DATABASE_RETRY_AFTER_SECONDS) });
    }
    throw error;
  }
}

export interface RouteMember {
  prisma: Db;
  userId: string;
  tenant: { id: string; slug: string; name: string };
  role: string;
}

/**
 * The signed-in person as a member of `tenant` (a slug), else of their active tenant (the
 * inlay_tenant cookie, else the first): 401 signed out, 404 for a tenant they are not in, 403 when
 * `admin` is asked and they are not one.
 */
export async function requireMember(
  request: Request,
  options: { tenant?: string; admin?: boolean; /** From requireSignedIn() already: not read again. */ userId?: string } = {},
): Promise<RouteMember> {
  const userId = options.userId ?? (await requireSignedIn());
  const { prisma } = await getDb();
  const cookie = request.headers.get("cookie")?.match(TENANT_COOKIE)?.[1];
  const { memberships, active } = await resolveActiveMembership(prisma, userId, options.tenant ?? (cookie && decodeURIComponent(cookie)));
  const membership = options.tenant ? memberships.find((each) => each.tenant.slug === options.tenant) : active;
  if (!membership) throw new RouteError(404, "no such tenant");
  if (options.admin && membership.role !== "admin") throw new RouteError(403, "tenant admins only");
  return { prisma, userId, tenant: membership.tenant, role: membership.role };
}

/** The signed-in person's id; 401 signed out (a session cookie is a JWT: no database read). */
export async function requireSignedIn(): Promise<string> {
  const session = await getSession();
  if (!session?.user.id) throw new RouteError(401, "sign in first");
  return session.user.id;
}

/** The request's JSON body parsed by `schema`; 422 naming what is wrong. */
export async function parseBody<T extends z.ZodType>(request: Request, schema: T): Promise<z.infer<T>> {
  const parsed = schema.safeParse(await request.json().catch(() => undefined));
  if (!parsed.success) throw new RouteError(422, prettifyError(parsed.error));
  return parsed.data;
}
