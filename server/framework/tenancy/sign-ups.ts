// Open sign-up under the installation owner's control: the setting (open, approval, closed), the
// limits a workspace made by sign-up starts with (SIGNUP_WORKSPACE_*), and sign-ups held for the
// owner's approval. Used by the sign-up page's procedure (server/framework/auth/sign-up.ts), OAuth sign-in
// (server/framework/auth/oauth.ts) and the owner's console (router signUps).
import { env } from "@/lib/env";
import type { SignUpMode } from "@inlay/core/schemas/tenancy";
import type { Db } from "@/server/shared/db";
import { TenancyError } from "./errors";
import { hasOpenInviteFor } from "./invites-repository";
import { upsertTenantLimits, type TenantLimitsRecord } from "./limits-repository";
import { recordingMailer, type FrameworkMailer } from "./mailer";
import { createUser, findUserByEmail, type TenantRecord, type Tx, type UserRecord } from "./repository";
import {
  findSignUpMode,
  findSignUpRequestByEmail,
  insertSignUpRequest,
  listSignUpRequestRows,
  saveSignUpMode,
  takeSignUpRequest,
} from "./sign-up-repository";
import { createTenantWithAdmin } from "./tenants";

export const EMAIL_TAKEN = "An account with this email exists: sign in instead.";
export const SIGN_UP_CLOSED = "Sign-up is closed on this installation: ask its owner or a workspace admin for an invite.";
const ALREADY_HELD = "A sign-up with this email is already waiting for the owner's approval.";

/** The limits a workspace made by sign-up starts with (lib/env.ts SIGNUP_WORKSPACE_*). */
export function signUpWorkspaceLimits(): Pick<TenantLimitsRecord, "runsPerMonth" | "costPerMonthCents" | "concurrentRuns" | "turnsPerMinutePerMember"> {
  return {
    runsPerMonth: env.SIGNUP_WORKSPACE_RUNS_PER_MONTH,
    costPerMonthCents: env.SIGNUP_WORKSPACE_COST_PER_MONTH_CENTS,
    concurrentRuns: env.SIGNUP_WORKSPACE_CONCURRENT_RUNS,
    turnsPerMinutePerMember: env.SIGNUP_WORKSPACE_TURNS_PER_MINUTE,
  };
}

/** A workspace for a signed-up user (its first admin), with the sign-up limits, in the caller's transaction. */
export async function createSignUpWorkspace(tx: Tx, name: string, userId: string): Promise<TenantRecord> {
  const tenant = await createTenantWithAdmin(tx, name, userId);
  await upsertTenantLimits(tx, tenant.id, signUpWorkspaceLimits());
  return tenant;
}

export const getSignUpMode = (prisma: Db): Promise<SignUpMode> => findSignUpMode(prisma);

export async function setSignUpMode(prisma: Db, mode: SignUpMode): Promise<SignUpMode> {
  await saveSignUpMode(prisma, mode);
  return mode;
}

/** Holds a sign-up for the owner (mode approval). CONFLICT when the email has an account or a held sign-up. */
export async function holdSignUp(
  prisma: Db,
  request: { email: string; name: string | null; passwordHash: string | null; tenantName: string },
): Promise<void> {
  if (await findUserByEmail(prisma, request.email)) throw new TenancyError("CONFLICT", EMAIL_TAKEN, "email");
  if (!(await insertSignUpRequest(prisma, request))) throw new TenancyError("CONFLICT", ALREADY_HELD, "email");
}

export interface SignUpRequestView {
  id: string;
  email: string;
  name: string | null;
  tenantName: string;
  createdAt: string;
}

export async function listSignUpRequests(prisma: Db): Promise<SignUpRequestView[]> {
  return (await listSignUpRequestRows(prisma)).map(({ id, email, name, tenantName, createdAt }) => ({
    id,
    email,
    name,
    tenantName,
    createdAt: createdAt.toISOString(),
  }));
}

/**
 * Approves a held sign-up: the user and their workspace (with the sign-up limits) are created and the
 * request is gone, in one transaction; the person is told by mail where to sign in. NOT_FOUND when it
 * was decided already; CONFLICT when the email got an account meanwhile (through an invite).
 */
export async function approveSignUp(
  prisma: Db,
  id: string,
  options: { signInUrl: string; mailer?: FrameworkMailer },
): Promise<{ user: UserRecord; tenant: TenantRecord }> {
  const created = await prisma.$transaction(async (tx) => {
    const request = await takeSignUpRequest(tx, id);
    if (!request) throw new TenancyError("NOT_FOUND", "no such sign-up request");
    if (await findUserByEmail(tx, request.email)) throw new TenancyError("CONFLICT", `${request.email} has an account already: reject this request.`);
    const user = await createUser(tx, { email: request.email, name: request.name, passwordHash: request.passwordHash });
    const tenant = await createSignUpWorkspace(tx, request.tenantName, user.id);
    return { user, tenant };
  });
  await (options.mailer ?? recordingMailer).send(prisma, {
    tenantId: created.tenant.id,
    to: created.user.email,
    subject: `Your workspace ${created.tenant.name} is ready`,
    text: `The owner approved your sign-up. Sign in at ${options.signInUrl}`,
    kind: "sign_up_approved",
    links: [options.signInUrl],
  });
  return created;
}

export async function rejectSignUp(prisma: Db, id: string): Promise<void> {
  if (!(await takeSignUpRequest(prisma, id))) throw new TenancyError("NOT_FOUND", "no such sign-up request");
}

/**
 * A first OAuth sign-in of an email with no account: allowed when an invite waits for it (they accept
 * it) or sign-up is open; held for the owner under approval; refused when closed.
 */
export async function oauthSignUpDecision(
  prisma: Db,
  profile: { email: string; name: string | null },
  now = new Date(),
): Promise<"allow" | "held" | "closed"> {
  const email = profile.email.trim().toLowerCase();
  if (await findUserByEmail(prisma, email)) return "allow";
  if (await hasOpenInviteFor(prisma, email, now)) return "allow";
  const mode = await findSignUpMode(prisma);
  if (mode === "open") return "allow";
  if (mode === "closed") return "closed";
  if (!(await findSignUpRequestByEmail(prisma, email))) {
    await insertSignUpRequest(prisma, { email, name: profile.name, passwordHash: null, tenantName: `${profile.name ?? email.split("@")[0]}'s workspace` });
  }
  return "held";
}
