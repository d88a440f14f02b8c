// End-user profiles (`user_id` scopes). The only module that touches platform_end_users.
import type { PlatformEndUser, PrismaClient } from "@/server/generated/prisma/client";
import { Prisma } from "@/server/generated/prisma/client";

export const findEndUser = (prisma: PrismaClient, accountId: number, externalId: string) =>
  prisma.platformEndUser.findUnique({ where: { accountId_externalId: { accountId, externalId } } });

/** The end-user's own id (`user_id` on the API) for the row's id, or null when the row is gone. */
export const findEndUserExternalId = async (prisma: PrismaClient, id: number): Promise<string | null> =>
  (await prisma.platformEndUser.findUnique({ where: { id }, select: { externalId: true } }))?.externalId ?? null;

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

export type EndUserRow = PlatformEndUser;

export interface ProfileFields {
  name?: string | null;
  email?: string | null;
  company?: string | null;
  metadata?: Record<string, unknown> | null;
}

// Prisma keeps undefined (leave unchanged) apart from null, which for a Json column must be DbNull.
function profileData(fields: ProfileFields) {
  const { metadata, ...text } = fields;
  return {
    ...text,
    ...(metadata === undefined
      ? {}
      : { metadata: metadata === null ? Prisma.DbNull : (metadata as Prisma.InputJsonObject) }),
  };
}

/** A new profile, or null when one with this user_id exists already. */
export async function insertEndUser(
  prisma: PrismaClient,
  accountId: number,
  externalId: string,
  fields: ProfileFields,
): Promise<EndUserRow | null> {
  try {
    return await prisma.platformEndUser.create({ data: { accountId, externalId, ...profileData(fields) } });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") return null;
    throw error;
  }
}

/**
 * Fills in a profile that has no profile fields yet (one created on first use of its user_id), in
 * one statement so two concurrent fills cannot both win. Null when there is none or it has data.
 */
export async function fillBlankEndUser(
  prisma: PrismaClient,
  accountId: number,
  externalId: string,
  fields: ProfileFields,
): Promise<EndUserRow | null> {
  const [row] = await prisma.platformEndUser.updateManyAndReturn({
    where: {
      accountId,
      externalId,
      name: null,
      email: null,
      company: null,
      metadata: { equals: Prisma.DbNull },
    },
    data: profileData(fields),
  });
  return row ?? null;
}

/** The account's profiles, newest first, after the cursor; limit + 1 rows so the caller can tell has_more. */
export const listEndUsers = (
  prisma: PrismaClient,
  accountId: number,
  page: { limit: number; startingAfter?: number },
) =>
  prisma.platformEndUser.findMany({
    where: { accountId, ...(page.startingAfter !== undefined ? { id: { lt: page.startingAfter } } : {}) },
    orderBy: { id: "desc" },
    take: page.limit + 1,
  });

/** The updated profile, or null when the account has none with this user_id. */
export async function updateEndUser(
  prisma: PrismaClient,
  accountId: number,
  externalId: string,
  fields: ProfileFields,
): Promise<EndUserRow | null> {
  const [row] = await prisma.platformEndUser.updateManyAndReturn({
    where: { accountId, externalId },
    data: profileData(fields),
  });
  return row ?? null;
}

/**
 * Deletes the profile; the foreign keys cascade to everything scoped to it (agents, memories,
 * permissions, …). Its row id, or null when the account has no such profile.
 */
export async function deleteEndUser(prisma: PrismaClient, accountId: number, externalId: string): Promise<number | null> {
  const rows = await prisma.$queryRaw<{ id: number }[]>`
    DELETE FROM platform_end_users WHERE account_id = ${accountId} AND external_id = ${externalId} RETURNING id`;
  return rows[0]?.id ?? null;
}

/** Is `id` an end-user profile of the account? (Value tracking's responsible_user_id names one.) */
export const endUserProfileExists = async (prisma: PrismaClient, accountId: number, id: number): Promise<boolean> =>
  (await prisma.platformEndUser.count({ where: { id, accountId } })) > 0;
