// Model connections, their provider-side accounts and authorizations. Every query names the account.
import { Prisma, type PrismaClient } from "@/server/generated/prisma/client";
import { queryRows } from "./direct";

export type ConnectionRow = NonNullable<Awaited<ReturnType<typeof findConnection>>>;
export type ProviderAccountRow = ConnectionRow["accounts"][number];
export type AuthorizationRow = NonNullable<Awaited<ReturnType<typeof findAuthorization>>>;

const withAccounts = { accounts: { orderBy: { id: "asc" as const } } };

export const listConnections = (prisma: PrismaClient, accountId: number) =>
  prisma.platformModelConnection.findMany({ where: { accountId }, include: withAccounts, orderBy: { id: "asc" } });

export const findConnection = (prisma: PrismaClient, accountId: number, provider: string) =>
  prisma.platformModelConnection.findUnique({ where: { accountId_provider: { accountId, provider } }, include: withAccounts });

/** The connections whose provider is one of `providers`, with their accounts. */
export const findConnectionsFor = (prisma: PrismaClient, accountId: number, providers: string[]) =>
  prisma.platformModelConnection.findMany({ where: { accountId, provider: { in: providers } }, include: withAccounts });

export const countConnectionsFor = (prisma: PrismaClient, accountId: number, providers: string[]) =>
  prisma.platformModelConnection.count({ where: { accountId, provider: { in: providers } } });

/** The account's preferred connection's provider and default model (a run start without a model reads it). */
export const findPreferredConnection = async (prisma: PrismaClient, accountId: number) =>
  // Read by every run start that names no model: one of the hot statements (direct.ts).
  (
    await queryRows<{ provider: string; defaultModel: string | null }>(
      prisma,
      Prisma.sql`SELECT provider, default_model AS "defaultModel" FROM platform_model_connections
        WHERE account_id = ${accountId} AND preferred_default LIMIT 1`,
    )
  )[0] ?? null;

export interface NewProviderAccount {
  method: string;
  label: string | null;
  secretSealed: string;
  baseUrl: string | null;
  expiresAt: Date | null;
}

/**
 * Adds a provider-side account to the account's connection (created when missing); with `replaceLabel`,
 * an account of that method and label has its credentials replaced instead. Returns null when the
 * connection already holds `max` accounts.
 */
export async function addProviderAccount(
  prisma: PrismaClient,
  accountId: number,
  provider: string,
  account: NewProviderAccount,
  options: { max: number; replaceLabel?: boolean },
): Promise<ProviderAccountRow | null> {
  return prisma.$transaction(async (tx) => {
    const connection = await tx.platformModelConnection.upsert({
      where: { accountId_provider: { accountId, provider } },
      create: { accountId, provider },
      update: { updatedAt: new Date() },
      include: withAccounts,
    });
    const same = options.replaceLabel
      ? connection.accounts.find((row) => row.method === account.method && row.label === account.label)
      : undefined;
    if (same) {
      return tx.platformModelProviderAccount.update({
        where: { id: same.id },
        data: { ...account, status: "connected", lastError: null },
      });
    }
    if (connection.accounts.length >= options.max) return null;
    return tx.platformModelProviderAccount.create({ data: { ...account, connectionId: connection.id, accountId } });
  });
}

export const updateProviderAccount = (
  prisma: PrismaClient,
  accountId: number,
  id: number,
  data: { secretSealed?: string; expiresAt?: Date | null; status?: string; lastError?: string | null; refreshingUntil?: Date | null },
) => prisma.platformModelProviderAccount.updateMany({ where: { id, accountId }, data });

export const findProviderAccount = (prisma: PrismaClient, accountId: number, id: number) =>
  prisma.platformModelProviderAccount.findFirst({ where: { id, accountId } });

