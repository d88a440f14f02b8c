// The operator key the owner's "credit the balance" form sends to the platform (POST /operator/credits).
// Production sets INLAY_OPERATOR_KEY (and the platform INLAY_OPERATOR_KEY_SHA256). In development with
// the platform embedded and neither set, the process makes its own key, so the demo's owner can fund the
// balance without editing env: random, held in this process's memory only (never stored, never logged),
// and the embedded platform is given only its SHA-256. A restart makes a new one; nothing outlives it.
import { createHash, randomBytes } from "node:crypto";
import { env, type Env } from "@/lib/env";

export interface OperatorKey {
  key: string;
  /** Made by this process for development (not from INLAY_OPERATOR_KEY). */
  development: boolean;
}

// On globalThis: Next.js loads server modules more than once (instrumentation, route bundles), and the
// embedded platform and the billing procedures must hold the same key.
const globalForKey = globalThis as unknown as { inlayDevelopmentOperatorKey?: string };

/** Whether this process makes its own key: development, embedded platform, no operator key configured. */
export function makesDevelopmentKey(source: Env = env): boolean {
  return (
    source.NODE_ENV === "development" &&
    !source.INLAY_OPERATOR_KEY &&
    !source.INLAY_OPERATOR_KEY_SHA256 &&
    !(source.PLATFORM_BASE_URL && source.PLATFORM_API_KEY)
  );
}

function developmentKey(): string {
  return (globalForKey.inlayDevelopmentOperatorKey ??= `op_dev_${randomBytes(32).toString("base64url")}`);
}

/** The key the credit form sends, or null when crediting by hand is not set up. */
export function operatorKeyFor(source: Env = env): OperatorKey | null {
  if (source.INLAY_OPERATOR_KEY) return { key: source.INLAY_OPERATOR_KEY, development: false };
  return makesDevelopmentKey(source) ? { key: developmentKey(), development: true } : null;
}

/** For the embedded platform's config: the SHA-256 (hex) of the development key, when one is made. */
export function developmentOperatorKeySha256(source: Env = env): string | undefined {
  return makesDevelopmentKey(source) ? createHash("sha256").update(developmentKey()).digest("hex") : undefined;
}
