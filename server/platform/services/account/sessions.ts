// Browser sessions of account holders (docs/platform-api.md, "Sessions"): email and password give a
// pair of random tokens, a short-lived access token (a bearer credential wherever a key is) and a
// refresh token that trades for a new pair. Only their SHA-256 hashes are stored. A session acts as
// the person's own account or as a team the person belongs to. Revoking (all of a person's sessions,
// on a password change or by POST /account/sessions/revoke) drops them from every instance's cache
// before the response, as key revocation does.
import { randomBytes } from "node:crypto";
import type { z } from "zod";
import type { SessionPair } from "@inlay/core/schemas/sessions";
import type { TeamRole } from "@inlay/core/schemas/teams";
import { hashPassword, verifyPassword } from "@/server/shared/passwords";
import { PlatformError } from "../../errors";
import type { DataContext } from "../../infrastructure/hot-cache";
import { findAccount } from "../../repositories/accounts";
import {
  createSession,
  findSessionByRefreshHash,
  findSessionForAuth,
  replacePassword,
  replaceSessionTokens,
  revokePersonSessions,
  type NewSession,
} from "../../repositories/sessions";
import { findMembership } from "../../repositories/teams";
import { verifyAccountPassword } from "./accounts";
import type { AuthContext } from "./auth";
import type { SessionSettings } from "../../platform-config";
import { sha256Hex } from "@/server/shared/secret-box";

/** Prefixes that tell session tokens from API keys (which start with INLAY_KEY_PREFIX, sk_inlay_ by default). */
export const SESSION_ACCESS_PREFIX = "inlay_sa_";
export const SESSION_REFRESH_PREFIX = "inlay_sr_";
// 32 random bytes in base64url.
const TOKEN_BODY = /^[A-Za-z0-9_-]{43}$/;


export const SESSION_DEFAULTS: SessionSettings = {
  accessTtlMs: 15 * 60 * 1000,
  refreshTtlMs: 30 * 24 * 60 * 60 * 1000,
};

export const sessionSettings = (config: { sessions?: Partial<SessionSettings> }): SessionSettings => ({
  ...SESSION_DEFAULTS,
  ...config.sessions,
});

type Pair = z.infer<typeof SessionPair>;
type Role = z.infer<typeof TeamRole>;

const newToken = (prefix: string) => prefix + randomBytes(32).toString("base64url");
const wellFormed = (token: string, prefix: string) => token.startsWith(prefix) && TOKEN_BODY.test(token.slice(prefix.length));

export const isSessionToken = (token: string) => token.startsWith(SESSION_ACCESS_PREFIX);

/** The person behind a request: the session's, or the key's account (whose holder the key stands for). */
export const personOf = (auth: AuthContext) => auth.session?.personId ?? auth.accountId;

const badCredentials = () => new PlatformError({ type: "authentication_error", message: "incorrect email or password" });
const badRefresh = () =>
  new PlatformError({
    type: "authentication_error",
    message: "invalid, used, revoked or expired refresh token; sign in again with POST /account/sessions",
  });

/** Fresh tokens, their hashes and expiry dates. */
function mint(settings: SessionSettings, now: Date) {
  const access = newToken(SESSION_ACCESS_PREFIX);
  const refresh = newToken(SESSION_REFRESH_PREFIX);
  return {
    access,
    refresh,
    row: {
      accessHash: sha256Hex(access),
      refreshHash: sha256Hex(refresh),
      accessExpiresAt: new Date(now.getTime() + settings.accessTtlMs),
      refreshExpiresAt: new Date(now.getTime() + settings.refreshTtlMs),
    },
  };
}

function toPair(
  session: { id: number; accountId: number; refreshExpiresAt: Date },
  role: Role,
  tokens: { access: string; refresh: string; accessExpiresAt: Date },
  now: Date,
): Pair {
  return {
    session_id: session.id,
    account_id: session.accountId,
    role,
    token_type: "bearer",
    access_token: tokens.access,
    access_token_expires_at: tokens.accessExpiresAt.toISOString(),
    expires_in: Math.round((tokens.accessExpiresAt.getTime() - now.getTime()) / 1000),
    refresh_token: tokens.refresh,
    refresh_token_expires_at: session.refreshExpiresAt.toISOString(),
  };
}

/** The person's role in the account, or null when it may not act as it (not, or no longer, a member). */
async function roleIn(ctx: DataContext, personId: number, accountId: number): Promise<Role | null> {
  if (personId === accountId) return "owner";
  return ((await findMembership(ctx.prisma, accountId, personId))?.role as Role | undefined) ?? null;
}

