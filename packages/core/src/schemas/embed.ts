// Contracts of the embed's server-to-server side: the tenant admins' embed secrets (tRPC
// embedSecrets.*, the Embed page) and the body a vendor's backend sends to POST /api/embed/sessions.
import { z } from "zod";

export const embedSecretNameSchema = z
  .string()
  .trim()
  .min(1, { message: "Give the secret a name." })
  .max(60, { message: "Use at most 60 characters." });

export const createEmbedSecretInput = z.object({ name: embedSecretNameSchema });
export const rotateEmbedSecretInput = z.object({ id: z.uuid(), name: embedSecretNameSchema.optional() });

export const EmbedSecretView = z.object({
  id: z.string(),
  name: z.string(),
  /** The secret's first characters (inlay_es_…), to tell secrets apart. */
  prefix: z.string(),
  createdAt: z.date(),
  lastUsedAt: z.date().nullable(),
  revokedAt: z.date().nullable(),
});
export type EmbedSecretView = z.infer<typeof EmbedSecretView>;
/** The full secret: in create's and rotate's answer only. */
export const EmbedSecretCreated = EmbedSecretView.extend({ secret: z.string() });
export const EmbedSecretRotated = z.object({ created: EmbedSecretCreated, revoked: EmbedSecretView });

/** The seconds an embed token may live (server/framework/embed/tokens.ts EMBED_TOKEN_MAX_SECONDS). */
export const EMBED_SESSION_TTL = { min: 30, max: 600 } as const;

/** POST /api/embed/sessions: who the visitor is in the vendor's product, and what the token opens. */
export const embedSessionInput = z.object({
  /** The vendor's own id of its user: the same id is the same Inlay member of the tenant. */
  user_id: z.string().trim().min(1).max(200),
  email: z.string().trim().toLowerCase().pipe(z.email().max(254)),
  name: z.string().trim().min(1).max(100).optional(),
  /** A tenant agent (its name or id); the token then opens only that one. */
  agent: z.string().trim().min(1).max(255).optional(),
  /** The host page's origin; may be left out when the tenant allows exactly one. */
  origin: z.string().min(1).max(2048).optional(),
  ttl_seconds: z.number().int().min(EMBED_SESSION_TTL.min).max(EMBED_SESSION_TTL.max).optional(),
});
export type EmbedSessionInput = z.infer<typeof embedSessionInput>;
