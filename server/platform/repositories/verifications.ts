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

/** Verified without a token: for the installation's own operator account (see services/verification). */
export async function setAccountVerified(prisma: PrismaClient, accountId: number, at: Date): Promise<void> {
  await prisma.platformAccount.updateMany({ where: { id: accountId, emailVerifiedAt: null }, data: { emailVerifiedAt: at } });
}
