// Teams (docs/platform-api.md, "Teams"): an account is an org whose members are other account
// holders with a role; they act as it through sessions opened with its org_id (services/account/sessions.ts),
// sharing its agents and runs without sharing a password or a key. Members join through an emailed,
// single-use, expiring invite whose token is stored only hashed. The caller is always a person: the
// session's, or the key's account holder.
import { randomBytes } from "node:crypto";
import type { z } from "zod";
import type { InvitePreview, Team, TeamInvite, TeamMember, TeamRole } from "@inlay/core/schemas/teams";
import type { Db } from "../../repositories/db";
import { isUniqueViolation } from "../../../shared/db-errors";
import { PlatformError } from "../../errors";
import type { DataContext } from "../../infrastructure/hot-cache";
import { findAccount } from "../../repositories/accounts";
import { revokePersonSessionsIn } from "../../repositories/sessions";
import {
  acceptInvite as acceptInviteRow,
  deleteMember,
  ensureHolderMembership,
  findInvite,
  findInviteByTokenHash,
  findMember,
  findMembership,
  findTeamOf,
  isMemberByEmail,
  listTeamsOf,
  replaceInvite,
  revokeInvite as revokeInviteRow,
} from "../../repositories/teams";
import type { Mailer } from "../messaging/mailer";
import { sha256Hex } from "@/server/shared/secret-box";

type Role = z.infer<typeof TeamRole>;
const RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 };

export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

type TeamRow = NonNullable<Awaited<ReturnType<typeof findTeamOf>>>;
type AccountBrief = { id: number; email: string; firstName: string };

const teamNotFound = (orgId: number) => new PlatformError({ type: "not_found", message: `no team with id ${orgId}` });
const notAllowed = (message: string) => new PlatformError({ type: "permission_error", errorCode: "team_role_insufficient", message });

const inviteStatus = (invite: { acceptedAt: Date | null; revokedAt: Date | null; expiresAt: Date }, now: Date) =>
  invite.acceptedAt ? "accepted" : invite.revokedAt ? "revoked" : invite.expiresAt <= now ? "expired" : "pending";

const toInvite = (
  invite: { id: number; orgId: number; email: string; role: string; acceptedAt: Date | null; revokedAt: Date | null; expiresAt: Date; createdAt: Date; invitedBy: AccountBrief | null },
  now: Date,
): z.infer<typeof TeamInvite> => ({
  id: invite.id,
  org_id: invite.orgId,
  email: invite.email,
  role: invite.role as Role,
  invited_by: invite.invitedBy?.email ?? null,
  status: inviteStatus(invite, now),
  expires_at: invite.expiresAt.toISOString(),
  created_at: invite.createdAt.toISOString(),
});

const toMember = (row: { id: number; orgId: number; role: string; createdAt: Date; member: AccountBrief }): z.infer<typeof TeamMember> => ({
  id: row.id,
  account_id: row.member.id,
  email: row.member.email,
  first_name: row.member.firstName,
  role: row.role as Role,
  is_account_holder: row.member.id === row.orgId,
  joined_at: row.createdAt.toISOString(),
});

const toTeam = (row: TeamRow, now: Date): z.infer<typeof Team> => {
  const role = row.role as Role;
  return {
    id: row.org.id,
    name: row.org.firstName,
    owner_email: row.org.email,
    role,
    members: row.org.teamMembers.map(toMember),
    invites: RANK[role] >= RANK.admin ? row.org.teamInvites.map((invite) => toInvite(invite, now)) : [],
  };
};

/** The person's role in the org; 404 when the person is not a member (another account's org is not there). */
async function roleIn(prisma: Db, personId: number, orgId: number): Promise<Role> {
  if (personId === orgId) {
    await ensureHolderMembership(prisma, orgId);
    return "owner";
  }
  const membership = await findMembership(prisma, orgId, personId);
  if (!membership) throw teamNotFound(orgId);
  return membership.role as Role;
}

/** GET /teams: the person's own org first, then every team it belongs to. */
export async function listTeams(ctx: DataContext, personId: number, now = new Date()) {
  await ensureHolderMembership(ctx.prisma, personId);
  return { data: (await listTeamsOf(ctx.prisma, personId, now)).map((row) => toTeam(row, now)) };
}

/** POST /teams/{org_id}/invites: admins and owners invite, to a role no higher than their own. */
export async function createInvite(
  ctx: DataContext,
  deps: { mailer: Mailer; baseUrl: string },
  personId: number,
  orgId: number,
  input: { email: string; role?: Role },
  now = new Date(),
): Promise<z.infer<typeof TeamInvite>> {
  const callerRole = await roleIn(ctx.prisma, personId, orgId);
  const role = input.role ?? "member";
  if (RANK[callerRole] < RANK.admin) throw notAllowed("only a team's owners and admins may invite");
  if (RANK[role] > RANK[callerRole]) throw notAllowed(`role: an ${callerRole} cannot invite an ${role}`);
  const email = input.email.trim().toLowerCase();
  if (await isMemberByEmail(ctx.prisma, orgId, email)) {
    throw new PlatformError({ type: "conflict_error", errorCode: "already_member", message: `email: ${email} is already a member of this team` });
  }
  const token = randomBytes(32).toString("base64url");
  const expiresAt = new Date(now.getTime() + INVITE_TTL_MS);
  const invite = await replaceInvite(ctx.prisma, { orgId, email, role, tokenHash: sha256Hex(token), invitedById: personId, expiresAt }, now);
  const org = await findAccount(ctx.prisma, orgId);
  const inviter = invite.invitedBy;
  const preview = `${deps.baseUrl}/teams/invites/${token}`;
  // Recorded without an account: the invite belongs to the invitee, so the org's export never shows its token.
  await deps.mailer.send(ctx.prisma, {
    accountId: null,
    to: email,
    subject: `You are invited to join ${org?.firstName ?? "a team"} on the Agent Platform`,
    text:
      `${inviter?.firstName ?? "Someone"} (${inviter?.email ?? "unknown"}) invites you to join the team ` +
      `${org?.firstName ?? ""} as ${role}.\n\nSign in to (or sign up for) the platform with this address, then:\n` +
      `- preview the invite: GET ${preview}\n` +
      `- accept it: POST ${deps.baseUrl}/teams/invites/accept with {"token": "${token}"}\n\n` +
      `The invite works once, for 7 days.`,
    kind: "team_invite",
    links: [preview],
    secrets: [token],
  });
  return toInvite(invite, now);
}

