// Idempotency-Key on the run-creating operations: defineRoute({ before: [idempotency], ... }), and the
// handler calls bindIdempotentRun(c, run.id) once its run exists (before it starts streaming). A
// replay answers the original run's current state as JSON (GET /runs/{run_id} shape), even when the
// original call streamed, with Idempotent-Replay: true. The rules live in services/idempotency.ts.
import { createHash } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { PlatformContext, PlatformEnv } from "../context";
import { authOf, runServicesOf } from "../routes/request";
import { isMultipart } from "../routes/runs/multipart";
import {
  bindIdempotencyKey,
  checkIdempotencyKey,
  claimIdempotencyKey,
  releaseIdempotencyKey,
  requestHash,
} from "../services/idempotency";
import { getRunInAccount } from "../services/runs";

export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";

export const idempotency: MiddlewareHandler<PlatformEnv> = async (c, next) => {
  const key = c.req.header(IDEMPOTENCY_KEY_HEADER);
  if (key === undefined) return next();
  checkIdempotencyKey(key);
  const { accountId } = authOf(c);
  const prisma = c.var.prisma;
  const hash = requestHash({
    method: c.req.method,
    path: c.req.path,
    query: [...new URL(c.req.url).searchParams],
    // Hono caches the body, so the validator after this middleware still reads it.
    body: isMultipart(c.req.header("content-type")) ? await formDigest(c) : await c.req.text(),
  });
  const outcome = await claimIdempotencyKey(prisma, accountId, key, hash);
  if (outcome.kind === "replay") {
    const run = await getRunInAccount(runServicesOf(c), accountId, outcome.runId);
    return c.json(run, 200, { "idempotent-replay": "true" });
  }
  let bound = false;
  c.set("idempotency", {
    async bind(runId) {
      await bindIdempotencyKey(prisma, outcome.claim, runId);
      bound = true;
    },
  });
  try {
    await next();
  } finally {
    // Validation errors, 402, 429, 500 and anything else that created no run leave the key free.
    if (!bound) await releaseIdempotencyKey(prisma, outcome.claim);
  }
};

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

/** Binds the request's Idempotency-Key (if it sent one) to the run it created. */
export async function bindIdempotentRun(c: PlatformContext, runId: number): Promise<void> {
  await c.var.idempotency?.bind(runId);
}
