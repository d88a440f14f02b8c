// Who may create an account with POST /signup (INLAY_SIGNUP): anyone (open), whoever holds an invite
// code the operator issued (invite), or nobody but the operator (closed). The operator key
// (X-Operator-Key, as on POST /operator/credits) and a caller in this process (the embedded framework
// provisioning its own account) may always. An invite names one email address and an expiry and is
// signed with the platform's secret (no table): the address's uniqueness makes it single-use, and
// changing INLAY_SECRET_KEY voids every invite still out.
import { createHmac, timingSafeEqual } from "node:crypto";
import { deriveKey } from "@/server/shared/secret-box";
import { PlatformError } from "../../errors";
import type { PlatformConfig } from "../../platform-config";
import { authenticateOperator } from "../billing/payments";

export type { SignupMode } from "../../platform-config";

export const INVITE_MAX_DAYS = 90;

const normalized = (email: string) => email.trim().toLowerCase();
const inviteMac = (config: PlatformConfig, email: string, expiresAt: number) =>
  createHmac("sha256", deriveKey(config.secretKey, "signup-invites")).update(`${normalized(email)}\n${expiresAt}`).digest("base64url");

/** An invite code for `email`, valid until `expiresAt` (the operator's POST /operator/signup-invites). */
export function signupInvite(config: PlatformConfig, email: string, expiresAt: Date): string {
  const seconds = Math.floor(expiresAt.getTime() / 1000);
  return `inv_${seconds}_${inviteMac(config, email, seconds)}`;
}

function inviteFits(config: PlatformConfig, email: string, code: string, now: Date): boolean {
  const match = /^inv_(\d{1,12})_([A-Za-z0-9_-]{43})$/.exec(code);
  if (!match) return false;
  const seconds = Number(match[1]);
  if (seconds * 1000 <= now.getTime()) return false;
  const expected = Buffer.from(inviteMac(config, email, seconds));
  const given = Buffer.from(match[2]!);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export interface SignupCaller {
  email: string;
  inviteCode?: string;
  /** The X-Operator-Key header (or undefined): checked when sent, a wrong one is 401. */
  operatorKey?: string;
  /** Called by code in this process (app.fetch's bindings), not over HTTP. */
  inProcess: boolean;
}

/** Throws the spec's 403 (permission_error) when this installation's setting refuses the sign-up. */
export function admitSignup(config: PlatformConfig, caller: SignupCaller, now = new Date()): void {
  if (caller.operatorKey !== undefined) return authenticateOperator(config, caller.operatorKey);
  const mode = config.signup ?? "open";
  if (mode === "open" || caller.inProcess) return;
  if (mode === "invite") {
    if (caller.inviteCode === undefined) {
      throw new PlatformError({
        type: "permission_error",
        errorCode: "invite_required",
        message: "sign-up on this platform needs an invite: send the invite_code its operator gave you",
      });
    }
    if (inviteFits(config, caller.email, caller.inviteCode, now)) return;
    throw new PlatformError({
      type: "permission_error",
      errorCode: "invite_invalid",
      message: "invite_code: not valid for this email, or expired; ask the platform's operator for a new one",
    });
  }
  throw new PlatformError({
    type: "permission_error",
    errorCode: "signup_closed",
    message: "sign-up on this platform is closed: its operator creates accounts",
  });
}
