// A tenant's members, as its admins manage them. Every change is scoped to the tenant (another
// tenant's membership id is NOT_FOUND), and a tenant always keeps at least one admin.
import type { TenantRole } from "@inlay/core/schemas/tenancy";
import type { Db } from "@/server/shared/db";
import { TenancyError } from "./errors";
import {
  countAdmins,
  deleteMembership,
  findTenantMember,
  listTenantMembers,
  setMembershipRole,
  withTenantLocked,
  type MemberRecord,
} from "./repository";

export const listMembers = (prisma: Db, tenantId: string): Promise<MemberRecord[]> =>
  listTenantMembers(prisma, tenantId);

const LAST_ADMIN = "A workspace needs at least one admin: make someone else admin first.";

export async function changeMemberRole(
  prisma: Db,
  tenantId: string,
  membershipId: string,
  role: TenantRole,
): Promise<MemberRecord> {
  // The tenant row lock makes two admins demoting each other at once run in turn, so the second
  // sees one admin left and is refused.
  return withTenantLocked(prisma, tenantId, async (tx) => {
    const member = await findTenantMember(tx, tenantId, membershipId);
    if (!member) throw new TenancyError("NOT_FOUND", "no such member");
    if (member.role === "admin" && role === "member" && (await countAdmins(tx, tenantId)) <= 1) {
      throw new TenancyError("CONFLICT", LAST_ADMIN);
    }
    await setMembershipRole(tx, tenantId, membershipId, role);
    return { ...member, role };
  });
}

/** Removes a member. Their next request already fails: every tenant procedure re-reads memberships. */
export async function removeMember(prisma: Db, tenantId: string, membershipId: string): Promise<void> {
  await withTenantLocked(prisma, tenantId, async (tx) => {
    const member = await findTenantMember(tx, tenantId, membershipId);
    if (!member) throw new TenancyError("NOT_FOUND", "no such member");
    if (member.role === "admin" && (await countAdmins(tx, tenantId)) <= 1) {
      throw new TenancyError("CONFLICT", LAST_ADMIN);
    }
    await deleteMembership(tx, tenantId, membershipId);
  });
}
