// Who is calling: a bearer key resolved to its account. The key comes from this process's cache
// (infrastructure/hot-cache.ts) when it holds it: revoking, rotating or deleting a key, or deleting its
// account, drops it there on every instance, and the expiry is checked on every request.
import type { DataContext } from "../../infrastructure/hot-cache";
import { findKeyForAuth, touchKey } from "../../repositories/accounts";
import { hashApiKey, isWellFormedApiKey } from "./api-keys";

export interface AuthContext {
  /** The account the request acts as. */
  accountId: number;
  /** 0 for a session. */
  keyId: number;
  /** "default" or "named" for a key, "session" for a browser session (services/account/sessions.ts). */
  keyKind: string;
  requireEndUserId: boolean;
  /** Set for a session: who signed in (the account whose password it was) and their role in accountId. */
  session?: { id: number; personId: number; role: "owner" | "admin" | "member" };
}

/** The account acting by itself, through no key: a trigger's fire starting a task's run. */
export const accountActing = (accountId: number): AuthContext => ({ accountId, keyId: 0, keyKind: "account", requireEndUserId: false });

// last_used_at is advisory; writing it at most once a minute per key (and process) keeps reads read-only.
const TOUCH_INTERVAL_MS = 60_000;

export async function authenticateApiKey(
  ctx: DataContext,
  secret: string,
  prefix: string,
  now = new Date(),
): Promise<AuthContext | null> {
  if (!isWellFormedApiKey(secret, prefix)) return null;
  const hash = hashApiKey(secret);
  // Revoked keys are not kept: a revoked row never comes back to life, and this keeps the cache to live keys.
  const key = await ctx.cache.keys.get(hash, async () => {
    const row = await findKeyForAuth(ctx.prisma, hash);
    return row && !row.revokedAt ? row : null;
  });
  if (!key || key.revokedAt || (key.expiresAt && key.expiresAt <= now)) return null;
  if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
    // Set on the cached row first so concurrent requests do not all write it.
    key.lastUsedAt = now;
    await touchKey(ctx.prisma, key.id, now);
  }
  return {
    accountId: key.accountId,
    keyId: key.id,
    keyKind: key.kind,
    requireEndUserId: key.requireEndUserId,
  };
}
