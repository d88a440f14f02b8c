// The framework's users, tenants and memberships: the only module of server/tenancy and server/auth
// that touches Prisma. Returns plain shapes, never Prisma rows.
import type { PrismaClient } from "@/server/generated/prisma/client";

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

export async function findUserById(prisma: PrismaClient, id: string): Promise<UserRecord | null> {
  const row = await prisma.user.findUnique({ where: { id } });
  return row ? toUser(row) : null;
}

export async function listMemberships(prisma: PrismaClient, userId: string): Promise<MembershipRecord[]> {
  const rows = await prisma.membership.findMany({
    where: { userId },
    include: { tenant: true },
    orderBy: { tenant: { name: "asc" } },
  });
  return rows.map((row) => ({
    tenant: { id: row.tenant.id, slug: row.tenant.slug, name: row.tenant.name },
    role: row.role,
  }));
}
