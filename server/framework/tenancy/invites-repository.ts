// Tenant invites: stored by the hash of their token; every read and write is scoped to a tenant,
// except the lookup by token hash, which is how an invitee proves they hold the link.
import type { Db, TenantRole } from "./repository";

export interface InviteRecord {
  id: string;
  tenantId: string;
  email: string;
  role: TenantRole;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
  invitedBy: string | null;
}

export interface InviteWithTenant extends InviteRecord {
  tenant: { id: string; slug: string; name: string };
}

type InviteRow = {
  id: string;
  tenantId: string;
  email: string;
  role: TenantRole;
  expiresAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
  invitedBy?: { email: string } | null;
};

const toInvite = (row: InviteRow): InviteRecord => ({
  id: row.id,
  tenantId: row.tenantId,
  email: row.email,
  role: row.role,
  expiresAt: row.expiresAt,
  acceptedAt: row.acceptedAt,
  revokedAt: row.revokedAt,
  createdAt: row.createdAt,
  invitedBy: row.invitedBy?.email ?? null,
});

export async function insertInvite(
  prisma: Db,
  invite: { tenantId: string; email: string; role: TenantRole; tokenHash: string; invitedById: string | null; expiresAt: Date },
): Promise<InviteRecord> {
  return toInvite(await prisma.tenantInvite.create({ data: invite, include: { invitedBy: true } }));
}

/** Invites not yet accepted or revoked (expired ones included: the admin sees and can revoke them). */
export async function listOpenInvites(prisma: Db, tenantId: string): Promise<InviteRecord[]> {
  const rows = await prisma.tenantInvite.findMany({
    where: { tenantId, acceptedAt: null, revokedAt: null },
    include: { invitedBy: true },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
  });
  return rows.map(toInvite);
}

/** Revokes an open invite of this tenant; false when the id is unknown, another tenant's, or closed. */
export async function revokeOpenInvite(prisma: Db, tenantId: string, inviteId: string, now: Date): Promise<boolean> {
  const { count } = await prisma.tenantInvite.updateMany({
    where: { id: inviteId, tenantId, acceptedAt: null, revokedAt: null },
    data: { revokedAt: now },
  });
  return count === 1;
}

export async function findInviteByTokenHash(prisma: Db, tokenHash: string): Promise<InviteWithTenant | null> {
  const row = await prisma.tenantInvite.findUnique({ where: { tokenHash }, include: { tenant: true, invitedBy: true } });
  if (!row) return null;
  return { ...toInvite(row), tenant: { id: row.tenant.id, slug: row.tenant.slug, name: row.tenant.name } };
}

/**
 * Marks the invite used. The condition makes it single-use: of two acceptances racing, one updates
 * the row and the other finds nothing to update.
 */
export async function consumeInvite(prisma: Db, inviteId: string, now: Date): Promise<boolean> {
  const { count } = await prisma.tenantInvite.updateMany({
    where: { id: inviteId, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } },
    data: { acceptedAt: now },
  });
  return count === 1;
}

export async function hasOpenInviteFor(prisma: Db, email: string, now: Date): Promise<boolean> {
  const count = await prisma.tenantInvite.count({
    where: { email, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } },
  });
  return count > 0;
}