/** A live invite by its token: 404 for an unknown token, 410 for a used, revoked or expired one. */
async function liveInvite(prisma: Db, token: string, now: Date) {
  const invite = await findInviteByTokenHash(prisma, sha256Hex(token));
  if (!invite) throw new PlatformError({ type: "not_found", errorCode: "invite_not_found", message: "no invite with this token" });
  const status = inviteStatus(invite, now);
  if (status !== "pending") {
    throw new PlatformError({ type: "gone", errorCode: `invite_${status}`, message: `this invite was ${status === "expired" ? "not accepted in time" : status}` });
  }
  return invite;
}

/** GET /teams/invites/{token}: what the invite offers, to whoever holds its token. */
export async function previewInvite(ctx: DataContext, token: string, now = new Date()): Promise<z.infer<typeof InvitePreview>> {
  const invite = await liveInvite(ctx.prisma, token, now);
  return {
    org_id: invite.orgId,
    org_name: invite.org.firstName,
    invited_by: invite.invitedBy?.email ?? null,
    inviter_name: invite.invitedBy?.firstName ?? null,
    email: invite.email,
    role: invite.role as Role,
    expires_at: invite.expiresAt.toISOString(),
  };
}

/** POST /teams/invites/accept: the invited address's own account joins the team. */
export async function acceptInvite(ctx: DataContext, personId: number, token: string, now = new Date()) {
  const invite = await liveInvite(ctx.prisma, token, now);
  const person = await findAccount(ctx.prisma, personId);
  if (!person || person.email !== invite.email) {
    throw new PlatformError({
      type: "permission_error",
      errorCode: "invite_email_mismatch",
      message: "this invite is for another email address; sign in as that account to accept it",
    });
  }
  const alreadyMember = () =>
    new PlatformError({ type: "conflict_error", errorCode: "already_member", message: "you are already a member of this team" });
  if (personId === invite.orgId || (await findMembership(ctx.prisma, invite.orgId, personId))) throw alreadyMember();
  try {
    if (!(await acceptInviteRow(ctx.prisma, invite, personId, now))) await liveInvite(ctx.prisma, token, now);
  } catch (error) {
    if (isUniqueViolation(error)) throw alreadyMember();
    throw error;
  }
  const team = await findTeamOf(ctx.prisma, personId, invite.orgId, now);
  if (!team) throw teamNotFound(invite.orgId);
  return toTeam(team, now);
}

/** DELETE /teams/invites/{invite_id}: owners and admins of the invite's team. */
export async function revokeInvite(ctx: DataContext, personId: number, inviteId: number, now = new Date()): Promise<void> {
  const notFound = () => new PlatformError({ type: "not_found", message: `no pending invite with id ${inviteId}` });
  const invite = await findInvite(ctx.prisma, inviteId);
  if (!invite) throw notFound();
  // A team the caller is not in hides its invites: 404, as for any foreign id.
  const role = await roleIn(ctx.prisma, personId, invite.orgId).catch((error: unknown) => {
    if (error instanceof PlatformError && error.status === 404) throw notFound();
    throw error;
  });
  if (RANK[role] < RANK.admin) throw notAllowed("only a team's owners and admins may revoke invites");
  if (!(await revokeInviteRow(ctx.prisma, inviteId, now))) throw notFound();
}

/**
 * DELETE /teams/{org_id}/members/{member_id}: anyone may leave; owners remove anyone, admins remove
 * admins and members. The org's account holder stays (so a team always has an owner). The removed
 * person's sessions acting as the org end at once, on every instance.
 */
export async function removeMember(ctx: DataContext, personId: number, orgId: number, memberId: number, now = new Date()) {
  const callerRole = await roleIn(ctx.prisma, personId, orgId);
  const member = await findMember(ctx.prisma, orgId, memberId);
  if (!member) throw new PlatformError({ type: "not_found", message: `no member with id ${memberId} in team ${orgId}` });
  const leaving = member.memberId === personId;
  if (!leaving && (RANK[callerRole] < RANK.admin || RANK[member.role as Role] > RANK[callerRole])) {
    throw notAllowed(`an ${callerRole} cannot remove an ${member.role}`);
  }
  if (member.memberId === orgId) {
    throw new PlatformError({
      type: "conflict_error",
      errorCode: "last_owner",
      message: "the account holder is the team's lasting owner and cannot be removed",
    });
  }
  if (!(await deleteMember(ctx.prisma, orgId, memberId))) {
    throw new PlatformError({ type: "not_found", message: `no member with id ${memberId} in team ${orgId}` });
  }
  await revokePersonSessionsIn(ctx.prisma, member.memberId, orgId, now);
  await ctx.cache.sessionsChanged([member.memberId]);
}
