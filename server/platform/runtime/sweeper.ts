// Finds runs whose process died (their lease ran out while they were `running`, or they were never
// claimed) and hands each to this process's executor, which re-claims it and resumes it or ends it
// failed and interrupted (runtime/recovery.ts), so no run stays `running` forever. Every instance
// sweeps; the re-claiming UPDATE decides who takes each run, so none is taken twice.
import { logger } from "@/lib/logger";
import type { PrismaClient } from "@/server/generated/prisma/client";
import { findAbandonedRunIds } from "../repositories/runs";
import type { RunExecutor } from "./executor";

// Taken per sweep; the rest wait for the next one, so one instance does not take over a whole backlog.
const SWEEP_BATCH = 50;

/** Hands the abandoned runs to `executor`; resolves with their ids once each has been dealt with. */
export async function sweepAbandonedRuns(prisma: PrismaClient, executor: RunExecutor, graceMs: number): Promise<number[]> {
  const ids = await findAbandonedRunIds(prisma, graceMs, SWEEP_BATCH);
  if (ids.length > 0) logger.warn({ runs: ids }, "re-claiming runs whose process stopped");
  await Promise.all(ids.map((id) => executor.recover(id)));
  return ids;
}

/** Sweeps now and then every `everyMs` (never two sweeps at once); returns the stop function. */
export function startSweeper(prisma: PrismaClient, executor: RunExecutor, options: { everyMs: number; graceMs: number }) {
  let sweeping = false;
  const sweep = () => {
    if (sweeping) return;
    sweeping = true;
    // Not awaited to the end: a resumed run executes here for as long as it takes.
    void findAbandonedRunIds(prisma, options.graceMs, SWEEP_BATCH)
      .then((ids) => {
        if (ids.length > 0) logger.warn({ runs: ids }, "re-claiming runs whose process stopped");
        for (const id of ids) void executor.recover(id);
      })
      .catch((error: unknown) => logger.error({ err: error }, "sweeping abandoned runs failed"))
      .finally(() => (sweeping = false));
  };
  sweep();
  const timer = setInterval(sweep, options.everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
