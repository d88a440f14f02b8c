// Secrets the platform reads back (credentials, passwords, webhook signing secrets, env values) are
// sealed at rest (AES-256-GCM, server/shared/secret-box.ts) under keys derived from INLAY_SECRET_KEY, one per
// purpose. While keys rotate, a value sealed under a previous key (INLAY_SECRET_KEY_PREVIOUS) still
// opens, marked stale; jobs/reseal-secrets.ts seals every stale value again under the current key.
import { deriveKey, openWithKeys, seal } from "@/server/shared/secret-box";
import type { PlatformConfig } from "../platform-config";

/** Key purposes: a value sealed for one does not open under another. */
export const SEALED_FOR = {
  /** The default: app and tool-server credentials, passwords, identities, env values, model keys. */
  credentials: "platform-app-credentials",
  /** Webhook endpoints' signing secrets. */
  webhooks: "platform-webhook-secrets",
} as const;

export type SealPurpose = (typeof SEALED_FOR)[keyof typeof SEALED_FOR];

const keyrings = new WeakMap<PlatformConfig, Map<SealPurpose, Buffer[]>>();

/** The keys of `purpose`: the current one first, then the ones it replaced. */
export function keyringOf(config: PlatformConfig, purpose: SealPurpose): readonly Buffer[] {
  let byPurpose = keyrings.get(config);
  if (!byPurpose) keyrings.set(config, (byPurpose = new Map()));
  let keys = byPurpose.get(purpose);
  if (!keys) {
    keys = [config.secretKey, ...(config.previousSecretKeys ?? [])].map((secret) => deriveKey(secret, purpose));
    byPurpose.set(purpose, keys);
  }
  return keys;
}

export const sealSecret = (config: PlatformConfig, plaintext: string, purpose: SealPurpose = SEALED_FOR.credentials) =>
  seal(keyringOf(config, purpose)[0]!, plaintext);

/**
 * Opens a value sealed under the current key or a previous one; `stale` when it was a previous one.
 * Throws SecretBoxError when no key opens it.
 */
export const openSecret = (config: PlatformConfig, sealed: string, purpose: SealPurpose = SEALED_FOR.credentials) =>
  openWithKeys(keyringOf(config, purpose), sealed);
