// Who is calling: a bearer key resolved to its account. A revoked or expired key is refused at once,
// since every request reads the key row (no cache that another instance could hold stale).
import type { PrismaClient } from "@/server/generated/prisma/client";
import { findKeyForAuth, touchKey } from "../repositories/accounts";
import { hashApiKey, isWellFormedApiKey } from "./api-keys";

export interface AuthContext {
  accountId: number;
  keyId: number;
  keyKind: string;
  requireEndUserId: boolean;
}

// last_used_at is advisory; writing it at most once a minute per key keeps reads read-only.
const TOUCH_INTERVAL_MS = 60_000;

export async function authenticateApiKey(
  prisma: PrismaClient,
  secret: string,
  prefix: string,
  now = new Date(),
): Promise<AuthContext | null> {
  if (!isWellFormedApiKey(secret, prefix)) return null;
  const key = await findKeyForAuth(prisma, hashApiKey(secret));
  if (!key || key.revokedAt || (key.expiresAt && key.expiresAt <= now)) return null;
  if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > TOUCH_INTERVAL_MS) {
    await touchKey(prisma, key.id, now);
  }
  return {
    accountId: key.accountId,
    keyId: key.id,
    keyKind: key.kind,
    requireEndUserId: key.requireEndUserId,
  };
}
