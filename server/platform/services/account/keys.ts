// Key management: the default key (POST /token, GET/DELETE /keys, POST /keys/rotate) and named keys
// (POST /keys, GET /keys/all, DELETE /keys/{id}, POST /keys/{id}/rotate). A rotation revokes the old
// row and creates a new one, so the old secret stops working on its very next request and the key's
// history stays on record. Every revocation drops the key from every instance's cache
// (infrastructure/hot-cache.ts) once it is written; this instance's before the response.
import type { z } from "zod";
import type { ApiKeyInfo, ApiKeyWithSecret } from "@inlay/core/schemas/accounts";
import type { Page } from "@inlay/core/schemas/common";
import { PlatformError } from "../../errors";
import type { DataContext } from "../../infrastructure/hot-cache";
import {
  createKey,
  findLiveDefaultKey,
  findNamedKey,
  listNamedKeys,
  replaceDefaultKey,
  replaceNamedKey,
  revokeDefaultKey,
  revokeNamedKey,
  type ApiKeyRow,
} from "../../repositories/accounts";
import { toApiKeyInfo, verifyAccountPassword } from "./accounts";
import { generateApiKey } from "./api-keys";
import { toPage } from "../pagination";

const DAY_MS = 24 * 60 * 60 * 1000;
const DEFAULT_KEY_NAME = "default";

type KeyWithSecret = z.infer<typeof ApiKeyWithSecret>;

const withSecret = (row: ApiKeyRow, secret: string): KeyWithSecret => ({ ...toApiKeyInfo(row), key: secret });

const noDefaultKey = () =>
  new PlatformError({
    type: "not_found",
    errorCode: "default_key_not_found",
    message: "this account has no default key; create one with POST /keys/rotate or POST /token",
  });

const keyNotFound = (keyId: number) =>
  new PlatformError({ type: "not_found", message: `no named key with id ${keyId}` });

/** POST /token: checks the account's password, then mints or rotates its default key. */
export async function issueTokenForPassword(
  ctx: DataContext,
  keyPrefix: string,
  credentials: { email: string; password: string },
  now = new Date(),
): Promise<{ api_key: string; key: z.infer<typeof ApiKeyInfo> }> {
  const account = await verifyAccountPassword(ctx.prisma, credentials.email, credentials.password);
  // One message for an unknown email, a wrong password and a passwordless account alike.
  if (!account) throw new PlatformError({ type: "authentication_error", message: "incorrect email or password" });
  const { secret, row } = await rotateDefault(ctx, keyPrefix, account.id, now);
  return { api_key: secret, key: toApiKeyInfo(row) };
}

async function rotateDefault(ctx: DataContext, keyPrefix: string, accountId: number, now: Date) {
  const key = generateApiKey(keyPrefix);
  const newKey = { name: DEFAULT_KEY_NAME, hash: key.hash, hint: key.hint };
  const { row, revoked } = await replaceDefaultKey(ctx.prisma, accountId, newKey, now);
  await ctx.cache.keysChanged(revoked);
  return { secret: key.secret, row };
}

/** POST /keys/rotate: a new default key; the old one (if any) stops working at once. */
export async function rotateDefaultKey(
  ctx: DataContext,
  keyPrefix: string,
  accountId: number,
  now = new Date(),
): Promise<KeyWithSecret> {
  const { secret, row } = await rotateDefault(ctx, keyPrefix, accountId, now);
  return withSecret(row, secret);
}

export async function getDefaultKey(ctx: DataContext, accountId: number, now = new Date()) {
  const row = await findLiveDefaultKey(ctx.prisma, accountId, now);
  if (!row) throw noDefaultKey();
  return toApiKeyInfo(row);
}

export async function deleteDefaultKey(ctx: DataContext, accountId: number, now = new Date()): Promise<void> {
  const revoked = await revokeDefaultKey(ctx.prisma, accountId, now);
  if (revoked.length === 0) throw noDefaultKey();
  await ctx.cache.keysChanged(revoked);
}

export async function createNamedKey(
  ctx: DataContext,
  keyPrefix: string,
  accountId: number,
  input: { name: string; expiresInDays?: number | null },
  now = new Date(),
): Promise<KeyWithSecret> {
  const key = generateApiKey(keyPrefix);
  const expiresAt = input.expiresInDays ? new Date(now.getTime() + input.expiresInDays * DAY_MS) : null;
  const row = await createKey(ctx.prisma, accountId, {
    kind: "named",
    name: input.name,
    hash: key.hash,
    hint: key.hint,
    expiresAt,
  });
  return withSecret(row, key.secret);
}

export async function listKeys(
  ctx: DataContext,
  accountId: number,
  page: { limit: number; startingAfter?: number },
): Promise<Page<z.infer<typeof ApiKeyInfo>>> {
  return toPage(await listNamedKeys(ctx.prisma, accountId, page), page.limit, toApiKeyInfo);
}

export async function deleteNamedKey(ctx: DataContext, accountId: number, keyId: number, now = new Date()) {
  const revoked = await revokeNamedKey(ctx.prisma, accountId, keyId, now);
  if (revoked === null) throw keyNotFound(keyId);
  await ctx.cache.keysChanged([revoked]);
}

/** A new secret under the same name and the same expiry date; the old secret stops at once. */
export async function rotateNamedKey(
  ctx: DataContext,
  keyPrefix: string,
  accountId: number,
  keyId: number,
  now = new Date(),
): Promise<KeyWithSecret> {
  const old = await findNamedKey(ctx.prisma, accountId, keyId);
  if (!old) throw keyNotFound(keyId);
  // Keeping the expiry date of an expired key would hand out a secret that never works.
  if (old.expiresAt && old.expiresAt <= now) {
    throw new PlatformError({
      type: "conflict_error",
      errorCode: "key_expired",
      message: `key ${keyId} has expired and cannot be rotated; create a new one with POST /keys`,
    });
  }
  const key = generateApiKey(keyPrefix);
  const row = await replaceNamedKey(
    ctx.prisma,
    old,
    { name: old.name, hash: key.hash, hint: key.hint, expiresAt: old.expiresAt },
    now,
  );
  if (!row) throw keyNotFound(keyId);
  await ctx.cache.keysChanged([old.hash]);
  return withSecret(row, key.secret);
}
