// Idempotency-Key on the run-creating operations: defineRoute({ before: [idempotency], ... }), and the
// handler creates its run through idempotently(c, (claim) => …), passing the claim to the write that
// creates the run. A replay answers the original run's current state as JSON (GET /runs/{run_id}
// shape), even when the original call streamed, with Idempotent-Replay: true. The rules live in
// services/idempotency.ts.
import { createHash } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { PlatformContext, PlatformEnv } from "../context";
import { PlatformError } from "../errors";
import { authOf, runServicesOf } from "../routes/request";
import { isMultipart } from "../routes/runs/multipart";
import {
  checkIdempotencyKey,
  consultIdempotencyKey,
  createIdempotently,
  type IdempotentCall,
  type KeyClaim,
  requestHash,
} from "../services/idempotency";
import { getRunInAccount } from "../services/runs/runs";

export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";

/**
 * The request's Idempotency-Key, checked, with the hash of the request; undefined without the header.
 * Judgments (services/models/judgments.ts) read it here too: the same store under their own policy.
 */
export async function readIdempotentCall(c: PlatformContext): Promise<IdempotentCall | undefined> {
  const key = c.req.header(IDEMPOTENCY_KEY_HEADER);
  if (key === undefined) return undefined;
  checkIdempotencyKey(key);
  const { accountId } = authOf(c);
  const hash = requestHash({
    method: c.req.method,
    path: c.req.path,
    query: [...new URL(c.req.url).searchParams],
    // Hono caches the body, so the validator after this middleware still reads it.
    body: isMultipart(c.req.header("content-type")) ? await formDigest(c) : await c.req.text(),
  });
  return { accountId, key, hash };
}

/** Reads and checks the key and hashes the request; the database is only touched by the creating write. */
export const idempotency: MiddlewareHandler<PlatformEnv> = async (c, next) => {
  const call = await readIdempotentCall(c);
  if (call === undefined) return next();
  c.set("idempotency", call);
  await next();
  // A request that failed without reaching its claim (a 422, a 409 for a run still busy, a 404…)
  // answers as if the key had been looked at first: a replay of the identical request that succeeded,
  // or 409 idempotency_key_reuse for a key another request holds.
  if (c.res.status < 400 || isKeyError(c.error)) return;
  const verdict = await consultIdempotencyKey(c.var.prisma, call, "run");
  if (verdict.kind === "replay") c.res = await replay(c, verdict.id);
};

/** The key's own 409s (reuse, in progress): the key was consulted already. */
const isKeyError = (error: unknown) => error instanceof PlatformError && (error.errorCode ?? "").startsWith("idempotency_key_");

const replay = async (c: PlatformContext, runId: number) =>
  c.json(await getRunInAccount(runServicesOf(c), authOf(c).accountId, runId), 200, { "idempotent-replay": "true" });

/**
 * Creates the request's run under its Idempotency-Key, if it sent one: `create` passes the claim to
 * the write that creates the run. Returns what `create` returned, or the replay's response.
 */
export async function idempotently<T>(
  c: PlatformContext,
  create: (claim: KeyClaim | undefined) => Promise<T>,
): Promise<{ created: T } | { replay: Response }> {
  const outcome = await createIdempotently(c.var.prisma, c.var.idempotency, "run", create);
  return outcome.kind === "created" ? { created: outcome.value } : { replay: await replay(c, outcome.id) };
}

/**
 * A multipart form as hashable text: its fields in order, files by name, type and SHA-256. The raw body
 * would not do: every client draws a new boundary for each attempt, so a retry would never match.
 */
async function formDigest(c: PlatformContext): Promise<string> {
  let form: FormData;
  try {
    form = await c.req.formData();
  } catch {
    return c.req.header("content-type") ?? ""; // unreadable: the handler answers the error
  }
  const entries: string[][] = [];
  for (const [name, value] of form.entries()) {
    if (typeof value === "string") entries.push([name, "text", value]);
    else entries.push([name, "file", value.name, value.type, createHash("sha256").update(new Uint8Array(await value.arrayBuffer())).digest("hex")]);
  }
  return JSON.stringify(entries);
}
