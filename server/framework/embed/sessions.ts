// Minting from the vendor's own backend (POST /api/embed/sessions): an embed secret names the tenant,
// the body names the vendor's user. That user is an Inlay member of the tenant, provisioned on first
// use (keyed by tenant and the vendor's user id) and from then on under the tenant's limits and member
// caps like any member; the token is bound to one of the tenant's allowed origins as any embed token.
import { randomBytes } from "node:crypto";
import type { EmbedSessionInput } from "@inlay/core/schemas/embed";
import type { Db } from "@/server/shared/db";
import { isUniqueViolation } from "@/server/shared/db-errors";
import { chatStorageScope } from "@/server/framework/chat/storage-scope";
import { findTenantById } from "@/server/framework/tenancy/repository";
import { mintEmbedToken } from "./mint";
import { getAllowedOrigins, isAllowedOrigin } from "./origins";
import { authenticateEmbedSecret } from "./secrets";
import { normalizeOrigin } from "./tokens";
import { findEmbedUser, findTenantAgentRef, hasMembership, insertEmbedUser, updateEmbedUser } from "./secrets-repository";

export type EmbedSessionRefusal =
  | "invalid_secret"
  | "agent_not_found"
  | "origin_required"
  | "invalid_origin"
  | "origin_not_allowed"
  | "member_removed";

export class EmbedSessionError extends Error {
  override name = "EmbedSessionError";
  constructor(
    readonly reason: EmbedSessionRefusal,
    message: string,
    /** The body field the refusal is about. */
    readonly field?: string,
  ) {
    super(message);
  }
}

export interface EmbedSession {
  token: string;
  expiresAt: Date;
  tenant: string;
  origin: string;
  userId: string;
  agent?: string;
  /** Whose conversations the browser keeps (chat/storage-scope.ts): opaque, per tenant and user. */
  storageScope: string;
}

/**
 * The Inlay user for the vendor's user `externalId` in the tenant, made on first use. The vendor's
 * email is kept on the link row, never matched against existing accounts: an address nobody verified
 * must neither reach another person's account nor block its owner from signing up. The user's own
 * email is an unroutable placeholder (no password, no OAuth provider verifies `.invalid`), so the
 * user signs in through embed tokens only.
 */
async function provisionEmbedUser(
  prisma: Db,
  tenantId: string,
  input: { externalId: string; email: string; name: string | null },
): Promise<string> {
  const found = await findEmbedUser(prisma, tenantId, input.externalId);
  if (found) {
    // Removed by an admin: the vendor's backend does not bring them back by itself.
    if (!(await hasMembership(prisma, tenantId, found.userId))) {
      throw new EmbedSessionError("member_removed", "this user was removed from the workspace; a workspace admin removed them on purpose");
    }
    if (found.email !== input.email || (input.name !== null && found.name !== input.name)) {
      await updateEmbedUser(prisma, tenantId, input.externalId, found.userId, { email: input.email, name: input.name ?? found.name });
    }
    return found.userId;
  }
  try {
    const userEmail = `embed-${randomBytes(12).toString("hex")}@users.embed.invalid`;
    return (await insertEmbedUser(prisma, { tenantId, ...input, userEmail })).userId;
  } catch (error) {
    // Two first mints for one user at once: the link's primary key picks one, the other reads it.
    if (isUniqueViolation(error)) {
      const again = await findEmbedUser(prisma, tenantId, input.externalId);
      if (again) return again.userId;
    }
    throw error;
  }
}

/** A short-lived embed token for the vendor's user, or EmbedSessionError saying what is wrong. */
export async function mintEmbedSession(prisma: Db, presentedSecret: string, input: EmbedSessionInput): Promise<EmbedSession> {
  const secret = await authenticateEmbedSecret(prisma, presentedSecret);
  if (!secret) throw new EmbedSessionError("invalid_secret", "the embed secret is unknown or revoked");
  const tenant = await findTenantById(prisma, secret.tenantId);
  if (!tenant) throw new EmbedSessionError("invalid_secret", "the embed secret is unknown or revoked");

  if (input.agent !== undefined && !(await findTenantAgentRef(prisma, tenant.id, input.agent))) {
    throw new EmbedSessionError("agent_not_found", `the workspace has no agent "${input.agent}"`, "agent");
  }
  let origin = input.origin;
  if (origin === undefined) {
    const allowed = await getAllowedOrigins(prisma, tenant.id);
    if (allowed.length !== 1) {
      throw new EmbedSessionError("origin_required", "origin is required: the workspace allows several embed origins, or none yet", "origin");
    }
    origin = allowed[0]!;
  }
  // Checked before anyone is provisioned, so a refused call leaves no member behind.
  const normalized = normalizeOrigin(origin);
  if (!normalized) throw new EmbedSessionError("invalid_origin", "origin must be an http(s) origin (scheme://host[:port])", "origin");
  if (!(await isAllowedOrigin(prisma, tenant.id, normalized))) {
    throw new EmbedSessionError("origin_not_allowed", `${normalized} is not an allowed embed origin of the workspace (Admin → Embed)`, "origin");
  }
  const userId = await provisionEmbedUser(prisma, tenant.id, { externalId: input.user_id, email: input.email, name: input.name ?? null });
  const { token, expiresAt } = await mintEmbedToken(prisma, { tenantId: tenant.id, userId, origin: normalized, agent: input.agent, ttlSeconds: input.ttl_seconds });
  return {
    token,
    expiresAt,
    tenant: tenant.slug,
    origin: normalized,
    userId,
    ...(input.agent ? { agent: input.agent } : {}),
    storageScope: chatStorageScope(tenant.id, userId),
  };
}
