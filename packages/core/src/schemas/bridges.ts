// iMessage bridges (/bridges): an account's connection to a self-hosted bridge server (docs/platform-api.md,
// "Bridges"). Account-scoped: no user_id. The password is write-only; the inbound secret and link codes
// are shown once.
import { z } from "zod";
import { IntId, PageQuery, Timestamp, UserId } from "./common";

export const BRIDGE_STATUSES = ["active", "paused"] as const;
export const BridgeStatus = z.enum(BRIDGE_STATUSES);

export const BRIDGE_URL_MAX_CHARS = 2_048;
export const BRIDGE_PASSWORD_MAX_CHARS = 1_024;
export const BRIDGE_TEXT_MAX_CHARS = 64_000;
export const CHAT_GUID_MAX_CHARS = 255;

const E164 = /^\+[1-9]\d{6,14}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * A handle as iMessage names a sender: an E.164 phone number or an email address. Compared in one form:
 * phone numbers without spaces, dashes, dots or parentheses, email addresses in lower case.
 */
export function normalizeHandle(handle: string): string {
  const trimmed = handle.trim();
  if (trimmed.includes("@")) return trimmed.toLowerCase();
  return trimmed.replace(/[\s().-]/g, "");
}

export const isHandle = (value: string) => {
  const normalized = normalizeHandle(value);
  return E164.test(normalized) || EMAIL.test(normalized);
};

export const Handle = z
  .string()
  .trim()
  .min(1, "must not be blank")
  .max(255, "must be at most 255 characters")
  .refine(isHandle, "must be a phone number in E.164 form (+15551234567) or an email address")
  .transform(normalizeHandle)
  .meta({ description: "A phone number in E.164 form or an email address" });

const BridgeName = z.string().trim().min(1, "must not be blank").max(255, "must be at most 255 characters");
const ServerUrl = z
  .string()
  .trim()
  .min(1, "must not be blank")
  .max(BRIDGE_URL_MAX_CHARS, `must be at most ${BRIDGE_URL_MAX_CHARS} characters`)
  .meta({ description: "The bridge server's base URL: https (http only to loopback where outbound loopback is allowed)" });
const Password = z
  .string()
  .min(1, "must not be empty")
  .max(BRIDGE_PASSWORD_MAX_CHARS, `must be at most ${BRIDGE_PASSWORD_MAX_CHARS} characters`)
  .meta({ description: "The bridge server's password: stored encrypted, never returned" });

/** Bridges are account-scoped: a user_id in the body is refused rather than ignored. */
const NoUserId = z
  .unknown()
  .refine((value) => value === undefined, "is not accepted: bridges are account-scoped, so omit user_id")
  .optional()
  .meta({ description: "Not accepted: bridges are account-scoped" });

export const BridgeCreate = z.object({
  name: BridgeName.optional().meta({ description: "Omitted: the server URL's host" }),
  server_url: ServerUrl,
  password: Password,
  owner_handle: Handle.nullable().optional().meta({ description: "May text the account's lead agent" }),
  user_id: NoUserId,
});

export const BridgeUpdate = z.object({
  name: BridgeName.optional(),
  server_url: ServerUrl.optional(),
  password: Password.optional(),
  status: BridgeStatus.optional().meta({ description: "paused: inbound messages start no run and get no answer" }),
  owner_handle: Handle.nullable().optional().meta({ description: "null removes it" }),
  user_id: NoUserId,
});

export const Bridge = z
  .object({
    id: z.number().int(),
    name: z.string(),
    server_url: z.string(),
    owner_handle: z.string().nullable(),
    status: BridgeStatus,
    has_password: z.boolean().meta({ description: "Always true: the password is required and never returned" }),
    has_inbound_secret: z.boolean().meta({ description: "Whether POST .../rotate-secret has made one" }),
    inbound_url: z.string().meta({ description: "Where the bridge server delivers inbound messages (Inlay extension)" }),
    secret_rotated_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "Bridge" });

export const BridgeSecret = Bridge.extend({
  inbound_secret: z.string().meta({ description: "Shown only here; the previous secret stops working at once" }),
}).meta({ id: "BridgeSecret" });

export const BridgeLinkCode = z
  .object({
    bridge_id: z.number().int(),
    code: z.string().meta({ description: "Text it to the bridge from the handle to link; single use" }),
    expires_at: Timestamp,
  })
  .meta({ id: "BridgeLinkCode" });

export const BridgeTestResult = z
  .object({
    ok: z.boolean().meta({ description: "The server answered 2xx" }),
    status: z.number().int().nullable().meta({ description: "Its HTTP status; null when it could not be reached" }),
    latency_ms: z.number().int(),
    error: z.string().nullable().meta({ description: "Why it is not ok" }),
  })
  .meta({ id: "BridgeTestResult" });

export const BridgeHandle = z
  .object({ id: z.number().int(), bridge_id: z.number().int(), handle: z.string(), created_at: Timestamp })
  .meta({ id: "BridgeHandle" });

export const BridgeIdParam = z.object({ bridge_id: IntId });
export const BridgeHandleParams = z.object({ bridge_id: IntId, handle_id: IntId });
export const BridgeListQuery = PageQuery;

export const BridgeProvisionAlt = z.object({
  number: z
    .string()
    .trim()
    .regex(E164, "must be a phone number in E.164 form (+15551234567)")
    .meta({ description: "The line's number, E.164" }),
  api_key: z.string().min(1, "must not be empty").max(1_024, "must be at most 1024 characters").optional(),
  user_id: UserId.optional(),
});

/** What the bridge server POSTs to the inbound URL (Inlay extension), with X-Bridge-Secret. */
export const BridgeInbound = z.object({
  handle: z.string().trim().min(1, "must not be blank").max(255, "must be at most 255 characters").meta({ description: "The sender" }),
  chat_guid: z
    .string()
    .trim()
    .min(1, "must not be blank")
    .max(CHAT_GUID_MAX_CHARS, `must be at most ${CHAT_GUID_MAX_CHARS} characters`)
    .meta({ description: "The chat, where the answer goes" }),
  text: z.string().max(BRIDGE_TEXT_MAX_CHARS, `must be at most ${BRIDGE_TEXT_MAX_CHARS} characters`),
  message_guid: z
    .string()
    .trim()
    .min(1, "must not be blank")
    .max(255, "must be at most 255 characters")
    .optional()
    .meta({ description: "The bridge server's message id: the same message delivered again starts nothing new" }),
});

export const BridgeInboundHeaders = z.object({
  "x-bridge-secret": z.string().max(255).optional().meta({ description: "The bridge's inbound secret (POST .../rotate-secret)" }),
});

export const BridgeInboundReceived = z
  .object({ received: z.literal(true) })
  .meta({ id: "BridgeInboundReceived", description: "The same answer whatever became of the message, so it tells nothing of the agents" });
