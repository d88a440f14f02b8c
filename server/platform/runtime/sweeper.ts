// Finds runs whose process died (their lease ran out while they were `running`) and ends them as
// failed with metadata.interrupted and auto_retryable set, so no run stays `running` forever. Every
// instance sweeps; the UPDATE decides who ends each run, so no run is ended twice.
import { logger } from "@/lib/logger";
import type { PrismaClient } from "@/server/generated/prisma/client";
import { appendEvents, failAbandonedRuns } from "../repositories/runs";
import { settleRun } from "../services/billing";
import { recordRunWebhook } from "../services/run-webhooks";
import type { RunEventBus } from "./event-bus";

export const ABANDONED_MESSAGE = "the process executing this run stopped before it finished";

export async function sweepAbandonedRuns(prisma: PrismaClient, bus: RunEventBus, graceMs: number): Promise<number[]> {
  const runs = await failAbandonedRuns(prisma, graceMs, ABANDONED_MESSAGE);
  for (const run of runs) {
    await appendEvents(prisma, run.id, [
      { type: "run_status", status: "failed", error: ABANDONED_MESSAGE },
      {
        type: "done",
        completion_state: "failed",
        stop_reason: "interrupted",
        message_count: Array.isArray(run.messages) ? run.messages.length : 0,
      },
    ]);
    await recordRunWebhook(prisma, run, "run.failed");
    await bus.publish(run.id);
    // Charge what it cost before its process stopped and give back the rest of its hold.
    await settleRun(prisma, run.id);
  }
  if (runs.length > 0) logger.warn({ runs: runs.map((run) => run.id) }, "ended runs whose process stopped");
  return runs.map((run) => run.id);
}

/** Sweeps now and then every `everyMs`; returns the stop function. */
export function startSweeper(prisma: PrismaClient, bus: RunEventBus, options: { everyMs: number; graceMs: number }) {
  const sweep = () =>
    void sweepAbandonedRuns(prisma, bus, options.graceMs).catch((error: unknown) =>
      logger.error({ err: error }, "sweeping abandoned runs failed"),
    );
  sweep();
  const timer = setInterval(sweep, options.everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
