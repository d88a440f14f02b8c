// Email-verification tokens (stored hashed).
import type { PrismaClient } from "@/server/generated/prisma/client";

export const createVerification = (prisma: PrismaClient, accountId: number, tokenHash: string, expiresAt: Date) =>
  prisma.platformEmailVerification.create({ data: { accountId, tokenHash, expiresAt } });

export const findVerification = (prisma: PrismaClient, tokenHash: string) =>
  prisma.platformEmailVerification.findUnique({ where: { tokenHash } });

export async function markVerified(prisma: PrismaClient, verificationId: number, accountId: number, at: Date) {
  await prisma.$transaction([
    prisma.platformEmailVerification.update({ where: { id: verificationId }, data: { usedAt: at } }),
    prisma.platformAccount.update({ where: { id: accountId }, data: { emailVerifiedAt: at } }),
  ]);
}

/** Verified without a token, by the installation's operator (see services/account/verification.ts); false if it already was. */
export async function setAccountVerified(prisma: PrismaClient, accountId: number, at: Date): Promise<boolean> {
  const { count } = await prisma.platformAccount.updateMany({ where: { id: accountId, emailVerifiedAt: null }, data: { emailVerifiedAt: at } });
  return count > 0;
}
