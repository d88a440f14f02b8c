// Event-log retention: a daily job merges the text deltas of runs that finished more than
// RUN_EVENT_RETENTION_DAYS ago (repositories/run-event-compaction.ts), a run per short transaction and a batch of
// runs at a time, so the log keeps about one row per text block of old runs however busy the
// deployment is. A pass that runs out of time queues the next one at once.
import { logger } from "@/lib/logger";
import type { Db } from "../repositories/db";
import { compactRunEvents, findRunsToCompact } from "../repositories/run-event-retention";

export interface RetentionOptions {
  olderThanDays: number;
  /** Runs read per batch (default 50). */
  batch?: number;
  /** When to stop and leave the rest to the next pass (default: after 10 minutes). */
  deadline?: number;
  now?: Date;
}

/** Returns the runs compacted, the rows removed, and whether runs were left for another pass. */
export async function compactOldRunEvents(
  prisma: Db,
  options: RetentionOptions,
): Promise<{ runs: number; removed: number; more: boolean }> {
  const now = options.now ?? new Date();
  const finishedBefore = new Date(now.getTime() - options.olderThanDays * 24 * 3600 * 1000);
  const deadline = options.deadline ?? Date.now() + 10 * 60_000;
  let runs = 0;
  let removed = 0;
  for (;;) {
    const ids = await findRunsToCompact(prisma, finishedBefore, options.batch ?? 50);
    if (ids.length === 0) return { runs, removed, more: false };
    for (const runId of ids) {
      removed += await compactRunEvents(prisma, runId, finishedBefore);
      runs++;
    }
    if (Date.now() > deadline) {
      logger.info({ runs, removed }, "event-log retention stopped at its deadline; the next pass continues");
      return { runs, removed, more: true };
    }
    // Other work gets the database (PGlite's one connection) between batches.
    await new Promise((resolve) => setImmediate(resolve));
  }
}
