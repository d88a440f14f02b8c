// POST /api/embed/sessions: the vendor's backend mints an embed token for one of its users
// (docs/embedding.md, "From your backend"). `Authorization: Bearer <embed secret>`; the body names the
// user by the vendor's own id, email and name. 401 bad or revoked secret, 404 an agent the secret's
// workspace does not have, 403 an origin it does not allow (or a member an admin removed), 422 a bad
// body (naming the field). No CORS: the secret belongs on a server, never in a browser.
import { getDb } from "@/server/shared/db";
import { EmbedMintRefused } from "@/server/framework/embed/mint";
import { EmbedSessionError, mintEmbedSession, type EmbedSessionRefusal } from "@/server/framework/embed/sessions";
import { embedSessionInput } from "@inlay/core/schemas/embed";
import { handleRoute, RouteError, routeJson } from "@/server/framework/http/route-member";
import { timedRoute } from "@/server/framework/observability/metrics";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const statusOf: Record<EmbedSessionRefusal, number> = {
  invalid_secret: 401,
  agent_not_found: 404,
  origin_required: 422,
  invalid_origin: 422,
  origin_not_allowed: 403,
  member_removed: 403,
};

export const POST = timedRoute("/api/embed/sessions", (request: Request) =>
  handleRoute(async () => {
    const secret = request.headers.get("authorization")?.match(/^Bearer\s+(\S+)$/i)?.[1];
    if (!secret) throw new RouteError(401, "send the embed secret as Authorization: Bearer <secret>", { code: "invalid_secret" });
    const parsed = embedSessionInput.safeParse(await request.json().catch(() => undefined));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issue.path.join(".") || "body";
      throw new RouteError(422, `${field}: ${issue.message}`, { code: "invalid_body", field });
    }
    const { prisma } = await getDb();
    try {
      const session = await mintEmbedSession(prisma, secret, parsed.data);
      return routeJson({
        token: session.token,
        expires_at: session.expiresAt.toISOString(),
        tenant: session.tenant,
        origin: session.origin,
        ...(session.agent ? { agent: session.agent } : {}),
        storage_scope: session.storageScope,
      });
    } catch (error) {
      if (error instanceof EmbedSessionError) {
        throw new RouteError(statusOf[error.reason], error.message, { code: error.reason, ...(error.field ? { field: error.field } : {}) });
      }
      // The origin left the allowed list between the check and the mint.
      if (error instanceof EmbedMintRefused) throw new RouteError(403, error.message, { code: error.reason, field: "origin" });
      throw error;
    }
  }));
