// Shapes every resource shares: ids, timestamps, paging, the end-user scope, the error envelope.
// Plain zod (no server imports): the server validates with these, /openapi.json is generated from
// them, and packages/core/src/platform-client and the UI type themselves from them.
import { z } from "zod";

// Written with Z here; read with an offset too (UTC as "+00:00", as other implementations of the API
// write it): a tRPC output or a replay window from another platform must not fail on its notation.
export const Timestamp = z.iso.datetime({ offset: true }).meta({ description: "ISO 8601 timestamp in UTC" });

/** The largest id an `integer` column holds; a larger one names nothing and must not reach SQL. */
export const MAX_INT_ID = 2_147_483_647;

/** A path id: a positive integer written in the URL. */
export const IntId = z.coerce
  .number({ error: "must be an integer id" })
  .int("must be an integer id")
  .positive("must be a positive integer id")
  .max(MAX_INT_ID, `must be an integer id (at most ${MAX_INT_ID})`);

/** An id in a JSON body: a JSON integer, never coerced (`"teammate_id": true` is not agent 1). */
export const BodyId = z
  .number({ error: "must be an integer id" })
  .int("must be an integer id")
  .positive("must be a positive integer id")
  .max(MAX_INT_ID, `must be an integer id (at most ${MAX_INT_ID})`);

export const UserId = z
  .string()
  .trim()
  .min(1, "must not be blank")
  .max(255, "must be at most 255 characters")
  .meta({ description: "End-user scope: your own opaque id for one of your users" });

export const UserScopeQuery = z.object({ user_id: UserId.optional() });

/**
 * The Idempotency-Key header of the run-creating operations. Documented here; enforced (and answered
 * with 422 naming the header) by the server's idempotency middleware, which runs before validation.
 */
export const IdempotencyKeyHeaders = z.object({
  "idempotency-key": z
    .string()
    .regex(/^[\x20-\x7e]{1,255}$/, "must be 1-255 printable ASCII characters")
    .optional()
    .meta({
      description:
        "Retries with the same key and the same request, for 24 hours, return the run the first request created " +
        "(200, as JSON, with Idempotent-Replay: true) instead of starting another. Scoped to the account.",
    }),
});

/** A boolean in the query string: true/false (or 1/0). */
export const QueryBoolean = z
  .enum(["true", "false", "1", "0"], { error: "must be true or false" })
  .transform((value) => value === "true" || value === "1");

export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).meta({ description: "1-100, default 20" }),
  starting_after: IntId.optional().meta({ description: "The id of the last item received" }),
});

export const listEnvelope = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), has_more: z.boolean() });

export interface Page<T> {
  data: T[];
  has_more: boolean;
}

export const Metadata = z.record(z.string(), z.unknown());

export const METADATA_MAX_BYTES = 10_240;

// Measured as UTF-8 bytes of the JSON text, since that is what the limit protects: storage and payloads.
// TextEncoder rather than Buffer: these schemas also run in the browser.
export const BoundedMetadata = Metadata.refine(
  (value) => new TextEncoder().encode(JSON.stringify(value)).length <= METADATA_MAX_BYTES,
  `metadata must not exceed ${METADATA_MAX_BYTES} bytes serialized`,
);

export const ErrorEnvelope = z
  .object({
    error: z.object({
      type: z.string(),
      message: z.string(),
      code: z.number().int(),
      request_id: z.string(),
      doc_url: z.string(),
      error_code: z.string().optional(),
      details: z.record(z.string(), z.unknown()).optional(),
      topup_url: z.string().optional().meta({ description: "With TOKEN_BALANCE_DEPLETED: where to top up" }),
    }),
  })
  .meta({ id: "Error" });
