// Verifies the platform's webhook deliveries (Standard Webhooks: webhook-id, webhook-timestamp,
// webhook-signature = "v1,<base64 HMAC-SHA256>" entries over `${id}.${timestamp}.${body}`).
// Web Crypto only, so a vendor can verify in Node, an edge runtime or a worker alike.
import type { z } from "zod";
import type { DeliveredEventType, LowBalanceEvent, RUN_WEBHOOK_PAYLOADS, WebhookTestEvent } from "../schemas/webhooks";

// The kinds and bodies are the contract's (packages/core/src/schemas/webhooks.ts), as types only: verifying needs no zod.

/** Every kind a delivery carries: the subscribable ones and the test event. */
export type WebhookEventType = z.infer<typeof DeliveredEventType>;

type RunPayloads = typeof RUN_WEBHOOK_PAYLOADS;
/** A run's event (run.started, run.completed, …): the run's id, status and scope. */
export type RunWebhookEvent = { [K in keyof RunPayloads]: z.infer<RunPayloads[K]> }[keyof RunPayloads];

/**
 * A delivery's body: narrow it on `type`. Its fields as the contract lists them; a body is checked for
 * its signature, not its shape, so a newer platform's additions come through unlisted.
 */
export type WebhookEvent = RunWebhookEvent | z.infer<typeof LowBalanceEvent> | z.infer<typeof WebhookTestEvent>;

/** Whether the event is a run's (its `run_id`, `status` and `teammate_id` are there). */
export const isRunWebhookEvent = (event: WebhookEvent): event is RunWebhookEvent => event.type.startsWith("run.");

export type WebhookVerificationReason = "missing_headers" | "timestamp_out_of_range" | "bad_signature" | "bad_secret" | "bad_payload";

/** Not a PlatformApiError: no call to the platform failed, a delivery did not verify. Branch on `reason`. */
export class WebhookVerificationError extends Error {
  override name = "WebhookVerificationError";
  readonly reason: WebhookVerificationReason;
  constructor(reason: WebhookVerificationReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far the webhook-timestamp may be from now, either way (seconds). Default 300. */
  toleranceSeconds?: number;
  /** The current time in milliseconds (tests). Default Date.now. */
  now?: () => number;
}

const SECRET_PREFIX = "whsec_";
const SHA256_BYTES = 32;

/**
 * Checks a delivery's signature and timestamp and returns its parsed body. `payload` must be the raw
 * body exactly as received (parsing and re-serialising JSON changes the bytes). `secret` is the
 * endpoint's `whsec_…` secret (raw base64 is accepted too). Any one matching `v1` entry is enough, so
 * deliveries verify during a secret rotation. Throws WebhookVerificationError.
 */
export async function verifyWebhook(
  payload: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const key = await importSecret(secret);

  const id = readHeader(headers, "webhook-id");
  const timestampHeader = readHeader(headers, "webhook-timestamp");
  const signatureHeader = readHeader(headers, "webhook-signature");
  if (!id || !timestampHeader || !signatureHeader) {
    const missing = [!id && "webhook-id", !timestampHeader && "webhook-timestamp", !signatureHeader && "webhook-signature"];
    throw new WebhookVerificationError("missing_headers", `missing header: ${missing.filter(Boolean).join(", ")}`);
  }
  if (!/^\d+$/.test(timestampHeader)) {
    throw new WebhookVerificationError("missing_headers", `webhook-timestamp is not a unix time in seconds: ${timestampHeader.slice(0, 32)}`);
  }

  const timestamp = Number(timestampHeader);
  const now = Math.floor((options.now ?? Date.now)() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now - timestamp) > tolerance) {
    const skew = now - timestamp;
    throw new WebhookVerificationError(
      "timestamp_out_of_range",
      `webhook-timestamp is ${Math.abs(skew)} s ${skew > 0 ? "old" : "in the future"}; the tolerance is ${tolerance} s`,
    );
  }

  const body = typeof payload === "string" ? new TextEncoder().encode(payload) : payload;
  const signed = concat(new TextEncoder().encode(`${id}.${timestampHeader}.`), body);
  let matched = false;
  for (const signature of v1Signatures(signatureHeader)) {
    // subtle.verify compares in constant time. Each entry costs one HMAC of the body; entries that
    // cannot match (another version, not base64, not 32 bytes) are skipped without one.
    if (await crypto.subtle.verify("HMAC", key, signature, signed)) {
      matched = true;
      break;
    }
  }
  if (!matched) throw new WebhookVerificationError("bad_signature", "no webhook-signature entry matches the body and the secret");

  let event: unknown;
  try {
    event = JSON.parse(typeof payload === "string" ? payload : new TextDecoder().decode(payload));
  } catch (cause) {
    throw new WebhookVerificationError("bad_payload", "the signed body is not JSON", { cause });
  }
  if (typeof event !== "object" || event === null || Array.isArray(event)) {
    throw new WebhookVerificationError("bad_payload", "the signed body is not a JSON object");
  }
  return event as WebhookEvent;
}

async function importSecret(secret: string): Promise<CryptoKey> {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const bytes = decodeBase64(encoded);
  if (bytes === undefined || bytes.length === 0) {
    throw new WebhookVerificationError("bad_secret", "the webhook secret is not `whsec_` followed by base64 (or base64 alone)");
  }
  return crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
}

/** A header's value from Headers or a plain record, looked up case-insensitively; repeated values are joined as Headers#get joins them. */
export function readHeader(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === "function") return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() === name && value !== undefined) return Array.isArray(value) ? value.join(", ") : value;
  }
  return undefined;
}

/** The decoded signatures of the header's `v1,<base64>` entries (space-separated). */
function* v1Signatures(header: string): Generator<Uint8Array<ArrayBuffer>> {
  for (const entry of header.split(/\s+/)) {
    // A trailing comma is the separator of a repeated header joined by Headers#get; base64 has none.
    const [version, encoded] = entry.replace(/,$/, "").split(",", 2);
    if (version !== "v1" || encoded === undefined) continue;
    const signature = decodeBase64(encoded);
    if (signature?.length === SHA256_BYTES) yield signature;
  }
}

function decodeBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return undefined;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
