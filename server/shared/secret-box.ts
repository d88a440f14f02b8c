// Secrets the framework keeps in its database (the embedded platform account's API key) are sealed
// with AES-256-GCM under a key derived from INLAY_SECRET_KEY (else NEXTAUTH_SECRET). A sealed value
// is "v1.<iv>.<tag>.<ciphertext>" in base64url; the tag makes tampering or a wrong key fail loudly.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";

const VERSION = "v1";

/**
 * SHA-256 in hex: what is stored of a secret that is never read back (API keys, session, invite and
 * webhook tokens, link codes, OAuth states), looked up by equality. Secrets read back are sealed.
 */
export const sha256Hex = (text: string) => createHash("sha256").update(text).digest("hex");

/** A 32-byte key from the configured secret; `purpose` keeps keys for different uses apart. */
export function deriveKey(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "inlay-secret-box", purpose, 32));
}

export function seal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === "string" ? part : part.toString("base64url"))).join(".");
}

export class SecretBoxError extends Error {
  override name = "SecretBoxError";
}

export function open(key: Buffer, sealed: string): string {
  const [version, iv, tag, ciphertext] = sealed.split(".");
  if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new SecretBoxError("not a sealed value");
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    // Never include the value or the key in the message.
    throw new SecretBoxError("the stored secret cannot be decrypted (was INLAY_SECRET_KEY changed?)");
  }
}

/**
 * Opens with the first of `keys` that fits: the current key first, then the keys it replaced.
 * `stale` when a replaced key opened it (the caller seals it again under the current one).
 */
export function openWithKeys(keys: readonly Buffer[], sealed: string): { value: string; stale: boolean } {
  let failure: unknown = new SecretBoxError("no key to open the stored secret with");
  for (const [index, key] of keys.entries()) {
    try {
      return { value: open(key, sealed), stale: index > 0 };
    } catch (error) {
      if (!(error instanceof SecretBoxError)) throw error;
      // The first key's failure is the one reported: it names the usual cause.
      if (index === 0) failure = error;
    }
  }
  throw failure;
}
