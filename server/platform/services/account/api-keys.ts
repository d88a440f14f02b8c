// API keys: <prefix><32 random base62 chars><6-char checksum>. The checksum lets us turn away a
// mistyped or made-up key without a database read; only the SHA-256 of a key is ever stored.
import { randomBytes } from "node:crypto";
import { crc32 } from "node:zlib";
import { sha256Hex } from "@/server/shared/secret-box";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;

function base62(bytes: Buffer, length: number): string {
  let out = "";
  // Rejection sampling keeps every character equally likely.
  let pool = bytes;
  let i = 0;
  while (out.length < length) {
    if (i >= pool.length) {
      pool = randomBytes(length);
      i = 0;
    }
    const byte = pool[i++]!;
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

function checksum(body: string): string {
  let value = crc32(body);
  let out = "";
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = ALPHABET[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

export interface GeneratedKey {
  secret: string;
  hash: string;
  hint: string;
}

export function generateApiKey(prefix: string): GeneratedKey {
  const body = prefix + base62(randomBytes(RANDOM_LENGTH * 2), RANDOM_LENGTH);
  const secret = body + checksum(body);
  return { secret, hash: hashApiKey(secret), hint: keyHint(secret, prefix) };
}

export const hashApiKey = sha256Hex;

export function keyHint(secret: string, prefix: string): string {
  return `${secret.slice(0, prefix.length + 4)}…${secret.slice(-4)}`;
}

/** True when the key has our prefix, the right length and a checksum that matches. */
export function isWellFormedApiKey(secret: string, prefix: string): boolean {
  if (!secret.startsWith(prefix) || secret.length !== prefix.length + RANDOM_LENGTH + CHECKSUM_LENGTH) return false;
  const body = secret.slice(0, -CHECKSUM_LENGTH);
  return /^[0-9A-Za-z]+$/.test(body.slice(prefix.length)) && checksum(body) === secret.slice(-CHECKSUM_LENGTH);
}
