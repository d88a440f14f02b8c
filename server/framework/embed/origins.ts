// A tenant's allowed embed origins: the host pages its chat may be framed by. They feed the embed
// page's CSP frame-ancestors (proxy.ts) and gate which origin an embed token may be minted for.
import type { Db } from "@/server/shared/db";
import { TenancyError } from "@/server/framework/tenancy/errors";
import type { ToolViews } from "@inlay/core/chat/tool-views";
import { findAllowedOrigins, findEmbedMembership, findEmbedSettingsBySlug, saveAllowedOrigins } from "./repository";
import { readToolViews } from "./tool-views";
import { normalizeOrigin } from "./tokens";

export const MAX_EMBED_ORIGINS = 20;

export const getAllowedOrigins = (prisma: Db, tenantId: string) => findAllowedOrigins(prisma, tenantId);

/** Replaces the list. Each entry must be an http(s) origin; paths are refused rather than dropped. */
export async function setAllowedOrigins(prisma: Db, tenantId: string, origins: string[]): Promise<string[]> {
  if (origins.length > MAX_EMBED_ORIGINS) throw new TenancyError("BAD_REQUEST", `at most ${MAX_EMBED_ORIGINS} origins`, "origins");
  const normalized = origins.map((origin) => {
    const value = normalizeOrigin(origin.trim());
    if (!value || value !== origin.trim().replace(/\/$/, "")) {
      throw new TenancyError("BAD_REQUEST", `${origin} is not an origin (scheme://host[:port], no path)`, "origins");
    }
    return value;
  });
  return saveAllowedOrigins(prisma, tenantId, [...new Set(normalized)]);
}

export async function isAllowedOrigin(prisma: Db, tenantId: string, origin: string): Promise<boolean> {
  const value = normalizeOrigin(origin);
  return value !== undefined && (await findAllowedOrigins(prisma, tenantId)).includes(value);
}

/**
 * An embed token's member now: their membership of the token's tenant, while that tenant still allows
 * the token's origin (a token outlives nothing the tenant has taken back). Null otherwise.
 */
export async function embedMember(prisma: Db, claims: { tenantId: string; userId: string; origin: string }) {
  const origin = normalizeOrigin(claims.origin);
  return origin === undefined ? null : findEmbedMembership(prisma, { tenantId: claims.tenantId, userId: claims.userId, origin });
}

type EmbedSettings = Awaited<ReturnType<typeof findEmbedSettingsBySlug>>;

const readSettings = (prisma: Db, tenantSlug: string | undefined): Promise<EmbedSettings> =>
  tenantSlug ? findEmbedSettingsBySlug(prisma, tenantSlug) : Promise.resolve(null);

/**
 * Whether the embed page may show the chat for `host` (the host page's origin it was opened for):
 * only when the tenant allows it. When it may not, the page says so and what to do, with no script,
 * and any site may frame that message (proxy.ts), so the visitor sees it instead of a browser's
 * blank refusal.
 */
const hostAllowed = (found: EmbedSettings, host: string): boolean => {
  const origin = normalizeOrigin(host);
  return origin !== undefined && (found?.origins ?? []).includes(origin);
};

/** What the embed page needs of its tenant, in one read: whether it may show the chat for `host`, and, if so, the tenant's tool views. */
export async function embedPageSettings(prisma: Db, tenantSlug: string | undefined, host: string): Promise<{ allowed: boolean; toolViews: ToolViews }> {
  const found = await readSettings(prisma, tenantSlug);
  const allowed = hostAllowed(found, host);
  return { allowed, toolViews: allowed ? readToolViews(found?.toolViews) : {} };
}

/**
 * What the embed page's CSP needs of its tenant (proxy.ts), in one read: whether `host` may show the
 * chat (undefined when the page names no host) and the frame-ancestors value, its own origin and the
 * allowed ones.
 */
export async function embedFraming(
  prisma: Db,
  tenantSlug: string | undefined,
  host: string | undefined,
): Promise<{ hostAllowed: boolean | undefined; frameAncestors: string }> {
  const found = await readSettings(prisma, tenantSlug);
  // Origins were validated on the way in; the check again keeps anything odd out of the header.
  const origins = (found?.origins ?? []).filter((origin) => normalizeOrigin(origin) === origin);
  return { hostAllowed: host === undefined ? undefined : hostAllowed(found, host), frameAncestors: ["'self'", ...origins].join(" ") };
}
