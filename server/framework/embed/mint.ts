// Minting an embed token for a member: only for an origin the tenant allows, never for longer than
// the token maximum. The signed-in route (app/api/embed/token) and a vendor's own server code call it.
import type { Db } from "@/server/shared/db";
import { embedTokenMints } from "@/server/framework/observability/metrics";
import { isAllowedOrigin } from "./origins";
import { normalizeOrigin, signEmbedToken } from "./tokens";

export class EmbedMintRefused extends Error {
  override name = "EmbedMintRefused";
  constructor(readonly reason: "origin_not_allowed" | "invalid_origin") {
    super(reason === "invalid_origin" ? "origin must be an http(s) origin" : "this origin is not an allowed embed origin of the tenant");
  }
}

export async function mintEmbedToken(
  prisma: Db,
  request: { tenantId: string; userId: string; origin: string; agent?: string; ttlSeconds?: number },
): Promise<{ token: string; expiresAt: Date }> {
  const origin = normalizeOrigin(request.origin);
  const refused = !origin ? "invalid_origin" : !(await isAllowedOrigin(prisma, request.tenantId, origin)) ? "origin_not_allowed" : undefined;
  embedTokenMints.inc({ outcome: refused ?? "ok" });
  if (refused || !origin) throw new EmbedMintRefused(refused ?? "invalid_origin");
  return signEmbedToken({ ...request, origin });
}
