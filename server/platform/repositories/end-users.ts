// End-user profiles (`user_id` scopes). The only module that touches platform_end_users.
import type { PrismaClient } from "@/server/generated/prisma/client";
import { Prisma } from "@/server/generated/prisma/client";

export const findEndUser = (prisma: PrismaClient, accountId: number, externalId: string) =>
  prisma.platformEndUser.findUnique({ where: { accountId_externalId: { accountId, externalId } } });

/** The profile's row id, creating the profile on first use of a user_id. Runs on most requests. */
export async function ensureEndUser(prisma: PrismaClient, accountId: number, externalId: string): Promise<number> {
  const existing = await prisma.$queryRaw<{ id: number }[]>`
    SELECT id FROM platform_end_users WHERE account_id = ${accountId} AND external_id = ${externalId}`;
  if (existing[0]) return existing[0].id;
  try {
    return (await prisma.platformEndUser.create({ data: { accountId, externalId } })).id;
  } catch (error) {
    // Two first requests for one user_id at once: the other one created it.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      const row = await findEndUser(prisma, accountId, externalId);
      if (row) return row.id;
    }
    throw error;
  }
}
