// Accounts, keys and verification: request and response contracts.
import { z } from "zod";
import { IntId, Timestamp } from "./common";

export const Account = z
  .object({
    id: z.number().int(),
    email: z.string(),
    first_name: z.string(),
    product: z.string().nullable(),
    require_end_user_id: z.boolean(),
    email_verified: z.boolean(),
    created_at: Timestamp,
  })
  .meta({ id: "Account" });

export const ApiKeyInfo = z
  .object({
    id: z.number().int(),
    name: z.string(),
    kind: z.enum(["default", "named"]),
    hint: z.string().meta({ description: "The key's first characters and last four" }),
    created_at: Timestamp,
    expires_at: Timestamp.nullable(),
    last_used_at: Timestamp.nullable(),
  })
  .meta({ id: "ApiKey" });

/** A key as returned once, at creation or rotation: the only time the secret is shown. */
export const ApiKeyWithSecret = ApiKeyInfo.extend({
  key: z.string().meta({ description: "The full key. Shown once; store it now." }),
}).meta({ id: "ApiKeyWithSecret" });

export const Password = z.string().min(8, "must be at least 8 characters").max(1024);

export const SignupRequest = z.object({
  email: z.email("must be an email address").max(255),
  first_name: z.string().trim().min(1, "must not be blank").max(255),
  password: Password.optional(),
  product: z.string().max(255).optional(),
  require_end_user_id: z.boolean().optional(),
});

export const SignupResponse = z
  .object({ account: Account, api_key: z.string(), key: ApiKeyInfo })
  .meta({ id: "SignupResponse" });

export const TokenRequest = z.object({ email: z.email().max(255), password: z.string().min(1).max(1024) });

export const VerifyStatus = z
  .object({
    email: z.string(),
    verified: z.boolean(),
    verified_at: Timestamp.nullable(),
    unverified_run_limit: z.number().int(),
  })
  .meta({ id: "VerifyStatus" });

export const KeyIdParam = z.object({ key_id: IntId });
