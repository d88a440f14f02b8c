// Idempotency-Key on the run-creating operations: defineRoute({ before: [idempotency], ... }), and the
// handler calls bindIdempotentRun(c, run.id) once its run exists (before it starts streaming). A
// replay answers the original run's current state as JSON (GET /runs/{run_id} shape), even when the
// original call streamed, with Idempotent-Replay: true. The rules live in services/idempotency.ts.
import type { MiddlewareHandler } from "hono";
import type { PlatformContext, PlatformEnv } from "../context";
import { authOf, runServicesOf } from "../routes/request";
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
    body: await c.req.text(),
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

/** Binds the request's Idempotency-Key (if it sent one) to the run it created. */
export async function bindIdempotentRun(c: PlatformContext, runId: number): Promise<void> {
  await c.var.idempotency?.bind(runId);
}
