// Browser sessions of account holders (an extension: the spec does not show how session tokens are
// issued) and the password change: request and response contracts.
import { z } from "zod";
import { IntId, Timestamp } from "./common";
import { Password } from "./accounts";

export const SessionLoginRequest = z.object({
  email: z.email("must be an email address").max(255),
  password: z.string().min(1, "must not be blank").max(1024),
  org_id: IntId.optional().meta({
    description: "Act as this team's account (you must be a member); omit for your own account",
  }),
});

export const SessionRefreshRequest = z.object({ refresh_token: z.string().min(1, "must not be blank").max(255) });

export const SessionPair = z
  .object({
    session_id: z.number().int(),
    account_id: z.number().int().meta({ description: "The account the session acts as (your own, or a team's)" }),
    role: z.enum(["owner", "admin", "member"]).meta({ description: "Your role in that account" }),
    token_type: z.literal("bearer"),
    access_token: z.string().meta({ description: "Send as Authorization: Bearer <access_token>. Shown once." }),
    access_token_expires_at: Timestamp,
    expires_in: z.number().int().meta({ description: "Seconds until the access token expires" }),
    refresh_token: z.string().meta({ description: "Trade for a new pair at POST /account/sessions/refresh. Shown once." }),
    refresh_token_expires_at: Timestamp,
  })
  .meta({ id: "SessionPair" });

export const SessionsRevoked = z
  .object({ revoked: z.number().int().meta({ description: "Sessions ended, this one included" }) })
  .meta({ id: "SessionsRevoked" });

export const PasswordChangeRequest = z.object({
  current_password: z.string().min(1, "must not be blank").max(1024),
  new_password: Password,
});
