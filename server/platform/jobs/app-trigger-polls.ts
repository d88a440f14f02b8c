// App-event triggers notice events by polling (docs/platform-api.md, "App event triggers"):
//
//   poll    one job per (trigger, revision, poll time): calls the trigger type's poll tool with the
//           connection of the trigger's scope, and every item it has not seen is an event that starts
//           the task's run (recorded as a fire, or refused with its reason). The first poll only
//           records what is there. It then moves next_run_at on by the poll interval and enqueues the
//           next poll; a trigger edited (another revision), disabled or deleted makes a queued poll do
//           nothing.
//   sweep   every minute: re-enqueues the poll of an enabled trigger whose poll is long overdue (a
//           process killed between moving next_run_at and enqueueing).
//
// The events a poll found belong to the poll that moves the trigger's cursor from the version it
// read, so two instances polling one trigger never start one event's run twice.
import { logger } from "@/lib/logger";
import type { Db } from "../repositories/db";
import { appCatalogOf } from "../apps/catalog";
import type { PlatformConfig } from "../platform-config";
import { PlatformError } from "../errors";
import { advanceTrigger, findOverdueTriggers, findTriggerForFire, movePollCursor, recordEventFire, recordPollOutcome } from "../repositories/task-triggers";
import { callAppTool } from "../services/apps/app-calls";
import { appForAccount, appUsable, connectionsForRun } from "../services/apps/app-credentials";
import { APP_TRIGGER_TYPE } from "../services/apps/app-triggers";
import { type JobQueue, jobIdForKey } from "../infrastructure/job-queue";
import { APP_POLL_JOB, type AppPollData, appPollKey, appPollSeconds, enqueuePoll } from "../services/apps/app-triggers";

export const APP_POLL_SWEEP_JOB = "app-trigger-poll-sweep";
/** Poll interval when the configuration says none. */
/** Event ids a trigger remembers (the newest): enough for any page a poll reads. */
const SEEN_MAX = 500;
/** Runs one poll starts at most; the rest are recorded as skipped fires. */
export const MAX_EVENTS_PER_POLL = 10;





export type PollTrigger = NonNullable<Awaited<ReturnType<typeof findTriggerForFire>>>;

/** One event: what the task's run is told about it. */
export interface AppEvent {
  app: string;
  triggerName: string;
  id: string;
  item: unknown;
}

/** What the run's message holds of an event at most (a very long item is cut, and says so). */
export const APP_EVENT_MAX_CHARS = 32_000;

/** The event as the task's run reads it. */
export function appEventText(event: AppEvent): string {
  const text = JSON.stringify({ app: event.app, trigger: event.triggerName, id: event.id, event: event.item }, null, 2);
  return text.length <= APP_EVENT_MAX_CHARS ? text : `${text.slice(0, APP_EVENT_MAX_CHARS)}\n… (cut at ${APP_EVENT_MAX_CHARS} characters)`;
}

/** Starts the task's run for one event; the run's id. Throws PlatformError when admission refuses it. */
export type StartAppEventRun = (trigger: PollTrigger, event: AppEvent) => Promise<number>;

export interface AppTriggerPollDeps {
  prisma: Db;
  config: PlatformConfig;
  jobs: JobQueue;
  startRun: StartAppEventRun;
}

const pick = (value: unknown, path: string | undefined): unknown =>
  !path ? value : path.split(".").reduce<unknown>((node, key) => (node && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined), value);

export type PollResult = { error: string } | { baseline: number } | { events: number; skipped: number } | { stale: true };

