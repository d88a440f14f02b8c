// Key management: the default key (POST /token, GET/DELETE /keys, POST /keys/rotate) and named keys
// (POST /keys, GET /keys/all, DELETE /keys/{id}, POST /keys/{id}/rotate). A rotation revokes the old
// row and creates a new one, so the old secret stops working on its very next request and the key's
// history stays on record.
import type { z } from "zod";
import type { ApiKeyInfo, ApiKeyWithSecret } from "@/lib/schemas/accounts";
import type { Page } from "@/lib/schemas/common";
import type { PrismaClient } from "@/server/generated/prisma/client";
import { PlatformError } from "../errors";
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
} from "../repositories/accounts";
import { toApiKeyInfo, verifyAccountPassword } from "./accounts";
import { generateApiKey } from "./api-keys";
import { toPage } from "./pagination";

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
  prisma: PrismaClient,
  keyPrefix: string,
  credentials: { email: string; password: string },
  now = new Date(),
): Promise<{ api_key: string; key: z.infer<typeof ApiKeyInfo> }> {
  const account = await verifyAccountPassword(prisma, credentials.email, credentials.password);
  // One message for an unknown email, a wrong password and a passwordless account alike.
  if (!account) throw new PlatformError({ type: "authentication_error", message: "incorrect email or password" });
  const { secret, row } = await rotateDefault(prisma, keyPrefix, account.id, now);
  return { api_key: secret, key: toApiKeyInfo(row) };
}

async function rotateDefault(prisma: PrismaClient, keyPrefix: string, accountId: number, now: Date) {
  const key = generateApiKey(keyPrefix);
  const newKey = { name: DEFAULT_KEY_NAME, hash: key.hash, hint: key.hint };
  const row = await replaceDefaultKey(prisma, accountId, newKey, now);
  return { secret: key.secret, row };
}

/** POST /keys/rotate: a new default key; the old one (if any) stops working at once. */
export async function rotateDefaultKey(
  prisma: PrismaClient,
  keyPrefix: string,
  accountId: number,
  now = new Date(),
): Promise<KeyWithSecret> {
  const { secret, row } = await rotateDefault(prisma, keyPrefix, accountId, now);
  return withSecret(row, secret);
}

export async function getDefaultKey(prisma: PrismaClient, accountId: number, now = new Date()) {
  const row = await findLiveDefaultKey(prisma, accountId, now);
  if (!row) throw noDefaultKey();
  return toApiKeyInfo(row);
}

export async function deleteDefaultKey(prisma: PrismaClient, accountId: number, now = new Date()): Promise<void> {
  if (!(await revokeDefaultKey(prisma, accountId, now))) throw noDefaultKey();
}

export async function createNamedKey(
  prisma: PrismaClient,
  keyPrefix: string,
  accountId: number,
  input: { name: string; expiresInDays?: number | null },
  now = new Date(),
): Promise<KeyWithSecret> {
  const key = generateApiKey(keyPrefix);
  const expiresAt = input.expiresInDays ? new Date(now.getTime() + input.expiresInDays * DAY_MS) : null;
  const row = await createKey(prisma, accountId, {
    kind: "named",
    name: input.name,
    hash: key.hash,
    hint: key.hint,
    expiresAt,
  });
  return withSecret(row, key.secret);
}

export async function listKeys(
  prisma: PrismaClient,
  accountId: number,
  page: { limit: number; startingAfter?: number },
): Promise<Page<z.infer<typeof ApiKeyInfo>>> {
  return toPage(await listNamedKeys(prisma, accountId, page), page.limit, toApiKeyInfo);
}

export async function deleteNamedKey(prisma: PrismaClient, accountId: number, keyId: number, now = new Date()) {
  if (!(await revokeNamedKey(prisma, accountId, keyId, now))) throw keyNotFound(keyId);
}

/** A new secret under the same name and the same expiry date; the old secret stops at once. */
export async function rotateNamedKey(
  prisma: PrismaClient,
  keyPrefix: string,
  accountId: number,
  keyId: number,
  now = new Date(),
): Promise<KeyWithSecret> {
  const old = await findNamedKey(prisma, accountId, keyId);
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
    prisma,
    old,
    { name: old.name, hash: key.hash, hint: key.hint, expiresAt: old.expiresAt },
    now,
  );
  if (!row) throw keyNotFound(keyId);
  return withSecret(row, key.secret);
}
