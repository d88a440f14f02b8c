// Idempotency-Key for the run-creating operations (concepts.md, "Idempotency"): a key is scoped to the
// account and lasts 24 hours. The first request with a key claims it (a pending row, run_id null); the
// operation binds the claim to the run it created; a failure releases the claim, so the key stays
// usable. A request that finds the key claimed by the same request replays the bound run, waiting
// briefly while the claim is still pending; a different request is a 409 idempotency_key_reuse.
// No HTTP here: server/platform/middleware/idempotency.ts adapts this to Hono.
import { createHash } from "node:crypto";
import type { PrismaClient } from "@/server/generated/prisma/client";
import { logger } from "@/lib/logger";
import { PlatformError } from "../errors";
import {
  bindKey,
  deleteExpiredKey,
  deleteExpiredKeys,
  deletePendingKey,
  findKey,
  insertPendingKey,
} from "../repositories/idempotency-keys";

export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** How long a request waits for a concurrent request with the same key to create its run. */
export const PENDING_WAIT_MS = 10_000;
/**
 * A claim still pending after this long belongs to a request that died between claiming and
 * binding (a crashed process); it is taken over. Creating a run takes milliseconds, not a minute.
 */
export const STALE_PENDING_MS = 60_000;

// Printable ASCII (space to tilde): what an HTTP header can carry without encoding surprises.
const PRINTABLE = /^[\x20-\x7e]+$/;

/** A malformed key is a 422 naming the header; nothing is claimed. */
export function checkIdempotencyKey(key: string): void {
  const problem =
    key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH
      ? `must be 1-${IDEMPOTENCY_KEY_MAX_LENGTH} characters`
      : PRINTABLE.test(key)
        ? undefined
        : "must contain printable ASCII characters only";
  if (problem === undefined) return;
  throw new PlatformError({
    type: "validation_error",
    message: `Idempotency-Key: ${problem}`,
    details: { fields: [{ field: "Idempotency-Key", message: problem }] },
  });
}

/** JSON with object keys sorted at every depth, so {a, b} and {b, a} hash alike. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

export interface IdempotentRequest {
  method: string;
  path: string;
  query: [string, string][];
  /** The raw body; hashed canonically when it is JSON, as sent otherwise. */
  body: string;
}

/** SHA-256 of the method, path, query (order-insensitive) and body (key-order-insensitive JSON). */
export function requestHash(request: IdempotentRequest): string {
  let body: string = request.body;
  if (body.trim() !== "") {
    try {
      body = canonicalJson(JSON.parse(body));
    } catch {
      // Not JSON: the validator will refuse it and the claim is released; hash it as sent.
    }
  }
  const query = [...request.query].sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1));
  return createHash("sha256")
    .update(JSON.stringify([request.method.toUpperCase(), request.path, query, body]))
    .digest("hex");
}

export interface IdempotencyClaim {
  id: number;
  accountId: number;
  key: string;
}

export type ClaimOutcome = { kind: "claimed"; claim: IdempotencyClaim } | { kind: "replay"; runId: number };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const keyReuse = (key: string) =>
  new PlatformError({
    type: "conflict_error",
    errorCode: "idempotency_key_reuse",
    message: `Idempotency-Key "${key}" was already used with a different request; use a new key for a new request`,
  });

const keyInProgress = (key: string) =>
  new PlatformError({
    type: "conflict_error",
    errorCode: "idempotency_key_in_progress",
    message: `a request with Idempotency-Key "${key}" is still in progress; retry shortly`,
    headers: { "retry-after": "1" },
  });

/**
 * Claims `key` for this request, or finds the run an identical earlier request created. Exactly one
 * of any number of concurrent requests claims a key: the unique (account_id, key) index decides.
 */
export async function claimIdempotencyKey(
  prisma: PrismaClient,
  accountId: number,
  key: string,
  hash: string,
  options: { waitMs?: number } = {},
): Promise<ClaimOutcome> {
  const deadline = Date.now() + (options.waitMs ?? PENDING_WAIT_MS);
  let pause = 10;
  for (;;) {
    const now = new Date();
    const id = await insertPendingKey(prisma, accountId, key, hash, new Date(now.getTime() + IDEMPOTENCY_KEY_TTL_MS));
    if (id !== null) {
      await deleteExpiredKeys(prisma, accountId, now);
      return { kind: "claimed", claim: { id, accountId, key } };
    }
    const row = await findKey(prisma, accountId, key);
    if (!row) continue; // released between our insert and our read: try to claim it again
    if (row.expiresAt <= now) {
      // An expired key is free again: remove the old row (only while still expired) and claim.
      await deleteExpiredKey(prisma, row.id, now);
      continue;
    }
    if (row.requestHash !== hash) throw keyReuse(key);
    if (row.runId !== null) return { kind: "replay", runId: row.runId };
    const staleBefore = new Date(now.getTime() - STALE_PENDING_MS);
    if (row.createdAt < staleBefore) {
      logger.warn({ accountId, key }, "taking over an idempotency key left pending by a request that never finished");
      await deletePendingKey(prisma, row.id, staleBefore);
      continue;
    }
    // Another request with this key is creating its run right now: wait for it, then replay it
    // (or claim the key if that request fails and releases it).
    if (Date.now() >= deadline) throw keyInProgress(key);
    await sleep(pause);
    pause = Math.min(pause * 2, 200);
  }
}

/** Binds the claim to the run the operation created: from now on the key replays that run. */
export async function bindIdempotencyKey(prisma: PrismaClient, claim: IdempotencyClaim, runId: number): Promise<void> {
  if (!(await bindKey(prisma, claim.id, runId))) {
    // Only after the claim sat pending past STALE_PENDING_MS and another request took it over.
    logger.warn({ accountId: claim.accountId, key: claim.key, runId }, "idempotency claim lost before binding its run");
  }
}

/** Frees a claim whose request failed (any error, any status): the key can be used again. */
export async function releaseIdempotencyKey(prisma: PrismaClient, claim: IdempotencyClaim): Promise<void> {
  await deletePendingKey(prisma, claim.id);
}