/** POST /account/sessions: email and password (and optionally a team to act as) → a session pair. */
export async function login(
  ctx: DataContext,
  settings: SessionSettings,
  input: { email: string; password: string; orgId?: number },
  now = new Date(),
): Promise<Pair> {
  const person = await verifyAccountPassword(ctx.prisma, input.email, input.password);
  if (!person) throw badCredentials();
  const accountId = input.orgId ?? person.id;
  const role = await roleIn(ctx, person.id, accountId);
  if (!role) throw new PlatformError({ type: "not_found", message: `no team with id ${accountId}` });
  const tokens = mint(settings, now);
  const session = await createSession(ctx.prisma, { personId: person.id, accountId, ...tokens.row });
  return toPair(session, role, { ...tokens, accessExpiresAt: tokens.row.accessExpiresAt }, now);
}

/** POST /account/sessions/refresh: a new pair for a live refresh token, which is then used up. */
export async function refresh(ctx: DataContext, settings: SessionSettings, refreshToken: string, now = new Date()): Promise<Pair> {
  if (!wellFormed(refreshToken, SESSION_REFRESH_PREFIX)) throw badRefresh();
  const refreshHash = sha256Hex(refreshToken);
  const session = await findSessionByRefreshHash(ctx.prisma, refreshHash);
  if (!session || session.revokedAt || session.refreshExpiresAt <= now) throw badRefresh();
  const role = await roleIn(ctx, session.personId, session.accountId);
  if (!role) throw badRefresh();
  // The refresh token's lifetime is the session's: a refresh renews the access token only.
  const tokens = mint({ ...settings, refreshTtlMs: session.refreshExpiresAt.getTime() - now.getTime() }, now);
  const next = { accessHash: tokens.row.accessHash, refreshHash: tokens.row.refreshHash, accessExpiresAt: tokens.row.accessExpiresAt };
  if (!(await replaceSessionTokens(ctx.prisma, session.id, refreshHash, next, now))) throw badRefresh();
  // The previous access token no longer matches the row; drop it wherever it is cached.
  await ctx.cache.sessionsChanged([session.personId]);
  return toPair(session, role, { ...tokens, accessExpiresAt: next.accessExpiresAt }, now);
}

/** A bearer token that is a live access token, as the request's auth context; null otherwise. */
export async function authenticateSession(ctx: DataContext, token: string, now = new Date()): Promise<AuthContext | null> {
  if (!wellFormed(token, SESSION_ACCESS_PREFIX)) return null;
  const hash = sha256Hex(token);
  const session = await ctx.cache.sessions.get(hash, async () => {
    const row = await findSessionForAuth(ctx.prisma, hash);
    return row && !row.revokedAt && row.role ? row : null;
  });
  if (!session || session.revokedAt || !session.role || session.accessExpiresAt <= now) return null;
  return {
    accountId: session.accountId,
    keyId: 0,
    keyKind: "session",
    requireEndUserId: session.requireEndUserId,
    session: { id: session.id, personId: session.personId, role: session.role as Role },
  };
}

/** POST /account/sessions/revoke: every session of the caller's person, on every device; a key may not. */
export async function revokeAllSessions(ctx: DataContext, auth: AuthContext, now = new Date()): Promise<{ revoked: number }> {
  if (!auth.session) {
    throw new PlatformError({
      type: "permission_error",
      errorCode: "session_required",
      message: "this endpoint needs a session token (POST /account/sessions); an API key cannot end sessions",
    });
  }
  const revoked = await revokePersonSessions(ctx.prisma, auth.session.personId, now);
  await ctx.cache.sessionsChanged([auth.session.personId]);
  return { revoked };
}

/**
 * POST /account/password: the person's password changes, every session of the person ends, and a
 * new session (acting as the caller's account) answers. Keys and webhook tokens stay.
 */
export async function changePassword(
  ctx: DataContext,
  settings: SessionSettings,
  auth: AuthContext,
  input: { currentPassword: string; newPassword: string },
  now = new Date(),
): Promise<Pair> {
  const personId = personOf(auth);
  const person = await findAccount(ctx.prisma, personId);
  const incorrect = () =>
    new PlatformError({
      type: "permission_error",
      errorCode: "incorrect_password",
      message: "current_password: incorrect (accounts created without a password cannot change it here)",
      details: { fields: [{ field: "current_password", message: "incorrect" }] },
    });
  if (!person?.passwordHash || !(await verifyPassword(input.currentPassword, person.passwordHash))) throw incorrect();
  const role = auth.session?.role ?? "owner";
  const tokens = mint(settings, now);
  const next: NewSession = { personId, accountId: auth.accountId, ...tokens.row };
  const session = await replacePassword(ctx.prisma, personId, person.passwordHash, await hashPassword(input.newPassword), next, now);
  // Another change won the race: the password checked above is no longer the current one.
  if (!session) throw incorrect();
  await ctx.cache.sessionsChanged([personId]);
  return toPair(session, role, { ...tokens, accessExpiresAt: tokens.row.accessExpiresAt }, now);
}
