// The state the framework carries through an app's OAuth flow, inside the redirect_uri's path: who
// started it (tenant, user), for which app, and where to come back to. Signed (HS256, its own key
// derived from NEXTAUTH_SECRET), short-lived, so the callback completes the connection for the
// member who started it, whether they came from the console (a session) or the embed (a token in
// memory the popup does not have).
import { createHash } from "node:crypto";
import { SignJWT, jwtVerify } from "jose";
import { env } from "@/lib/env";

const ISSUER = "inlay";
const AUDIENCE = "inlay-connection";
/** An OAuth consent screen rarely takes longer; a stale callback is refused. */
export const CONNECTION_STATE_MAX_SECONDS = 15 * 60;

export interface ConnectionState {
  tenantId: string;
  userId: string;
  app: string;
  /** A same-origin path (validated again at the callback). */
  returnTo: string;
  /** popup: the callback tells the window that opened it; redirect: it sends the page back to returnTo. */
  mode: "popup" | "redirect";
  /**
   * The origin of the page that opened the popup when it is not Inlay's own (a vendor's page with
   * @inlay/react, its embed token's origin): the callback tells that origin only.
   */
  opener?: string;
}

const keyOf = (secret: string | undefined) =>
  createHash("sha256").update(secret ?? `inlay-connection-state:${env.NEXTAUTH_SECRET}`).digest();

export async function signConnectionState(state: ConnectionState, options: { secret?: string; now?: Date } = {}): Promise<string> {
  const issuedAt = Math.floor((options.now ?? new Date()).getTime() / 1000);
  return new SignJWT({ tid: state.tenantId, app: state.app, ret: state.returnTo, mode: state.mode, ...(state.opener ? { opn: state.opener } : {}) })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(state.userId)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + CONNECTION_STATE_MAX_SECONDS)
    .sign(keyOf(options.secret));
}

/** The state, or null when it is forged, malformed or expired. */
export async function verifyConnectionState(token: string, options: { secret?: string; now?: Date } = {}): Promise<ConnectionState | null> {
  try {
    const { payload } = await jwtVerify(token, keyOf(options.secret), {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ["HS256"],
      currentDate: options.now,
      requiredClaims: ["sub", "exp", "iat"],
    });
    const { sub, tid, app, ret, mode, opn } = payload as Record<string, unknown>;
    if (typeof sub !== "string" || typeof tid !== "string" || typeof app !== "string" || typeof ret !== "string") return null;
    return { tenantId: tid, userId: sub, app, returnTo: ret, mode: mode === "redirect" ? "redirect" : "popup", ...(typeof opn === "string" ? { opener: opn } : {}) };
  } catch {
    return null;
  }
}