/** Asks the app once for the trigger's events and starts a run for each new one. */
export async function pollAppTrigger(deps: AppTriggerPollDeps, trigger: PollTrigger, now = new Date()): Promise<PollResult> {
  const { prisma, config } = deps;
  const fail = async (error: string): Promise<PollResult> => {
    await recordPollOutcome(prisma, trigger.id, now, error);
    return { error };
  };
  const catalog = appCatalogOf(config);
  const app = catalog.get(trigger.app ?? "");
  const type = app?.triggers.find((candidate) => candidate.name === trigger.triggerName);
  if (!app || !type?.poll) return fail(`${trigger.app}'s ${trigger.triggerName} is not in this platform's catalogue any more`);
  const ctx = { prisma, config };
  const forAccount = await appForAccount(ctx, trigger.accountId, app.slug);
  if (!forAccount || !appUsable(forAccount)) return fail(`${app.slug} is not configured on this platform`);
  const tool = app.tools.find((candidate) => candidate.name === type.poll!.tool);
  if (!tool) return fail(`${app.slug} has no tool ${type.poll.tool} to poll with`);
  const scope = { accountId: trigger.accountId, endUserId: trigger.endUserId };
  const connection = (await connectionsForRun(ctx, scope, trigger.task.agentId)).find((row) => row.app === app.slug && row.status === "active");
  if (!connection) return fail(`no active ${app.name} connection in this trigger's scope; connect ${app.slug} (POST /apps/${app.slug}/connect)`);

  const input = { ...type.poll.input, ...((trigger.triggerConfig as Record<string, unknown> | null) ?? {}) };
  const answer = await callAppTool(ctx, app, tool, input, connection.id);
  if (!answer.ok) return fail(answer.error);
  // Some APIs (team chat's) answer errors as 200 {ok: false, error}.
  if (answer.body && typeof answer.body === "object" && (answer.body as { ok?: unknown }).ok === false) {
    return fail(`${app.name} answered ${String((answer.body as { error?: unknown }).error ?? "an error")}`);
  }
  const items = pick(answer.body, type.poll.items);
  if (!Array.isArray(items)) return fail(`${app.name}'s answer has no list of items${type.poll.items ? ` at ${type.poll.items}` : ""}`);
  const events = items.flatMap((item: unknown) => {
    const id = pick(item, type.poll!.id);
    return typeof id === "string" || typeof id === "number" ? [{ id: String(id), item }] : [];
  });

  const cursor = trigger.pollCursor as { seen?: string[] } | null;
  const seen = new Set(cursor?.seen ?? []);
  // The app lists newest first: the runs start oldest first.
  const fresh = cursor ? events.filter((event) => !seen.has(event.id)).reverse() : [];
  const nextSeen = [...new Set([...events.map((event) => event.id), ...(cursor?.seen ?? [])])].slice(0, SEEN_MAX);
  if (!(await movePollCursor(prisma, trigger.id, trigger.pollVersion, { seen: nextSeen }, now))) return { stale: true };
  if (!cursor) return { baseline: events.length };

  const starting = fresh.slice(0, MAX_EVENTS_PER_POLL);
  for (const event of starting) {
    try {
      const runId = await deps.startRun(trigger, { app: app.slug, triggerName: type.name, id: event.id, item: event.item });
      await recordEventFire(prisma, trigger.id, { outcome: "started", runId });
    } catch (error) {
      // A cap, the balance or a rate limit: recorded with its reason. The event is not tried again.
      const reason = error instanceof PlatformError ? `${error.type}: ${error.message}` : "the run could not be started";
      if (!(error instanceof PlatformError)) logger.error({ err: error, triggerId: trigger.id, event: event.id }, "app event run failed to start");
      await recordEventFire(prisma, trigger.id, { outcome: "refused", reason });
    }
  }
  for (const event of fresh.slice(MAX_EVENTS_PER_POLL)) {
    await recordEventFire(prisma, trigger.id, { outcome: "skipped", reason: `event ${event.id}: more than ${MAX_EVENTS_PER_POLL} new events in one poll` });
  }
  return { events: starting.length, skipped: fresh.length - starting.length };
}

export async function registerAppTriggerPolls(deps: AppTriggerPollDeps): Promise<void> {
  const { prisma, jobs } = deps;
  const intervalMs = appPollSeconds(deps.config) * 1000;

  const poll = async ({ data }: { data: AppPollData }) => {
    const trigger = await findTriggerForFire(prisma, data.triggerId);
    if (!trigger || trigger.type !== APP_TRIGGER_TYPE || trigger.revision !== data.revision || !trigger.enabled) return { stale: true };
    const result = await pollAppTrigger(deps, trigger);
    const next = new Date(Date.now() + intervalMs);
    if (await advanceTrigger(prisma, trigger.id, trigger.revision, { nextRunAt: next })) {
      await enqueuePoll(jobs, { id: trigger.id, revision: trigger.revision, nextRunAt: next });
    }
    return result;
  };

  const sweep = async () => {
    let requeued = 0;
    const overdue = new Date(Date.now() - 2 * intervalMs - 60_000);
    for (const trigger of await findOverdueTriggers(prisma, APP_TRIGGER_TYPE, overdue, 1_000)) {
      const data: AppPollData = { triggerId: trigger.id, revision: trigger.revision, at: trigger.nextRunAt!.toISOString() };
      const job = await jobs.inspect(APP_POLL_JOB, jobIdForKey(APP_POLL_JOB, appPollKey(data)));
      if (job && ["created", "retry", "active"].includes(job.state)) continue;
      await jobs.enqueue(APP_POLL_JOB, data, { key: `${appPollKey(data)}:swept-${Date.now()}` });
      requeued++;
    }
    if (requeued > 0) logger.warn({ requeued }, "app trigger polls re-enqueued by the sweep");
    return { requeued };
  };

  await jobs.register<AppPollData>(APP_POLL_JOB, poll, { concurrency: 4, expireInSeconds: 300 });
  await jobs.register(APP_POLL_SWEEP_JOB, sweep, { retryLimit: 0 });
  await jobs.schedule(APP_POLL_SWEEP_JOB, "every-minute", { cron: "* * * * *", timezone: "UTC" });
}
