// Assembles the platform's dependencies. Every entry point (Next.js, the standalone server, tests,
// benchmarks) builds them here, so they differ only in configuration and role.
import { addCollector, databasePool, setQueueStats } from "./observability/metrics";
import type { RuntimeModel } from "./models/providers";
import { type Database, openDedicatedClient } from "@/server/shared/db";
import type { Limiters, PlatformDeps, PlatformRole, PlatformRuntime } from "./context";
import type { PlatformConfig } from "./platform-config";
import { createRunEventBus, runEventsWakeUp } from "./infrastructure/event-bus";
import { createRunFollowers } from "./infrastructure/run-followers";
import { createRunEventWriter } from "./infrastructure/event-writer";
import { RUN_READY } from "./runtime/run-pass";
import { createRunWorker } from "./runtime/run-worker";
import { reportRoom, type WorkerThread } from "./runtime/worker-thread";
import { METADATA_ONLY } from "./infrastructure/redact";
import { registerPlatformJobs } from "./jobs/platform-jobs";
import { registerPaymentJobs } from "./jobs/payment-jobs";
import { createJobQueue, queueStats } from "./infrastructure/job-queue";
import { registerWebhookDelivery } from "./jobs/webhook-delivery";
import { appEventText, registerAppTriggerPolls } from "./jobs/app-trigger-polls";
import { registerTriggerFiring } from "./services/tasks/trigger-fires";
import { registerFetchmailPolls } from "./jobs/fetchmail-polls";
import { findTaskInAccount } from "./repositories/tasks";
import { accountActing } from "./services/account/auth";
import { runTask } from "./services/tasks/tasks";
import { createLiveContent } from "./infrastructure/live-content";
import { runTimings } from "./runtime/recovery";
import { createHotCache } from "./infrastructure/hot-cache";
import { createSignals } from "./infrastructure/signals";
import type { Mailer } from "./services/messaging/mailer";
import { emailSettings } from "./services/messaging/email-addresses";
import { registerBridgeReplies } from "./entry-points/bridge-inbound";
import { registerEmailReplies, startFetchedMailRun } from "./entry-points/email-inbound";
import { startSmtpServer } from "./inbound/smtp-server";
import { sendStraightToPostgres } from "./repositories/direct";
import { toolServerOutbound } from "./services/tool-servers/tool-server-calls";
import { loadPlanCatalogue, setPlanCatalogue } from "./services/billing/plans";
import { closeMcpClients } from "./tool-servers/mcp-client";
import { createScriptSandbox, type ScriptSandbox, type ScriptSandboxOptions } from "./tool-servers/script-sandbox";

export interface PlatformParts {
  database: () => Promise<Database>;
  config: PlatformConfig;
  limiters: Limiters;
  mailer: Mailer;
  /** The model for a catalogue id (sim or a configured provider). */
  languageModel: (modelId: string) => RuntimeModel;
  /** web: executes nothing; worker and all: claim and execute runs (default all). */
  role?: PlatformRole;
  /** Runs this process's worker executes at once (default 200). */
  workerConcurrency?: number;
  /**
   * Look for claimable runs every RunTimings.sweepEveryMs and at start (default on); tests that build
   * orphaned runs by hand turn it off and call worker.claim() themselves.
   */
  pollRuns?: boolean;
  /** Run the job queue's handlers in this process (default: unless the role is web). */
  runJobs?: boolean;
  /** How often idle job handlers look for due jobs (default 2 s; tests of retries shorten it). */
  jobPollSeconds?: number;
  /** Builds the script tool servers' sandbox (default createScriptSandbox); tests may give a fake. */
  scriptSandbox?: (options: ScriptSandboxOptions) => ScriptSandbox;
  /**
   * Role all on PostgreSQL: the thread that executes this process's standard runs
   * (runtime/worker-thread.ts). This thread's worker keeps the metadata_only ones.
   */
  workerThread?: WorkerThread | Promise<WorkerThread>;
  /** Role worker, as that thread: executes standard runs only, under the process's lease owner; no jobs, no inbound mail. */
  thread?: { owner: string };
}

export const DEFAULT_WORKER_CONCURRENCY = 200;

