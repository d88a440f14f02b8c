// What the installation's operator does outside the API, across accounts (npm run inlay, server/cli/):
// finding an account by email or id, vouching for its email, and finding runs no worker moves on.
// Crediting, webhook retries and key rotation reuse the services the platform runs them with.
import { PlatformError } from "../../errors";
import type { Db } from "../../repositories/db";
import { findAccount, findAccountByEmail } from "../../repositories/accounts";
import { listStuckRuns as listStuckRunRows, type StuckRunRow } from "../../repositories/run-lists";
import { markOperatorAccountVerified } from "./verification";

export interface AccountRef {
  id: number;
  email: string;
}

/** The account named by `ref`, an id or an email; 404 not_found when there is none. */
export async function findAccountByRef(prisma: Db, ref: string): Promise<AccountRef & { emailVerifiedAt: Date | null }> {
  const trimmed = ref.trim();
  const account = /^\d{1,10}$/.test(trimmed)
    ? Number(trimmed) <= 2_147_483_647
      ? await findAccount(prisma, Number(trimmed))
      : null
    : await findAccountByEmail(prisma, trimmed.toLowerCase());
  if (!account) throw new PlatformError({ type: "not_found", message: `no account with ${/^\d+$/.test(trimmed) ? "id" : "email"} ${trimmed}` });
  return { id: account.id, email: account.email, emailVerifiedAt: account.emailVerifiedAt };
}

/** Marks the account's email verified, as following the mailed link would; says whether it already was. */
export async function verifyAccountEmail(prisma: Db, ref: string, now = new Date()) {
  const { emailVerifiedAt, ...account } = await findAccountByRef(prisma, ref);
  if (emailVerifiedAt !== null) return { account, verified_at: emailVerifiedAt.toISOString(), already_verified: true };
  // A link followed at the same moment may win the update: verified either way.
  await markOperatorAccountVerified(prisma, account.id, now);
  return { account, verified_at: now.toISOString(), already_verified: false };
}

export type StuckReason = "lease_lapsed" | "unclaimed" | "long_running";

export interface StuckRun {
  id: number;
  account_id: number;
  agent_id: number;
  reason: StuckReason;
  /** Which worker holds (or held) its lease. */
  lease_owner: string | null;
  lease_expires_at: string | null;
  resume_attempts: number;
  created_at: string;
  updated_at: string;
}

function reasonOf(row: StuckRunRow, now: Date): StuckReason {
  if (row.leaseOwner === null) return "unclaimed";
  return row.leaseExpiresAt !== null && row.leaseExpiresAt < now ? "lease_lapsed" : "long_running";
}

/**
 * Runs still `running` that no worker moves on: a lapsed lease (its worker died and none claimed it
 * again: are workers running?), no lease for `olderThanMs` (accepted or resumed, never claimed), or a
 * live lease on a run started more than `olderThanMs` ago (a worker is on it; it may be just long).
 */
export async function findStuckRuns(prisma: Db, options: { olderThanMs: number; limit: number; now?: Date }): Promise<StuckRun[]> {
  const now = options.now ?? new Date();
  const rows = await listStuckRunRows(prisma, { now, cutoff: new Date(now.getTime() - options.olderThanMs), limit: options.limit });
  return rows.map((row) => ({
    id: row.id,
    account_id: row.accountId,
    agent_id: row.agentId,
    reason: reasonOf(row, now),
    lease_owner: row.leaseOwner,
    lease_expires_at: row.leaseExpiresAt?.toISOString() ?? null,
    resume_attempts: row.resumeAttempts,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  }));
}
