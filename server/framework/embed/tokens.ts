// Embed tokens: what the iframe chat (app/embed) authenticates with instead of a next-auth cookie,
// so it works where third-party cookies are blocked. A short-lived HS256 JWT (jose) bound to one
// tenant, one user and the one host-page origin it was minted for; the iframe keeps it in memory,
// sends it as a header, and gets a fresh one from the host page (postMessage) before it expires.
import { createHash } from "node:crypto";
import { SignJWT, errors, jwtVerify } from "jose";
import { env } from "@/lib/env";

export const EMBED_TOKEN_MAX_SECONDS = 600;
const ISSUER = "inlay";
const AUDIENCE = "inlay-embed";

export interface EmbedClaims {
  tenantId: string;
  userId: string;
  /** The host page's origin (scheme://host[:port]) the chat may be embedded in. */
  origin: string;
  /** When set, the one agent the token opens. */
  agent?: string;
  expiresAt: Date;
}

export type EmbedTokenFailure = "invalid" | "expired" | "origin" | "agent";

export class EmbedTokenError extends Error {
  override name = "EmbedTokenError";
  constructor(readonly reason: EmbedTokenFailure) {
    super(`embed token refused: ${reason}`);
  }
}

export interface TokenOptions {
  /** The signing secret; lib/env's by default (tests pass their own). */
  secret?: string;
  now?: Date;
}

function keyOf(secret: string | undefined): Uint8Array {
  // A secret of its own when configured; otherwise one derived from NEXTAUTH_SECRET, so a session
  // JWT can never pass as an embed token or the reverse.
  const material = secret ?? env.EMBED_TOKEN_SECRET ?? `inlay-embed-token:${env.NEXTAUTH_SECRET}`;
  return createHash("sha256").update(material).digest();
}

/** scheme://host[:port] of a URL or origin string; undefined when it is not an http(s) origin. */
export function normalizeOrigin(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

export async function signEmbedToken(
  claims: { tenantId: string; userId: string; origin: string; agent?: string; ttlSeconds?: number },
  options: TokenOptions = {},
): Promise<{ token: string; expiresAt: Date }> {
  const origin = normalizeOrigin(claims.origin);
  if (!origin) throw new TypeError("origin must be an http(s) origin");
  const ttl = Math.min(Math.max(1, Math.floor(claims.ttlSeconds ?? EMBED_TOKEN_MAX_SECONDS)), EMBED_TOKEN_MAX_SECONDS);
  const issuedAt = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const token = await new SignJWT({ tid: claims.tenantId, org: origin, ...(claims.agent ? { agt: claims.agent } : {}) })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(claims.userId)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ttl)
    .sign(keyOf(options.secret));
  return { token, expiresAt: new Date((issuedAt + ttl) * 1000) };
}

/**
 * The token's claims, or EmbedTokenError: a bad signature or shape (invalid), past its expiry
 * (expired), minted for another host origin (origin) or another agent (agent). A token that claims
 * to live longer than the maximum is invalid, whoever signed it.
 */
export async function verifyEmbedToken(
  token: string,
  expect: { origin?: string; agent?: string } = {},
  options: TokenOptions = {},
): Promise<EmbedClaims> {
  let payload;
  try {
    ({ payload } = await jwtVerify(token, keyOf(options.secret), {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ["HS256"],
      currentDate: options.now,
      requiredClaims: ["sub", "exp", "iat"],
    }));
  } catch (error) {
    throw new EmbedTokenError(error instanceof errors.JWTExpired ? "expired" : "invalid");
  }
  const { sub, tid, org, agt, exp, iat } = payload as Record<string, unknown>;
  if (typeof sub !== "string" || typeof tid !== "string" || typeof org !== "string" || typeof exp !== "number" || typeof iat !== "number") {
    throw new EmbedTokenError("invalid");
  }
  if (exp - iat > EMBED_TOKEN_MAX_SECONDS) throw new EmbedTokenError("invalid");
  if (expect.origin !== undefined && normalizeOrigin(expect.origin) !== org) throw new EmbedTokenError("origin");
  if (expect.agent !== undefined && typeof agt === "string" && agt !== expect.agent) throw new EmbedTokenError("agent");
  return {
    tenantId: tid,
    userId: sub,
    origin: org,
    ...(typeof agt === "string" ? { agent: agt } : {}),
    expiresAt: new Date(exp * 1000),
  };
}
