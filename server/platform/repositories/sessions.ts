// Browser sessions (platform_sessions) and the password they hang on. The only module that writes
// platform_sessions; it also writes platform_accounts.password_hash, together with the revocation.
import { Prisma, type PrismaClient } from "@/server/generated/prisma/client";
import { queryRows } from "./direct";

export interface NewSession {
  personId: number;
  accountId: number;
  accessHash: string;
  refreshHash: string;
  accessExpiresAt: Date;
  refreshExpiresAt: Date;
}

export type SessionTokens = Pick<NewSession, "accessHash" | "refreshHash" | "accessExpiresAt">;

type Db = Pick<PrismaClient, "platformSession">;

export const createSession = (prisma: Db, session: NewSession) => prisma.platformSession.create({ data: session });

export interface SessionForAuth {
  id: number;
  personId: number;
  accountId: number;
  accessExpiresAt: Date;
  revokedAt: Date | null;
  requireEndUserId: boolean;
  /** The person's role in the account: its membership's, "owner" for the person's own account, null if neither. */
  role: string | null;
}

/** The session, the account field authentication needs and the person's role there, in one round trip. */
export async function findSessionForAuth(prisma: PrismaClient, accessHash: string): Promise<SessionForAuth | null> {
  const rows = await queryRows<SessionForAuth>(prisma, Prisma.sql`
    SELECT s.id, s.person_id AS "personId", s.account_id AS "accountId", s.access_expires_at AS "accessExpiresAt",
           s.revoked_at AS "revokedAt", a.require_end_user_id AS "requireEndUserId",
           CASE WHEN s.person_id = s.account_id THEN 'owner' ELSE m.role END AS role
    FROM platform_sessions s
    JOIN platform_accounts a ON a.id = s.account_id
    LEFT JOIN platform_team_members m ON m.org_id = s.account_id AND m.member_account_id = s.person_id
    WHERE s.access_hash = ${accessHash}`);
  return rows[0] ?? null;
}

export const findSessionByRefreshHash = (prisma: Db, refreshHash: string) =>
  prisma.platformSession.findUnique({ where: { refreshHash } });

/** Replaces a live session's tokens, if `refreshHash` is still its refresh token: single use under races. */
export async function replaceSessionTokens(
  prisma: Db,
  sessionId: number,
  refreshHash: string,
  next: SessionTokens,
  now: Date,
): Promise<boolean> {
  const { count } = await prisma.platformSession.updateMany({
    where: { id: sessionId, refreshHash, revokedAt: null, refreshExpiresAt: { gt: now } },
    data: { ...next, refreshedAt: now },
  });
  return count === 1;
}

/** Ends every live session of the person (in every account it acts as); how many. */
export async function revokePersonSessions(prisma: Db, personId: number, now: Date): Promise<number> {
  const { count } = await prisma.platformSession.updateMany({ where: { personId, revokedAt: null }, data: { revokedAt: now } });
  return count;
}

/** Ends the person's sessions acting as one account (a member removed from a team). */
export async function revokePersonSessionsIn(prisma: Db, personId: number, accountId: number, now: Date): Promise<number> {
  const { count } = await prisma.platformSession.updateMany({
    where: { personId, accountId, revokedAt: null },
    data: { revokedAt: now },
  });
  return count;
}

/**
 * Sets the person's new password hash, ends all its sessions and opens `next`, as one step, if the
 * stored hash is still `expectedHash` (a concurrent change wins otherwise: null).
 */
export async function replacePassword(
  prisma: PrismaClient,
  personId: number,
  expectedHash: string,
  newHash: string,
  next: NewSession,
  now: Date,
) {
  return prisma.$transaction(async (tx) => {
    const { count } = await tx.platformAccount.updateMany({
      where: { id: personId, passwordHash: expectedHash },
      data: { passwordHash: newHash },
    });
    if (count === 0) return null;
    await tx.platformSession.updateMany({ where: { personId, revokedAt: null }, data: { revokedAt: now } });
    return tx.platformSession.create({ data: next });
  });
}