/** Claims the refresh of a provider account's tokens for `ms` (services/refresh-claim.ts); false when another caller holds it. */
export async function claimProviderAccountRefresh(prisma: PrismaClient, accountId: number, id: number, ms: number): Promise<boolean> {
  const now = new Date();
  const { count } = await prisma.platformModelProviderAccount.updateMany({
    where: { id, accountId, OR: [{ refreshingUntil: null }, { refreshingUntil: { lt: now } }] },
    data: { refreshingUntil: new Date(now.getTime() + ms) },
  });
  return count === 1;
}

/** Removes the connection (and its accounts); false when there was none. */
export async function deleteConnection(prisma: PrismaClient, accountId: number, provider: string): Promise<boolean> {
  const { count } = await prisma.platformModelConnection.deleteMany({ where: { accountId, provider } });
  return count > 0;
}

/** Removes one provider-side account; the connection goes with its last one. False when not found. */
export async function deleteProviderAccount(prisma: PrismaClient, accountId: number, provider: string, id: number): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const { count } = await tx.platformModelProviderAccount.deleteMany({ where: { id, accountId, connection: { provider } } });
    if (count === 0) return false;
    await tx.platformModelConnection.deleteMany({ where: { accountId, provider, accounts: { none: {} } } });
    return true;
  });
}

export const setDefaultModel = (prisma: PrismaClient, accountId: number, provider: string, model: string | null) =>
  prisma.platformModelConnection.updateMany({ where: { accountId, provider }, data: { defaultModel: model } });

/** Makes `provider` the account's one preferred default (null clears it); false when it is not connected. */
export async function setPreferredDefault(prisma: PrismaClient, accountId: number, provider: string | null): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    await tx.platformModelConnection.updateMany({ where: { accountId, preferredDefault: true }, data: { preferredDefault: false } });
    if (provider === null) return true;
    const { count } = await tx.platformModelConnection.updateMany({ where: { accountId, provider }, data: { preferredDefault: true } });
    return count > 0;
  });
}

// ---------------------------------------------------------------------------------------------
// Authorizations

export const findAuthorization = (prisma: PrismaClient, accountId: number, provider: string, stateHash: string) =>
  prisma.platformModelAuthorization.findFirst({ where: { stateHash, accountId, provider } });

export const countPendingAuthorizations = (prisma: PrismaClient, accountId: number, now: Date) =>
  prisma.platformModelAuthorization.count({ where: { accountId, status: "pending", expiresAt: { gt: now } } });

export const createAuthorization = (
  prisma: PrismaClient,
  data: { stateHash: string; accountId: number; provider: string; codeVerifierSealed: string; redirectUri: string; expiresAt: Date },
) => prisma.platformModelAuthorization.create({ data });

/**
 * Moves a pending authorization to its end state, once: false when another call finished it first
 * (or it expired), so a code is never redeemed twice. The verifier is dropped with the pending state.
 */
export async function finishAuthorization(
  prisma: PrismaClient,
  stateHash: string,
  now: Date,
  data: { status: string; error?: string | null; providerAccountId?: number | null },
): Promise<boolean> {
  const { count } = await prisma.platformModelAuthorization.updateMany({
    where: { stateHash, status: "pending", expiresAt: { gt: now } },
    data: { ...data, codeVerifierSealed: null, finishedAt: now },
  });
  return count > 0;
}

/** Forgets the account's finished or expired authorizations older than `before`. */
export const pruneAuthorizations = (prisma: PrismaClient, accountId: number, before: Date) =>
  prisma.platformModelAuthorization.deleteMany({ where: { accountId, createdAt: { lt: before }, OR: [{ status: { not: "pending" } }, { expiresAt: { lt: before } }] } });

/** Records what became of an authorization after its claim (failed, or the account it connected). */
export const updateAuthorization = (
  prisma: PrismaClient,
  stateHash: string,
  data: { status?: string; error?: string | null; providerAccountId?: number | null },
) => prisma.platformModelAuthorization.updateMany({ where: { stateHash }, data });
