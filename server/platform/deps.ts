// Assembles the platform's dependencies. Every entry point (Next.js, the standalone server, tests,
// benchmarks) builds them here, so they differ only in configuration.
import type { RuntimeModel } from "./runtime/models/providers";
import type { Database } from "@/server/db";
import type { PlatformConfig, PlatformDeps, PlatformRuntime } from "./context";
import type { Limiters } from "./middleware/rate-limit";
import { createRunEventBus } from "./runtime/event-bus";
import { createRunExecutor } from "./runtime/executor";
import { createLiveContent } from "./runtime/live-content";
import { runTimings } from "./runtime/recovery";
import { startSweeper } from "./runtime/sweeper";
import type { Mailer } from "./services/mailer";

export interface PlatformParts {
  database: () => Promise<Database>;
  config: PlatformConfig;
  limiters: Limiters;
  mailer: Mailer;
  /** The model for a catalogue id (sim or a configured provider). */
  languageModel: (modelId: string) => RuntimeModel;
  /** Sweep for runs whose process died and resume them (default on); tests that sweep by hand turn it off. */
  sweepAbandonedRuns?: boolean;
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
      runtime ??= parts.database().then((database) => {
        const bus = createRunEventBus(database);
        const live = createLiveContent();
        const executor = createRunExecutor({
          prisma: database.prisma,
          config: parts.config,
          bus,
          mailer: parts.mailer,
          languageModel: parts.languageModel,
          live,
        });
        // A lease not renewed for a grace period after it expired means its process is gone.
        const timings = runTimings(parts.config);
        const stopSweeper =
          parts.sweepAbandonedRuns === false
            ? () => {}
            : startSweeper(database.prisma, executor, { everyMs: timings.sweepEveryMs, graceMs: timings.graceMs });
        return {
          bus,
          executor,
          live,
          close: async () => {
            stopSweeper();
            await executor.idle();
            live.clear();
            await bus.close();
          },
        };
      });
      return runtime;
    },
  };
}
