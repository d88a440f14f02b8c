// Email verification: a single-use token (stored hashed) mailed as a link to GET /verify/confirm.
import { randomBytes } from "node:crypto";
import type { Db } from "../../repositories/db";
import { createVerification, findVerification, markVerified, setAccountVerified } from "../../repositories/verifications";
import type { Mailer } from "../messaging/mailer";
import { sha256Hex } from "@/server/shared/secret-box";

const TOKEN_TTL_MS = 7 * 24 * 60 * 60 * 1000;


export async function sendVerificationMail(
  prisma: Db,
  mailer: Mailer,
  account: { id: number; email: string; firstName: string },
  baseUrl: string,
): Promise<void> {
  const token = randomBytes(32).toString("base64url");
  await createVerification(prisma, account.id, sha256Hex(token), new Date(Date.now() + TOKEN_TTL_MS));
  const link = `${baseUrl}/verify/confirm?token=${token}`;
  await mailer.send(prisma, {
    accountId: account.id,
    to: account.email,
    subject: "Verify your email for the Agent Platform",
    text: `Hi ${account.firstName},\n\nFollow this link to verify your email address:\n${link}\n\nIt works for 7 days.`,
    kind: "verify_email",
    links: [link],
    secrets: [token],
  });
}

/** Marks the account verified if the token is live; false for an unknown, used or expired token. */
export async function confirmVerification(prisma: Db, token: string, now = new Date()): Promise<boolean> {
  const row = await findVerification(prisma, sha256Hex(token));
  if (!row || row.usedAt || row.expiresAt <= now) return false;
  await markVerified(prisma, row.id, row.accountId, now);
  return true;
}

/** Runs an account may complete before its email is verified (the spec's figure). */
export const UNVERIFIED_RUN_LIMIT = 25;

/**
 * Marks an account verified without a mailed token: the account an embedded installation provisions
 * for its own framework, and any account the installation's operator vouches for (npm run inlay --
 * accounts verify, the way on an installation without SMTP). Never reachable through the API. False
 * when it was verified already.
 */
export async function markOperatorAccountVerified(prisma: Db, accountId: number, now = new Date()): Promise<boolean> {
  return setAccountVerified(prisma, accountId, now);
}
