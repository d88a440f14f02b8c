// Assembles the platform's dependencies. Every entry point (Next.js, the standalone server, tests,
// benchmarks) builds them here, so they differ only in configuration.
import type { RuntimeModel } from "./runtime/models/providers";
import { type Database, openDedicatedClient } from "@/server/db";
import type { PlatformConfig, PlatformDeps, PlatformRuntime } from "./context";
import type { Limiters } from "./middleware/rate-limit";
import { createRunEventBus } from "./runtime/event-bus";
import { createRunEventWriter } from "./runtime/event-writer";
import { createRunExecutor } from "./runtime/executor";
import { registerPlatformJobs } from "./jobs/platform-jobs";
import { createJobQueue } from "./jobs/queue";
import { createLiveContent } from "./runtime/live-content";
import { eventLoopGauge, type LoadGauge } from "./runtime/load-gauge";
import { runTimings } from "./runtime/recovery";
import { createSignals } from "./runtime/signals";
import { startSweeper } from "./runtime/sweeper";
import type { Mailer } from "./services/mailer";
import { sendStraightToPostgres } from "./repositories/direct";

export interface PlatformParts {
  database: () => Promise<Database>;
  config: PlatformConfig;
  limiters: Limiters;
  mailer: Mailer;
  /** The model for a catalogue id (sim or a configured provider). */
  languageModel: (modelId: string) => RuntimeModel;
  /** Sweep for runs whose process died and resume them (default on); tests that sweep by hand turn it off. */
  sweepAbandonedRuns?: boolean;
  /** When the executor may start another run (runtime/load-gauge.ts); tests hold runs back with their own. */
  load?: LoadGauge;
  /** Run the job queue's handlers in this process (roles worker and all; default true). */
  runJobs?: boolean;
}

export function createPlatformDeps(parts: PlatformParts): PlatformDeps {
  let runtime: Promise<PlatformRuntime> | undefined;
  return {
    database: parts.database,
    config: parts.config,
    limiters: parts.limiters,
    mailer: parts.mailer,
    async close() {
      // The runtime holds a LISTEN connection on PostgreSQL: release it before the pool ends.
      if (runtime) await (await runtime).close();
      await parts.limiters.close();
    },
    runtime: () => {
      runtime ??= parts.database().then(async (database) => {
        if (database.driver.kind === "postgres") sendStraightToPostgres(database.prisma, database.driver.pool);
        const bus = createRunEventBus(database);
        const signals = createSignals(database);
        // Frames are written on a connection of their own: they never wait behind other queries for the pool.
        const writerClient = openDedicatedClient(database);
        if (writerClient.pool) sendStraightToPostgres(writerClient.prisma, writerClient.pool);
        const events = createRunEventWriter(writerClient.prisma);
        const live = createLiveContent();
        const pool = database.driver.kind === "postgres" ? database.driver.pool : undefined;
        const executor = createRunExecutor({
          prisma: database.prisma,
          config: parts.config,
          bus,
          events,
          mailer: parts.mailer,
          languageModel: parts.languageModel,
          live,
          load: parts.load ?? eventLoopGauge({ databaseSaturated: pool && (() => pool.waitingCount > 0) }),
        });
        // A lease not renewed for a grace period after it expired means its process is gone.
        const timings = runTimings(parts.config);
        const stopSweeper =
          parts.sweepAbandonedRuns === false
            ? () => {}
            : startSweeper(database.prisma, executor, { everyMs: timings.sweepEveryMs, graceMs: timings.graceMs });
        const jobs = createJobQueue({ database, work: parts.runJobs !== false });
        await jobs.start();
        await registerPlatformJobs(jobs, { prisma: database.prisma, config: parts.config });
        return {
          bus,
          signals,
          events,
          executor,
          live,
          jobs,
          keepAliveMs: timings.keepAliveMs,
          close: async () => {
            await jobs.stop();
            stopSweeper();
            await executor.idle();
            live.clear();
            await bus.close();
            await signals.close();
            await writerClient.close();
          },
        };
      });
      return runtime;
    },
  };
}
