// Idempotency-Key (concepts.md, "Idempotency"): one store (platform_idempotency_keys) and one protocol
// for everything a key can create, with a policy per resource. A key is scoped to the account, lasts
// 24 hours and is claimed by a unique (account, key) insert bound to what it creates; the same key
// with another request (another resource included: the hash covers the path) is a 409
// idempotency_key_reuse. The policies:
//
// - run (POST /runs and the other run-creating calls, task runs, inbound webhooks): the claim is the
//   creating write's own, in the fast path's single statement (repositories/run-start.ts) or as the
//   first write of the admission transaction (services/runs/run-admission.ts). A key is never seen
//   without its run, so a request that fails (402, 429, 500…) leaves nothing behind and may be retried
//   with the same key. An identical request at the same time waits (in the database) for the write,
//   then replays the run's current state.
// - judgment (POST /judgments): the claim and the pending judgment are committed together before the
//   model is called, so an identical request meanwhile is 409 idempotency_key_in_progress at once, a
//   failed judgment keeps its key (409 idempotency_key_failed: the spec's rule, a model call is not
//   repeated under one key), and a replay of a result not kept is 410 (services/models/judgments.ts).
//
// No HTTP here: server/platform/middleware/idempotency.ts adapts this to Hono.
import { createHash } from "node:crypto";
import type { Db } from "../repositories/db";
import { logger } from "@/lib/logger";
import { PlatformError } from "../errors";
import {
  bindKey,
  deleteExpiredKey,
  deletePendingKey,
  findKey,
  insertPendingKey,
  type KeyClaim,
} from "../repositories/idempotency-keys";

export type { KeyClaim };

export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/**
 * How long a request waits on a pending key (a claim without its run, which only an earlier version
 * of the platform wrote: it claimed before creating) before answering 409 idempotency_key_in_progress.
 */
export const PENDING_WAIT_MS = 10_000;
/** A pending claim older than this belongs to a request that died before binding; it is taken over. */
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

/** A request's Idempotency-Key: its account, the key, and the hash of the request (requestHash). */
export interface IdempotentCall {
  accountId: number;
  key: string;
  hash: string;
}

/** Thrown by the creating write when another request holds the key; nothing was written. */
export class IdempotencyKeyTaken extends Error {
  constructor() {
    super("the Idempotency-Key is held by another request");
  }
}

/** What a key creates: the row's `resource`, which picks its policy (above). */
export type KeyResource = "run" | "judgment";

/** What the key was bound to: the run or judgment an identical request answers again. */
export type KeyVerdict = { kind: "free" } | { kind: "replay"; id: number };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** 409: the key was used with a different request (judgments answer it too). */
export const keyReuse = (key: string) =>
  new PlatformError({
    type: "conflict_error",
    errorCode: "idempotency_key_reuse",
    message: `Idempotency-Key "${key}" was already used with a different request; use a new key for a new request`,
  });

/** 409 with Retry-After: the request holding the key has not finished (judgments answer it too). */
export const keyInProgress = (key: string) =>
  new PlatformError({
    type: "conflict_error",
    errorCode: "idempotency_key_in_progress",
    message: `a request with Idempotency-Key "${key}" is still in progress; retry shortly`,
    headers: { "retry-after": "1" },
  });

/**
 * What the key says now: free (no row, or an expired one, removed here), or the `resource` to replay.
 * A different request's key is a 409 idempotency_key_reuse. A pending row (nothing bound yet) can only
 * have been left by an earlier version of the platform, which claimed run keys before creating runs:
 * it is waited for, and taken over once stale.
 */
export async function consultIdempotencyKey(
  prisma: Db,
  call: IdempotentCall,
  resource: KeyResource,
  options: { waitMs?: number } = {},
): Promise<KeyVerdict> {
  const deadline = Date.now() + (options.waitMs ?? PENDING_WAIT_MS);
  let pause = 10;
  for (;;) {
    const now = new Date();
    const row = await findKey(prisma, call.accountId, call.key);
    if (!row) return { kind: "free" };
    if (row.expiresAt <= now) {
      // An expired key is free again: remove the old row (only while still expired).
      await deleteExpiredKey(prisma, row.id, now);
      return { kind: "free" };
    }
    if (row.requestHash !== call.hash || row.resource !== resource) throw keyReuse(call.key);
    const bound = resource === "run" ? row.runId : row.judgmentId;
    if (bound !== null) return { kind: "replay", id: bound };
    const staleBefore = new Date(now.getTime() - STALE_PENDING_MS);
    if (row.createdAt < staleBefore) {
      logger.warn({ accountId: call.accountId, key: call.key }, "taking over an idempotency key left pending by a request that never finished");
      await deletePendingKey(prisma, row.id, staleBefore);
      return { kind: "free" };
    }
    if (Date.now() >= deadline) throw keyInProgress(call.key);
    await sleep(pause);
    pause = Math.min(pause * 2, 200);
  }
}

// Claims that found the key taken, then free again, before giving up: each needs another request to
// take the key and let it go in between, so this is only reached under a storm of such requests.
const CLAIM_ATTEMPTS = 10;

/**
 * Creates a `resource` under `call`'s key (or without one): `create` writes it and the claim together,
 * and throws IdempotencyKeyTaken when another request holds the key. Then the key decides: the same
 * request's resource is replayed, a different request is a 409, and a key that came free is claimed again.
 */
export async function createIdempotently<T>(
  prisma: Db,
  call: IdempotentCall | undefined,
  resource: KeyResource,
  create: (claim: KeyClaim | undefined) => Promise<T>,
): Promise<{ kind: "created"; value: T } | { kind: "replay"; id: number }> {
  if (!call) return { kind: "created", value: await create(undefined) };
  for (let attempt = 1; ; attempt++) {
    const now = new Date();
    try {
      const value = await create({ key: call.key, resource, requestHash: call.hash, expiresAt: new Date(now.getTime() + IDEMPOTENCY_KEY_TTL_MS) });
      return { kind: "created", value };
    } catch (error) {
      if (!(error instanceof IdempotencyKeyTaken)) throw error;
    }
    const verdict = await consultIdempotencyKey(prisma, call, resource);
    if (verdict.kind === "replay") return verdict;
    if (attempt >= CLAIM_ATTEMPTS) throw keyInProgress(call.key);
  }
}

/**
 * The claim as the first write of a transaction that creates the resource (run admission's `first`,
 * a judgment's insert): the row's id, to bind once the resource exists (bindClaimedKey), or
 * IdempotencyKeyTaken. Pending only inside the transaction, so nobody else ever sees it unbound.
 */
export async function claimKeyIn(tx: Db, accountId: number, claim: KeyClaim): Promise<number> {
  const id = await insertPendingKey(tx, accountId, claim);
  if (id === null) throw new IdempotencyKeyTaken();
  return id;
}

/** Binds the claim made by claimKeyIn, in the same transaction, to the run or judgment it created. */
export async function bindClaimedKey(tx: Db, id: number, resourceId: number): Promise<void> {
  if (!(await bindKey(tx, id, resourceId))) throw new Error(`idempotency key ${id} changed inside its own transaction`);
}
