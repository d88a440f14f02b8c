// Teams: members (platform_team_members) and invites (platform_team_invites). A team's org is an
// account, so org_id is an account id; every query names the org or the member explicitly.
import type { PrismaClient } from "@/server/generated/prisma/client";

type Db = Pick<PrismaClient, "platformTeamMember" | "platformTeamInvite" | "platformAccount">;

const accountFields = { select: { id: true, email: true, firstName: true } } as const;

/** The account's holder as an owner of its own org: written on first use, a no-op afterwards. */
export async function ensureHolderMembership(prisma: Db, accountId: number): Promise<void> {
  await prisma.platformTeamMember.createMany({
    data: [{ orgId: accountId, memberId: accountId, role: "owner" }],
    skipDuplicates: true,
  });
}

export const findMembership = (prisma: Db, orgId: number, memberAccountId: number) =>
  prisma.platformTeamMember.findUnique({ where: { orgId_memberId: { orgId, memberId: memberAccountId } } });

export const findMember = (prisma: Db, orgId: number, memberId: number) =>
  prisma.platformTeamMember.findFirst({ where: { id: memberId, orgId } });

/** The teams the person belongs to, each with its account, its members and its pending invites. */
export const listTeamsOf = (prisma: Db, personId: number, now: Date) =>
  prisma.platformTeamMember.findMany({
    where: { memberId: personId },
    orderBy: { orgId: "asc" },
    include: {
      org: {
        select: {
          id: true,
          email: true,
          firstName: true,
          teamMembers: { orderBy: { id: "asc" }, include: { member: accountFields } },
          teamInvites: {
            where: { acceptedAt: null, revokedAt: null, expiresAt: { gt: now } },
            orderBy: { id: "asc" },
            include: { invitedBy: accountFields },
          },
        },
      },
    },
  });

export const findTeamOf = async (prisma: Db, personId: number, orgId: number, now: Date) =>
  (await listTeamsOf(prisma, personId, now)).find((row) => row.orgId === orgId) ?? null;

export async function isMemberByEmail(prisma: Db, orgId: number, email: string): Promise<boolean> {
  return (await prisma.platformTeamMember.count({ where: { orgId, member: { email } } })) > 0;
}

/** A new invite; an earlier pending one to the same address in the org is revoked with it. */
export async function replaceInvite(
  prisma: PrismaClient,
  invite: { orgId: number; email: string; role: string; tokenHash: string; invitedById: number; expiresAt: Date },
  now: Date,
) {
  return prisma.$transaction(async (tx) => {
    await tx.platformTeamInvite.updateMany({
      where: { orgId: invite.orgId, email: invite.email, acceptedAt: null, revokedAt: null },
      data: { revokedAt: now },
    });
    return tx.platformTeamInvite.create({ data: { ...invite, createdAt: now }, include: { invitedBy: accountFields } });
  });
}

export const findInviteByTokenHash = (prisma: Db, tokenHash: string) =>
  prisma.platformTeamInvite.findUnique({
    where: { tokenHash },
    include: { org: accountFields, invitedBy: accountFields },
  });

export const findInvite = (prisma: Db, inviteId: number) =>
  prisma.platformTeamInvite.findUnique({ where: { id: inviteId } });

/** Revokes a pending invite; false when it was accepted or revoked meanwhile. */
export async function revokeInvite(prisma: Db, inviteId: number, now: Date): Promise<boolean> {
  const { count } = await prisma.platformTeamInvite.updateMany({
    where: { id: inviteId, acceptedAt: null, revokedAt: null },
    data: { revokedAt: now },
  });
  return count === 1;
}

/**
 * Uses the invite and makes the person a member, as one step; false when the invite was used or
 * revoked meanwhile (it is single-use even under concurrent accepts).
 */
export async function acceptInvite(
  prisma: PrismaClient,
  invite: { id: number; orgId: number; role: string },
  personId: number,
  now: Date,
): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const { count } = await tx.platformTeamInvite.updateMany({
      where: { id: invite.id, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } },
      data: { acceptedAt: now },
    });
    if (count === 0) return false;
    await tx.platformTeamMember.create({ data: { orgId: invite.orgId, memberId: personId, role: invite.role } });
    return true;
  });
}

export async function deleteMember(prisma: Db, orgId: number, memberId: number): Promise<boolean> {
  const { count } = await prisma.platformTeamMember.deleteMany({ where: { id: memberId, orgId } });
  return count === 1;
}
