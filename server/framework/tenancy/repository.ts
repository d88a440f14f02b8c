// The framework's users, tenants and memberships. The *repository.ts files of server/framework/tenancy are the
// only modules of server/framework/tenancy and server/framework/auth that touch Prisma. They return plain shapes, never
// Prisma rows.
import type { Prisma, PrismaClient } from "@/server/generated/prisma/client";

export type TenantRole = "member" | "admin";

export interface UserRecord {
  id: string;
  email: string;
  name: string | null;
  isOwner: boolean;
}

export interface MembershipRecord {
  tenant: { id: string; slug: string; name: string };
  role: TenantRole;
}

const toUser = (row: { id: string; email: string; name: string | null; isOwner: boolean }): UserRecord => ({
  id: row.id,
  email: row.email,
  name: row.name,
  isOwner: row.isOwner,
});

export async function findUserWithPasswordByEmail(prisma: PrismaClient, email: string) {
  const row = await prisma.user.findUnique({ where: { email: email.trim().toLowerCase() } });
  return row ? { user: toUser(row), passwordHash: row.passwordHash } : null;
}

export async function findUserById(prisma: PrismaClient | Prisma.TransactionClient, id: string): Promise<UserRecord | null> {
  const row = await prisma.user.findUnique({ where: { id } });
  return row ? toUser(row) : null;
}

export async function listMemberships(prisma: PrismaClient | Prisma.TransactionClient, userId: string): Promise<MembershipRecord[]> {
  // One joined query (the relation include would be two): every request that knows its member reads it.
  const rows = await prisma.$queryRaw<{ id: string; slug: string; name: string; role: TenantRole }[]>`
    SELECT t.id, t.slug, t.name, m.role::text AS role
    FROM memberships m JOIN tenants t ON t.id = m.tenant_id
    WHERE m.user_id = ${userId}::uuid
    ORDER BY t.name ASC`;
  return rows.map((row) => ({ tenant: { id: row.id, slug: row.slug, name: row.name }, role: row.role }));
}

/** The client of an open transaction. */
export type Tx = Prisma.TransactionClient;
export type Db = PrismaClient | Tx;

export interface TenantRecord {
  id: string;
  slug: string;
  name: string;
}

export interface MemberRecord {
  id: string;
  userId: string;
  /** For a member the vendor's backend provisioned (server/framework/embed/sessions.ts): the vendor's address. */
  email: string;
  name: string | null;
  role: TenantRole;
  joinedAt: Date;
  /** The vendor's user id when the member came through an embed secret, else null. */
  embedUserId: string | null;
}

export async function findUserByEmail(prisma: Db, email: string): Promise<UserRecord | null> {
  const row = await prisma.user.findUnique({ where: { email: email.trim().toLowerCase() } });
  return row ? toUser(row) : null;
}

export async function createUser(
  prisma: Db,
  user: { email: string; name: string | null; passwordHash: string | null },
): Promise<UserRecord> {
  return toUser(await prisma.user.create({ data: { ...user, email: user.email.trim().toLowerCase() } }));
}

export async function slugTaken(prisma: Db, slug: string): Promise<boolean> {
  return (await prisma.tenant.count({ where: { slug } })) > 0;
}

export async function createTenant(prisma: Db, tenant: { slug: string; name: string }): Promise<TenantRecord> {
  const row = await prisma.tenant.create({ data: tenant });
  return { id: row.id, slug: row.slug, name: row.name };
}

export async function addMembership(prisma: Db, tenantId: string, userId: string, role: TenantRole) {
  await prisma.membership.create({ data: { tenantId, userId, role } });
}

export async function findMembershipRole(prisma: Db, tenantId: string, userId: string): Promise<TenantRole | null> {
  const row = await prisma.membership.findUnique({ where: { tenantId_userId: { tenantId, userId } } });
  return row?.role ?? null;
}

export async function countMemberships(prisma: Db, userId: string): Promise<number> {
  return prisma.membership.count({ where: { userId } });
}

// An embedded member's own user row holds a placeholder address; the tenant's link row holds the
// vendor's address and name, which is what an admin knows the person by.
const memberUser = (tenantId: string) => ({ include: { embedIdentities: { where: { tenantId } } } }) as const;

const toMember = (row: {
  id: string;
  role: TenantRole;
  createdAt: Date;
  user: { id: string; email: string; name: string | null; embedIdentities: { externalId: string; email: string; name: string | null }[] };
}): MemberRecord => {
  const embedded = row.user.embedIdentities[0];
  return {
    id: row.id,
    userId: row.user.id,
    email: embedded?.email ?? row.user.email,
    name: embedded?.name ?? row.user.name,
    role: row.role,
    joinedAt: row.createdAt,
    embedUserId: embedded?.externalId ?? null,
  };
};

export async function listTenantMembers(prisma: Db, tenantId: string): Promise<MemberRecord[]> {
  const rows = await prisma.membership.findMany({
    where: { tenantId },
    include: { user: memberUser(tenantId) },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return rows.map(toMember);
}

/** A membership of this tenant by id; null for an unknown id or another tenant's. */
export async function findTenantMember(prisma: Db, tenantId: string, membershipId: string): Promise<MemberRecord | null> {
  const row = await prisma.membership.findFirst({ where: { id: membershipId, tenantId }, include: { user: memberUser(tenantId) } });
  return row ? toMember(row) : null;
}

/**
 * Runs `work` with the tenant row locked, so changes that must keep an invariant over the tenant's
 * memberships (at least one admin) happen one after the other.
 */
export async function withTenantLocked<T>(
  prisma: PrismaClient,
  tenantId: string,
  work: (tx: Prisma.TransactionClient) => Promise<T>,
): Promise<T> {
  return prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM tenants WHERE id = ${tenantId}::uuid FOR UPDATE`;
    return work(tx);
  });
}

export async function countAdmins(prisma: Db, tenantId: string): Promise<number> {
  return prisma.membership.count({ where: { tenantId, role: "admin" } });
}

export async function setMembershipRole(prisma: Db, tenantId: string, membershipId: string, role: TenantRole) {
  await prisma.membership.updateMany({ where: { id: membershipId, tenantId }, data: { role } });
}

export async function deleteMembership(prisma: Db, tenantId: string, membershipId: string) {
  await prisma.membership.deleteMany({ where: { id: membershipId, tenantId } });
}

export interface TenantOverviewRecord extends TenantRecord {
  memberCount: number;
  createdAt: Date;
}

export async function listAllTenants(prisma: Db): Promise<TenantOverviewRecord[]> {
  const rows = await prisma.tenant.findMany({
    orderBy: [{ name: "asc" }, { id: "asc" }],
    include: { _count: { select: { memberships: true } } },
  });
  return rows.map((row) => ({
    id: row.id,
    slug: row.slug,
    name: row.name,
    createdAt: row.createdAt,
    memberCount: row._count.memberships,
  }));
}

export async function findTenantById(prisma: Db, tenantId: string): Promise<TenantRecord | null> {
  const row = await prisma.tenant.findUnique({ where: { id: tenantId } });
  return row ? { id: row.id, slug: row.slug, name: row.name } : null;
}
