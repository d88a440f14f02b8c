// A tenant's embed secrets (docs/embedding.md, "From your backend"): tenant admins create, rotate and
// revoke them on the Embed page; the vendor's backend sends one as a bearer token to mint embed tokens
// (POST /api/embed/sessions). A secret is 32 random bytes; only its SHA-256 is stored, so the full
// value is shown once, at creation.
import { randomBytes } from "node:crypto";
import type { EmbedSecretView } from "@inlay/core/schemas/embed";
import type { Db } from "@/server/shared/db";
import { TenancyError } from "@/server/framework/tenancy/errors";
import {
  findEmbedSecret,
  findEmbedSecretByHash,
  insertEmbedSecret,
  listEmbedSecretRows,
  revokeEmbedSecretRow,
  touchEmbedSecret,
  type EmbedSecretRecord,
} from "./secrets-repository";
import { sha256Hex } from "@/server/shared/secret-box";

const SECRET_PREFIX = "inlay_es_";
/** How much of the secret the list shows: the fixed prefix and 6 random characters. */
const SHOWN_CHARS = SECRET_PREFIX.length + 6;


const toView = (row: EmbedSecretRecord): EmbedSecretView => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  createdAt: row.createdAt,
  lastUsedAt: row.lastUsedAt,
  revokedAt: row.revokedAt,
});

export async function listEmbedSecrets(prisma: Db, tenantId: string): Promise<EmbedSecretView[]> {
  return (await listEmbedSecretRows(prisma, tenantId)).map(toView);
}

/** A new secret; `secret` is its full value, which is never readable again. */
export async function createEmbedSecret(
  prisma: Db,
  tenantId: string,
  input: { name: string; createdById: string | null },
): Promise<EmbedSecretView & { secret: string }> {
  const secret = `${SECRET_PREFIX}${randomBytes(32).toString("base64url")}`;
  const row = await insertEmbedSecret(prisma, {
    tenantId,
    name: input.name,
    prefix: secret.slice(0, SHOWN_CHARS),
    secretHash: sha256Hex(secret),
    createdById: input.createdById,
  });
  return { ...toView(row), secret };
}

/** Revokes a live secret: its next use is refused. NOT_FOUND for another tenant's or a revoked one. */
export async function revokeEmbedSecret(prisma: Db, tenantId: string, id: string, now = new Date()): Promise<EmbedSecretView> {
  if (!(await revokeEmbedSecretRow(prisma, tenantId, id, now))) throw new TenancyError("NOT_FOUND", "no such live embed secret");
  return toView((await findEmbedSecret(prisma, tenantId, id))!);
}

/**
 * Rotation: a new secret (named after the old one unless a name is given) and the old one revoked.
 * Backends that still hold the old secret are refused from now on, so deploy the new one first
 * (or create a new secret, deploy it, then revoke the old one, for an overlap).
 */
export async function rotateEmbedSecret(
  prisma: Db,
  tenantId: string,
  input: { id: string; name?: string; createdById: string | null },
): Promise<{ created: EmbedSecretView & { secret: string }; revoked: EmbedSecretView }> {
  const old = await findEmbedSecret(prisma, tenantId, input.id);
  if (!old || old.revokedAt) throw new TenancyError("NOT_FOUND", "no such live embed secret");
  const created = await createEmbedSecret(prisma, tenantId, { name: input.name ?? old.name, createdById: input.createdById });
  const revoked = await revokeEmbedSecret(prisma, tenantId, old.id);
  return { created, revoked };
}

/** The tenant a presented secret belongs to, or null (unknown, malformed or revoked). */
export async function authenticateEmbedSecret(prisma: Db, presented: string, now = new Date()): Promise<{ tenantId: string; secretId: string } | null> {
  if (!presented.startsWith(SECRET_PREFIX) || presented.length > 200) return null;
  const row = await findEmbedSecretByHash(prisma, sha256Hex(presented));
  if (!row || row.revokedAt) return null;
  await touchEmbedSecret(prisma, row.id, now);
  return { tenantId: row.tenantId, secretId: row.id };
}