export function createPlatformDeps(parts: PlatformParts): PlatformDeps {
  // The process's plan catalogue: a mistake in the operator's file stops the start here, naming it.
  setPlanCatalogue(parts.config.plans?.catalogue ?? loadPlanCatalogue(parts.config.plans?.file));
  let runtime: Promise<PlatformRuntime> | undefined;
  const role = parts.role ?? "all";
  return {
    database: parts.database,
    config: parts.config,
    limiters: parts.limiters,
    mailer: parts.mailer,
    languageModel: parts.languageModel,
    async close() {
      // The runtime holds a LISTEN connection on PostgreSQL: release it before the pool ends.
      if (runtime) await (await runtime).close();
      await parts.limiters.close();
    },
    runtime: () => {
      runtime ??= parts.database().then(async (database) => {
        const prepared = database.driver.kind === "postgres" && database.driver.preparedStatements;
        if (database.driver.kind === "postgres") sendStraightToPostgres(database.prisma, database.driver.pool, prepared);
        const signals = createSignals(database);
        const bus = createRunEventBus(database, signals);
        const cache = createHotCache(signals);
        // Frames are written on a connection of their own: they never wait behind other queries for the pool.
        const writerClient = openDedicatedClient(database);
        if (writerClient.pool) sendStraightToPostgres(writerClient.prisma, writerClient.pool, prepared);
        // Its statement also wakes the other instances' readers of the runs it writes (no NOTIFY apart).
        const events = createRunEventWriter(writerClient.prisma, runEventsWakeUp(signals));
        const live = createLiveContent();
        const followers = createRunFollowers({ prisma: database.prisma, bus, live });
        // Interpreters are costly to start: none until a script is approved or called, then one pool per process.
        let sandbox: ScriptSandbox | undefined;
        const scriptSandbox = () =>
          (sandbox ??= (parts.scriptSandbox ?? createScriptSandbox)({ ...parts.config.scripts, outbound: toolServerOutbound(parts.config) }));
        const timings = runTimings(parts.config);
        const polling = parts.pollRuns !== false;
        // Before the worker: the task_setup tool of its runs enqueues trigger fires.
        const work = parts.runJobs ?? (role !== "web" && !parts.thread);
        const { thread } = parts;
        const workerThread = parts.workerThread && (await parts.workerThread);
        const jobs = createJobQueue({ database, work, pollingIntervalSeconds: parts.jobPollSeconds });
        await jobs.start();
        const worker =
          role === "web"
            ? undefined
            : createRunWorker(
                { prisma: database.prisma, leases: writerClient.prisma, config: parts.config, bus, signals, events, mailer: parts.mailer, languageModel: parts.languageModel, live, cache, jobs, scriptSandbox },
                {
                  concurrency: parts.workerConcurrency ?? DEFAULT_WORKER_CONCURRENCY,
                  pollMs: polling ? timings.sweepEveryMs : 0,
                  // With a worker thread each thread claims its own kind of run, under the one owner.
                  ...(workerThread ? { owner: workerThread.owner, claims: "metadata_only" as const } : {}),
                  ...(thread ? { owner: thread.owner, claims: "standard" as const, onRoomChange: reportRoom } : {}),
                },
              );
        // What waits from before this process started (accepted while no worker ran, or left by one that died).
        if (worker && polling) void worker.claim();
        await registerPlatformJobs(jobs, { prisma: database.prisma, config: parts.config });
        await registerPaymentJobs({ prisma: database.prisma, config: parts.config, jobs, mailer: parts.mailer });
        const webhooks = await registerWebhookDelivery({ prisma: database.prisma, config: parts.config, jobs, signals }, { work });
        // What /metrics reads when scraped: the queue's depth and lag, the pool's use.
        const removeCollector = addCollector(async () => {
          setQueueStats(await queueStats(database));
          if (database.driver.kind === "postgres") {
            const { pool } = database.driver;
            databasePool.set({ state: "total" }, pool.totalCount);
            databasePool.set({ state: "idle" }, pool.idleCount);
            databasePool.set({ state: "waiting" }, pool.waitingCount);
          }
        });
        const draining = new AbortController();
        let workerStopped: Promise<void> | undefined;
        const drain = (waitMs?: number) => {
          if (draining.signal.aborted) return;
          draining.abort();
          workerStopped = worker?.stop(waitMs);
          workerThread?.drain(waitMs);
        };
        const built: PlatformRuntime = {
          bus,
          followers,
          signals,
          cache,
          events,
          worker,
          live,
          jobs,
          keepAliveMs: timings.keepAliveMs,
          scriptSandbox,
          startRun(runId, known) {
            // A metadata_only run's conversation is this thread's memory: only standard ones go to the thread.
            if (worker && known && known.run.leaseOwner === worker.lease.owner) {
              if (workerThread && known.run.retention !== METADATA_ONLY) workerThread.runLeased(known);
              else worker.runLeased(known);
            }
            // This process's own workers hear it here; the others heard the statement's NOTIFY.
            else signals.publish(RUN_READY, String(runId), known?.othersWoken ? { localOnly: true } : undefined);
          },
          localLease: () => (worker?.hasRoom() && (!workerThread || workerThread.hasRoom()) ? worker.lease : undefined),
          runReady: signals.notice(RUN_READY),
          draining: draining.signal,
          drain,
          close: async () => {
            // The worker first: its runs are handed back at once, while the queue's handlers may take seconds.
            drain();
            await Promise.all([workerStopped, workerThread?.close()]);
            removeCollector();
            await webhooks.stop();
            await jobs.stop();
            await sandbox?.close();
            // The MCP sessions kept for successive calls are the process's; the worker that used them has stopped.
            await closeMcpClients();
            live.clear();
            followers.close();
            await bus.close();
            cache.close();
            await signals.close();
            await writerClient.close();
          },
        };
        // A trigger's fire starts the task's run as POST /tasks/{id}/runs would, admission included.
        await registerTriggerFiring({
          prisma: database.prisma,
          jobs,
          startRun: async (trigger) => {
            const task = await findTaskInAccount(database.prisma, trigger.accountId, trigger.taskId);
            if (!task) throw new Error(`trigger ${trigger.id}: its task ${trigger.taskId} is gone`);
            const runs = { prisma: database.prisma, cache, config: parts.config, bus, events, live, startRun: built.startRun, lease: built.localLease() };
            return (await runTask(runs, accountActing(task.accountId), task, { stream: false })).run.id;
          },
        });
        // An app-event trigger's poll starts the task's run for each new event, as a fire does.
        await registerAppTriggerPolls({
          prisma: database.prisma,
          config: parts.config,
          jobs,
          startRun: async (trigger, event) => {
            const task = await findTaskInAccount(database.prisma, trigger.accountId, trigger.taskId);
            if (!task) throw new Error(`trigger ${trigger.id}: its task ${trigger.taskId} is gone`);
            const runs = { prisma: database.prisma, cache, config: parts.config, bus, events, live, startRun: built.startRun, lease: built.localLease() };
            const appEvent = appEventText(event);
            const metadata = { source: "app_event", app: event.app, event_id: event.id };
            return (await runTask(runs, accountActing(task.accountId), task, { stream: false, metadata }, undefined, { appEvent })).run.id;
          },
        });
        // fetchmail: each new message of an agent's outside mailbox starts the agent's run, as an inbox's mail does.
        await registerFetchmailPolls({
          prisma: database.prisma,
          config: parts.config,
          jobs,
          startRun: async (box, sender, mail) => {
            const runs = { prisma: database.prisma, cache, config: parts.config, bus, events, live, startRun: built.startRun, lease: built.localLease() };
            return startFetchedMailRun(runs, box.accountId, box.agentId, sender, mail);
          },
        });
        // --- Email (docs/platform-api.md, "Email"): replies by mail in every role; the inbound SMTP
        // server of agent inboxes and email triggers only where runs are executed, when configured.
        const email = emailSettings(parts.config);
        await registerEmailReplies({ prisma: database.prisma, jobs, mailer: parts.mailer, domain: email.domain });
        // iMessage answers through the account's bridge server (docs/platform-api.md, "Bridges").
        await registerBridgeReplies({ prisma: database.prisma, jobs, config: parts.config });
        if (email.smtp && role !== "web" && !thread) {
          // Built per message: the lease is this worker's only while it has room.
          const inbound = () => ({
            prisma: database.prisma,
            cache,
            config: parts.config,
            bus,
            events,
            live,
            jobs,
            startRun: built.startRun,
            lease: built.localLease(),
          });
          const smtp = await startSmtpServer(email.smtp, inbound);
          built.smtp = { port: smtp.port };
          const closeRest = built.close;
          built.close = async () => {
            await smtp.close();
            await closeRest();
          };
        }
        return built;
      });
      return runtime;
    },
  };
}
