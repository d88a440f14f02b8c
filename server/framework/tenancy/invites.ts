// Invites: a tenant admin invites an email as member or admin; the link carries a random token whose
// SHA-256 alone is stored, valid for INVITE_TTL and usable once. Accepting joins the signed-in user
// (whose email must be the invited one) or creates the invitee's account with that email.
import { randomBytes } from "node:crypto";
import type { TenantRole } from "@inlay/core/schemas/tenancy";
import { hashPassword } from "@/server/shared/passwords";
import type { Db } from "@/server/shared/db";
import { isUniqueViolation } from "@/server/shared/db-errors";
import { TenancyError } from "./errors";
import {
  consumeInvite,
  findInviteByTokenHash,
  insertInvite,
  listOpenInvites,
  revokeOpenInvite,
  type InviteRecord,
} from "./invites-repository";
import { recordingMailer, type FrameworkMailer } from "./mailer";
import {
  addMembership,
  createUser,
  findMembershipRole,
  findUserByEmail,
  findUserById,
  type TenantRecord,
} from "./repository";
import { sha256Hex } from "@/server/shared/secret-box";
import type { InviteView, InviteDescription } from "@inlay/core/schemas/tenancy";

export const INVITE_TTL_MS = 7 * 24 * 60 * 60 * 1000;


export const inviteLink = (baseUrl: string, token: string) => `${baseUrl.replace(/\/+$/, "")}/invite/${token}`;

export type InviteStatus = "open" | "accepted" | "revoked" | "expired";

function statusOf(invite: InviteRecord, now: Date): InviteStatus {
  if (invite.acceptedAt) return "accepted";
  if (invite.revokedAt) return "revoked";
  return invite.expiresAt.getTime() <= now.getTime() ? "expired" : "open";
}

const toView = (invite: InviteRecord, now: Date): InviteView => ({
  id: invite.id,
  email: invite.email,
  role: invite.role,
  status: statusOf(invite, now),
  expiresAt: invite.expiresAt,
  createdAt: invite.createdAt,
  invitedBy: invite.invitedBy,
});

export interface CreateInviteOptions {
  tenant: TenantRecord;
  invitedById: string | null;
  email: string;
  role: TenantRole;
  /** Where the app is reached, for the link in the mail. */
  baseUrl: string;
  mailer?: FrameworkMailer;
  now?: Date;
}

/** Creates the invite and mails the link; the link is also returned once, for "copy link". */
export async function createInvite(
  prisma: Db,
  { tenant, invitedById, email, role, baseUrl, mailer = recordingMailer, now = new Date() }: CreateInviteOptions,
): Promise<{ invite: InviteView; link: string }> {
  const existing = await findUserByEmail(prisma, email);
  if (existing && (await findMembershipRole(prisma, tenant.id, existing.id))) {
    throw new TenancyError("CONFLICT", "This person is already a member.", "email");
  }
  const token = randomBytes(32).toString("base64url");
  const invite = await insertInvite(prisma, {
    tenantId: tenant.id,
    email,
    role,
    tokenHash: sha256Hex(token),
    invitedById,
    expiresAt: new Date(now.getTime() + INVITE_TTL_MS),
  });
  const link = inviteLink(baseUrl, token);
  const inviter = invitedById ? await findUserById(prisma, invitedById) : null;
  await mailer.send(prisma, {
    tenantId: tenant.id,
    to: email,
    kind: "tenant_invite",
    subject: `You are invited to ${tenant.name} on Inlay`,
    text:
      `${inviter?.name ?? inviter?.email ?? "An administrator"} invited you to join ${tenant.name} as ${role}.\n\n` +
      `Accept the invitation: ${link}\n\nThe link works once and expires on ${invite.expiresAt.toUTCString()}.`,
    links: [link],
  });
  return { invite: toView(invite, now), link };
}

export async function listInvites(prisma: Db, tenantId: string, now = new Date()): Promise<InviteView[]> {
  return (await listOpenInvites(prisma, tenantId)).map((invite) => toView(invite, now));
}

export async function revokeInvite(prisma: Db, tenantId: string, inviteId: string, now = new Date()) {
  if (!(await revokeOpenInvite(prisma, tenantId, inviteId, now))) throw new TenancyError("NOT_FOUND", "no such invite");
}

/** What the invite page shows to whoever holds the link. */
export async function describeInvite(prisma: Db, token: string, now = new Date()): Promise<InviteDescription> {
  const invite = await findInviteByTokenHash(prisma, sha256Hex(token));
  if (!invite) throw new TenancyError("NOT_FOUND", "This invite link is not valid.");
  return {
    tenant: { name: invite.tenant.name, slug: invite.tenant.slug },
    email: invite.email,
    role: invite.role,
    status: statusOf(invite, now),
    accountExists: (await findUserByEmail(prisma, invite.email)) !== null,
  };
}

const closedMessage: Record<Exclude<InviteStatus, "open">, string> = {
  accepted: "This invite has already been used.",
  revoked: "This invite was revoked.",
  expired: "This invite has expired: ask for a new one.",
};

export interface AcceptInviteOptions {
  token: string;
  /** The signed-in user, if any. */
  userId?: string;
  /** For an invitee without an account: the account to create with the invited email. */
  account?: { name: string; password: string };
  now?: Date;
}

export interface AcceptedInvite {
  tenant: { id: string; slug: string; name: string };
  email: string;
  role: TenantRole;
  createdAccount: boolean;
}

export async function acceptInvite(
  prisma: Db,
  { token, userId, account, now = new Date() }: AcceptInviteOptions,
): Promise<AcceptedInvite> {
  const invite = await findInviteByTokenHash(prisma, sha256Hex(token));
  if (!invite) throw new TenancyError("NOT_FOUND", "This invite link is not valid.");
  const status = statusOf(invite, now);
  if (status !== "open") throw new TenancyError("CONFLICT", closedMessage[status]);
  const result = { tenant: invite.tenant, email: invite.email, role: invite.role };

  if (userId) {
    const user = await findUserById(prisma, userId);
    // The invite names a person: a forwarded link must not let someone else in.
    if (!user || user.email !== invite.email) {
      throw new TenancyError("FORBIDDEN", `This invite is for ${invite.email}: sign in with that account.`);
    }
    await prisma.$transaction(async (tx) => {
      if (await findMembershipRole(tx, invite.tenantId, user.id)) {
        throw new TenancyError("CONFLICT", `You are already a member of ${invite.tenant.name}.`);
      }
      if (!(await consumeInvite(tx, invite.id, now))) throw new TenancyError("CONFLICT", closedMessage.accepted);
      await addMembership(tx, invite.tenantId, user.id, invite.role);
    });
    return { ...result, createdAccount: false };
  }

  if (!account) throw new TenancyError("BAD_REQUEST", "Choose a name and password to create your account.");
  if (await findUserByEmail(prisma, invite.email)) {
    throw new TenancyError("CONFLICT", `An account for ${invite.email} exists: sign in to accept.`);
  }
  // Hashing runs on the thread pool and before the transaction, which must stay short.
  const passwordHash = await hashPassword(account.password);
  try {
    await prisma.$transaction(async (tx) => {
      if (!(await consumeInvite(tx, invite.id, now))) throw new TenancyError("CONFLICT", closedMessage.accepted);
      const user = await createUser(tx, { email: invite.email, name: account.name, passwordHash });
      await addMembership(tx, invite.tenantId, user.id, invite.role);
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new TenancyError("CONFLICT", `An account for ${invite.email} exists: sign in to accept.`);
    }
    throw error;
  }
  return { ...result, createdAccount: true };
}
