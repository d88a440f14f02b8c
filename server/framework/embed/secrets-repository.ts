// The embed secrets' and embedded users' only Prisma access (server/framework/embed/secrets.ts, sessions.ts).
import type { Prisma, PrismaClient } from "@/server/generated/prisma/client";

type Db = PrismaClient | Prisma.TransactionClient;

export interface EmbedSecretRecord {
  id: string;
  tenantId: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const secretFields = { id: true, tenantId: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true } as const;

export const insertEmbedSecret = (
  prisma: Db,
  data: { tenantId: string; name: string; prefix: string; secretHash: string; createdById: string | null },
): Promise<EmbedSecretRecord> => prisma.tenantEmbedSecret.create({ data, select: secretFields });

export const listEmbedSecretRows = (prisma: Db, tenantId: string): Promise<EmbedSecretRecord[]> =>
  prisma.tenantEmbedSecret.findMany({ where: { tenantId }, orderBy: { createdAt: "desc" }, select: secretFields });

export const findEmbedSecret = (prisma: Db, tenantId: string, id: string): Promise<EmbedSecretRecord | null> =>
  prisma.tenantEmbedSecret.findFirst({ where: { id, tenantId }, select: secretFields });

export const findEmbedSecretByHash = (prisma: Db, secretHash: string): Promise<EmbedSecretRecord | null> =>
  prisma.tenantEmbedSecret.findUnique({ where: { secretHash }, select: secretFields });

/** Revokes a live secret of the tenant; false when there is none by that id (or it was revoked). */
export async function revokeEmbedSecretRow(prisma: Db, tenantId: string, id: string, now: Date): Promise<boolean> {
  const { count } = await prisma.tenantEmbedSecret.updateMany({ where: { id, tenantId, revokedAt: null }, data: { revokedAt: now } });
  return count > 0;
}

/** Records a use, at most once a minute per secret (a write per mint would be a hot row). */
export async function touchEmbedSecret(prisma: Db, id: string, now: Date): Promise<void> {
  await prisma.tenantEmbedSecret.updateMany({
    where: { id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: new Date(now.getTime() - 60_000) } }] },
    data: { lastUsedAt: now },
  });
}

export interface EmbedUserRecord {
  userId: string;
  email: string;
  name: string | null;
}

export const findEmbedUser = (prisma: Db, tenantId: string, externalId: string): Promise<EmbedUserRecord | null> =>
  prisma.tenantEmbedUser.findUnique({
    where: { tenantId_externalId: { tenantId, externalId } },
    select: { userId: true, email: true, name: true },
  });

/** A new Inlay user, its membership of the tenant and the link from the vendor's id, all at once. */
export async function insertEmbedUser(
  prisma: PrismaClient,
  row: { tenantId: string; externalId: string; email: string; name: string | null; userEmail: string },
): Promise<EmbedUserRecord> {
  return prisma.$transaction(async (tx) => {
    const user = await tx.user.create({ data: { email: row.userEmail, name: row.name, passwordHash: null }, select: { id: true } });
    await tx.membership.create({ data: { tenantId: row.tenantId, userId: user.id, role: "member" } });
    await tx.tenantEmbedUser.create({
      data: { tenantId: row.tenantId, externalId: row.externalId, userId: user.id, email: row.email, name: row.name },
    });
    return { userId: user.id, email: row.email, name: row.name };
  });
}

/** The vendor's latest email and name for its user (the Inlay user's name follows). */
export async function updateEmbedUser(prisma: PrismaClient, tenantId: string, externalId: string, userId: string, fields: { email: string; name: string | null }) {
  await prisma.$transaction([
    prisma.tenantEmbedUser.update({ where: { tenantId_externalId: { tenantId, externalId } }, data: fields }),
    prisma.user.update({ where: { id: userId }, data: { name: fields.name } }),
  ]);
}

export async function hasMembership(prisma: Db, tenantId: string, userId: string): Promise<boolean> {
  return (await prisma.membership.count({ where: { tenantId, userId } })) > 0;
}

/** A tenant agent (not a member's personal one, not archived) by id or name. */
export async function findTenantAgentRef(prisma: Db, tenantId: string, agent: string): Promise<{ id: string; name: string } | null> {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(agent);
  return prisma.tenantAgent.findFirst({
    where: { tenantId, ownerUserId: null, archivedAt: null, OR: uuid ? [{ id: agent }, { name: agent }] : [{ name: agent }] },
    select: { id: true, name: true },
  });
}
