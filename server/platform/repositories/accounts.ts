// Accounts and their API keys. The only module that writes platform_accounts (but for the settings
// columns, which repositories/settings.ts owns) and platform_api_keys; account-export.ts reads them.
import { Prisma, type PrismaClient } from "@/server/generated/prisma/client";
import type { PlatformAccount, PlatformApiKey } from "@/server/generated/prisma/client";
import { queryRows } from "./direct";

export type AccountRow = PlatformAccount;
export type ApiKeyRow = PlatformApiKey;
type Db = Pick<PrismaClient, "platformAccount" | "platformApiKey">;

export interface NewKey {
  kind: "default" | "named";
  name: string;
  hash: string;
  hint: string;
  expiresAt?: Date | null;
}

export async function createAccountWithKey(
  prisma: PrismaClient,
  account: {
    email: string;
    firstName: string;
    passwordHash: string | null;
    product: string | null;
    signupSource: "api" | "platform";
    requireEndUserId: boolean;
  },
  key: NewKey,
  /** The opening credit, written with the account as its first ledger entry. */
  credit?: { amountMicros: bigint; description: string },
): Promise<{ account: AccountRow; key: ApiKeyRow }> {
  return prisma.$transaction(async (tx) => {
    const created = await tx.platformAccount.create({ data: { ...account, balanceMicros: credit?.amountMicros ?? 0n } });
    const createdKey = await tx.platformApiKey.create({ data: { ...key, accountId: created.id } });
    if (credit && credit.amountMicros > 0n) {
      await tx.platformBalanceTransaction.create({
        data: {
          accountId: created.id,
          type: "topup",
          amountMicros: credit.amountMicros,
          balanceAfterMicros: credit.amountMicros,
          description: credit.description,
        },
      });
    }
    return { account: created, key: createdKey };
  });
}

export const findAccountByEmail = (prisma: Db, email: string) =>
  prisma.platformAccount.findUnique({ where: { email } });

export const findAccount = (prisma: Db, accountId: number) =>
  prisma.platformAccount.findUnique({ where: { id: accountId } });

export async function touchKey(prisma: Db, keyId: number, at: Date): Promise<void> {
  await prisma.platformApiKey.update({ where: { id: keyId }, data: { lastUsedAt: at } });
}

/** A key that still authenticates: not revoked and not past its expiry. */
const liveAt = (now: Date) => ({ revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] });

export const findLiveDefaultKey = (prisma: Db, accountId: number, now: Date) =>
  prisma.platformApiKey.findFirst({ where: { accountId, kind: "default", ...liveAt(now) }, orderBy: { id: "desc" } });

/** The hashes of the keys a revocation touched (for the caches that hold keys by hash). */
const revokedHashes = (rows: { hash: string }[]) => rows.map((row) => row.hash);

/**
 * Revokes every default key of the account and creates a new one, as one step. The account row is
 * locked first so two rotations at once run one after the other and leave exactly one default key.
 */
export async function replaceDefaultKey(
  prisma: PrismaClient,
  accountId: number,
  key: Omit<NewKey, "kind">,
  now: Date,
): Promise<{ row: ApiKeyRow; revoked: string[] }> {
  return prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM platform_accounts WHERE id = ${accountId} FOR NO KEY UPDATE`;
    const revoked = await tx.platformApiKey.updateManyAndReturn({
      where: { accountId, kind: "default", revokedAt: null },
      data: { revokedAt: now },
      select: { hash: true },
    });
    const row = await tx.platformApiKey.create({ data: { ...key, kind: "default", accountId } });
    return { row, revoked: revokedHashes(revoked) };
  });
}

/** Revokes the account's live default key; the revoked keys' hashes, none when it had none. */
export async function revokeDefaultKey(prisma: Db, accountId: number, now: Date): Promise<string[]> {
  return revokedHashes(
    await prisma.platformApiKey.updateManyAndReturn({
      where: { accountId, kind: "default", ...liveAt(now) },
      data: { revokedAt: now },
      select: { hash: true },
    }),
  );
}

export const createKey = (prisma: Db, accountId: number, key: NewKey) =>
  prisma.platformApiKey.create({ data: { ...key, accountId } });

/** The account's named keys that are not revoked (expired ones included), by id, limit + 1 rows. */
export const listNamedKeys = (prisma: Db, accountId: number, page: { limit: number; startingAfter?: number }) =>
  prisma.platformApiKey.findMany({
    where: {
      accountId,
      kind: "named",
      revokedAt: null,
      ...(page.startingAfter !== undefined ? { id: { gt: page.startingAfter } } : {}),
    },
    orderBy: { id: "asc" },
    take: page.limit + 1,
  });

/** One of the account's named keys that is not revoked; null for a foreign, missing or revoked id. */
export const findNamedKey = (prisma: Db, accountId: number, keyId: number) =>
  prisma.platformApiKey.findFirst({ where: { id: keyId, accountId, kind: "named", revokedAt: null } });

/** Revokes one named key; its hash, or null when it is foreign, missing or already revoked. */
export async function revokeNamedKey(prisma: Db, accountId: number, keyId: number, now: Date): Promise<string | null> {
  const [row] = await prisma.platformApiKey.updateManyAndReturn({
    where: { id: keyId, accountId, kind: "named", revokedAt: null },
    data: { revokedAt: now },
    select: { hash: true },
  });
  return row?.hash ?? null;
}

/**
 * Revokes a named key and creates its successor, as one step; null when the old key was revoked
 * in the meantime (a concurrent rotation or revocation won).
 */
export async function replaceNamedKey(
  prisma: PrismaClient,
  old: ApiKeyRow,
  key: Omit<NewKey, "kind">,
  now: Date,
): Promise<ApiKeyRow | null> {
  return prisma.$transaction(async (tx) => {
    const { count } = await tx.platformApiKey.updateMany({
      where: { id: old.id, accountId: old.accountId, kind: "named", revokedAt: null },
      data: { revokedAt: now },
    });
    if (count === 0) return null;
    return tx.platformApiKey.create({ data: { ...key, kind: "named", accountId: old.accountId } });
  });
}

/** Deletes the account; every row it owns goes with it (ON DELETE CASCADE). False if it was gone. */
export async function deleteAccount(prisma: Db, accountId: number): Promise<boolean> {
  const { count } = await prisma.platformAccount.deleteMany({ where: { id: accountId } });
  return count > 0;
}

export interface KeyForAuth {
  id: number;
  accountId: number;
  kind: string;
  revokedAt: Date | null;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  requireEndUserId: boolean;
}

/** The key and the account fields authentication needs, in one round trip (it runs on every request). */
export async function findKeyForAuth(prisma: PrismaClient, hash: string): Promise<KeyForAuth | null> {
  const rows = await queryRows<KeyForAuth>(prisma, Prisma.sql`
    SELECT k.id, k.account_id AS "accountId", k.kind, k.revoked_at AS "revokedAt", k.expires_at AS "expiresAt",
           k.last_used_at AS "lastUsedAt", a.require_end_user_id AS "requireEndUserId"
    FROM platform_api_keys k JOIN platform_accounts a ON a.id = k.account_id
    WHERE k.hash = ${hash}`);
  return rows[0] ?? null;
}
