// Task triggers (/tasks/{task_id}/triggers, /triggers). A trigger belongs to its task's scope: user_id
// names it, and a task or trigger of another scope is not found. Schedule triggers (cron in a zone, an
// interval, or a one-time run_at), the task's webhook (task-webhooks.ts: one per task, webhook_<n>),
// email triggers (an address each) and app-event triggers (app-triggers.ts; polled). When a schedule
// fires is services/tasks/trigger-fires.ts's; when an app is polled, jobs/app-trigger-polls.ts's.
import type { z } from "zod";
import type { Page } from "@inlay/core/schemas/common";
import {
  type ListTriggerFiresQuery,
  type Trigger,
  type TriggerCreate,
  type TriggerFire,
  type TriggerUpdate,
} from "@inlay/core/schemas/triggers";
import type { Db, JsonObject } from "../../repositories/db";
import { PlatformError } from "../../errors";
import type { JobQueue } from "../../infrastructure/job-queue";
import { enqueuePoll } from "../apps/app-triggers";
import { enqueueFire } from "./trigger-fires";
import { firstDue, isTimeZone, parseRunAt, type ScheduleShape } from "./trigger-schedule";
import { checkSchedule } from "../../infrastructure/schedule-slots";
import * as triggers from "../../repositories/task-triggers";
import type { TriggerRow, TriggerRowUpdate } from "../../repositories/task-triggers";
import type { PlatformConfig } from "../../platform-config";
import type { DataContext } from "../../infrastructure/hot-cache";
import type { AuthContext } from "../account/auth";
import { toPage } from "../pagination";
import { resolveScope, type Scope } from "../scope";
import { APP_TRIGGER_TYPE, appTriggerUpdate, chooseAppTrigger, isAppTriggerType } from "../apps/app-triggers";
import { emailSettings, newInboxAddress } from "../messaging/email-addresses";
import { createWebhookTrigger, removeWebhook, setWebhookEnabled } from "./task-webhooks";
import { toTrigger, triggerApiId } from "./trigger-shape";

export type TriggerServiceContext = DataContext & { jobs: JobQueue; config: PlatformConfig };
type TriggerOut = z.infer<typeof Trigger>;

const invalid = (field: string, message: string) =>
  new PlatformError({ type: "validation_error", message: `${field}: ${message}`, details: { fields: [{ field, message }] } });


const taskNotFound = (id: number) => new PlatformError({ type: "not_found", message: `task ${id} not found` });
const triggerNotFound = (id: string) => new PlatformError({ type: "not_found", message: `trigger ${id} not found` });

async function scopedTask(ctx: TriggerServiceContext, scope: Scope, taskId: number): Promise<number> {
  const id = await triggers.findScopedTaskId(ctx.prisma, scope, taskId);
  if (id === null) throw taskNotFound(taskId);
  return id;
}

/** "schedule_12" → 12, when the row is of that type too (checked by the caller). */
function parseTriggerId(apiId: string): { type: string; id: number } {
  const cut = apiId.lastIndexOf("_");
  return { type: apiId.slice(0, cut), id: Number(apiId.slice(cut + 1)) };
}

async function loadTrigger(ctx: TriggerServiceContext, taskId: number, apiId: string): Promise<TriggerRow> {
  const { type, id } = parseTriggerId(apiId);
  const row = Number.isSafeInteger(id) && id <= 2_147_483_647 ? await triggers.findTrigger(ctx.prisma, taskId, id) : null;
  if (!row || row.type !== type) throw triggerNotFound(apiId);
  return row;
}

interface ScheduleInput {
  cron?: string;
  interval_seconds?: number;
  run_at?: string;
  timezone?: string;
}

/** The schedule a create or reshape asks for: exactly one of cron, interval_seconds and run_at. */
function scheduleShape(input: ScheduleInput, current: ScheduleShape | null, now: Date): ScheduleShape {
  const given = (["cron", "interval_seconds", "run_at"] as const).filter((field) => input[field] !== undefined);
  if (given.length > 1) throw invalid(given[1]!, `give one of cron, interval_seconds and run_at, not ${given.join(" and ")}`);
  const timezone = input.timezone ?? current?.timezone ?? "UTC";
  if (!isTimeZone(timezone)) throw invalid("timezone", `"${timezone}" is not an IANA time zone`);
  if (given.length === 0 && !current) throw invalid("cron", "a schedule trigger needs cron, interval_seconds or run_at");
  const shape: ScheduleShape =
    given[0] === "cron"
      ? { cron: input.cron!, intervalSeconds: null, runAt: null, timezone }
      : given[0] === "interval_seconds"
        ? { cron: null, intervalSeconds: input.interval_seconds!, runAt: null, timezone }
        : given[0] === "run_at"
          ? { cron: null, intervalSeconds: null, runAt: parseRunAt(input.run_at!, timezone), timezone }
          : { ...current!, timezone };
  if (shape.cron !== null) {
    if (shape.cron.split(/\s+/).length !== 5) throw invalid("cron", `"${shape.cron}" must have 5 fields (minute hour day month weekday)`);
    try {
      checkSchedule({ cron: shape.cron, timezone });
    } catch (error) {
      throw invalid("cron", error instanceof Error ? error.message : "is not a cron expression");
    }
  }
  if (shape.runAt !== null) {
    if (Number.isNaN(shape.runAt.getTime())) throw invalid("run_at", "is not a date and time");
    if (shape.runAt.getTime() < now.getTime() - 60_000) throw invalid("run_at", `${shape.runAt.toISOString()} has passed`);
  }
  return shape;
}

const shapeOf = (row: TriggerRow): ScheduleShape => ({ cron: row.cron, intervalSeconds: row.intervalSeconds, runAt: row.runAt, timezone: row.timezone });

export async function createTrigger(
  ctx: TriggerServiceContext,
  auth: AuthContext,
  userId: string | undefined,
  taskId: number,
  input: z.infer<typeof TriggerCreate>,
  baseUrl: string,
): Promise<TriggerOut> {
  const scope = await resolveScope(ctx, auth, userId);
  const task = await scopedTask(ctx, scope, taskId);
  // The task's one webhook: created, or rotated (a new URL) when it has one, as POST /tasks/{id}/webhook.
  if (input.type === "webhook") {
    const scheduleField = (["cron", "interval_seconds", "run_at", "timezone", "missed_runs", "max_lateness_seconds"] as const).find(
      (field) => input[field] !== undefined,
    );
    if (scheduleField) throw invalid(scheduleField, "a webhook trigger has no schedule");
    return createWebhookTrigger(ctx, task, baseUrl);
  }
  if (input.type === "email") return createEmailTrigger(ctx, scope, task, input);
  if (isAppTriggerType(input.type)) return createAppTrigger(ctx, scope, task, input);
  if (input.type !== "schedule") {
    throw invalid("type", "must be schedule, webhook, email, or an app event (app, or <app>.<trigger_name>)");
  }
  const now = new Date();
  const shape = scheduleShape(input, null, now);
  const row = await triggers.insertTrigger(ctx.prisma, {
    taskId: task,
    accountId: scope.accountId,
    endUserId: scope.endUserId,
    type: "schedule",
    cron: shape.cron,
    intervalSeconds: shape.intervalSeconds,
    runAt: shape.runAt,
    timezone: shape.timezone,
    missedRuns: input.missed_runs ?? "latest",
    maxLatenessSeconds: input.max_lateness_seconds ?? 3600,
    nextRunAt: firstDue(shape, now),
  });
  await enqueueFire(ctx.jobs, row);
  return toTrigger(row);
}

/**
 * The schedule trigger of POST /tasks with `schedule` (and `schedule_timezone`), or a one-time one
 * (`run_at`: a template's bootstrap task, services/tasks/template-tasks.ts), inserted in the
 * transaction that inserts the task: a task never exists without the schedule it was created with.
 * The caller enqueues its fire (enqueueFire) once that transaction has committed.
 */
export async function insertTaskScheduleTrigger(
  tx: Db,
  task: { id: number; accountId: number; endUserId: number | null },
  schedule: { cron: string; timezone: string | undefined } | { run_at: string; timezone?: undefined },
): Promise<TriggerRow> {
  const now = new Date();
  const shape = scheduleShape(schedule, null, now);
  return triggers.insertTrigger(tx, {
    taskId: task.id,
    accountId: task.accountId,
    endUserId: task.endUserId,
    type: "schedule",
    cron: shape.cron,
    runAt: shape.runAt,
    timezone: shape.timezone,
    nextRunAt: firstDue(shape, now),
  });
}

export async function listTaskTriggers(ctx: TriggerServiceContext, auth: AuthContext, userId: string | undefined, taskId: number) {
  const task = await scopedTask(ctx, await resolveScope(ctx, auth, userId), taskId);
  return { data: (await triggers.listTaskTriggers(ctx.prisma, task)).map(toTrigger), has_more: false };
}

export async function updateTrigger(
  ctx: TriggerServiceContext,
  auth: AuthContext,
  userId: string | undefined,
  taskId: number,
  triggerId: string,
  input: z.infer<typeof TriggerUpdate>,
): Promise<TriggerOut> {
  const task = await scopedTask(ctx, await resolveScope(ctx, auth, userId), taskId);
  const current = await loadTrigger(ctx, task, triggerId);
  if (current.type !== "email" && input.allowed_senders !== undefined) throw invalid("allowed_senders", "only email triggers have allowed_senders");
  if (current.type !== APP_TRIGGER_TYPE && input.trigger_config !== undefined) throw invalid("trigger_config", "only app event triggers have a config");
  if (current.type === "webhook") return updateWebhookTrigger(ctx, task, input);
  if (current.type === "email") return updateEmailTrigger(ctx, current, input);
  if (current.type === APP_TRIGGER_TYPE) return updateAppTrigger(ctx, current, input);
  const now = new Date();
  const reshapes = input.cron !== undefined || input.interval_seconds !== undefined || input.run_at !== undefined || input.timezone !== undefined;
  const data: TriggerRowUpdate = {
    ...(input.missed_runs !== undefined ? { missedRuns: input.missed_runs } : {}),
    ...(input.max_lateness_seconds !== undefined ? { maxLatenessSeconds: input.max_lateness_seconds } : {}),
  };
  const enabled = input.enabled ?? current.enabled;
  // When it fires changes (a new shape, or turned on or off): a new revision, so a fire queued for the
  // old one does nothing, and a new next due time. Other edits keep next_run_at.
  if (reshapes || input.enabled !== undefined) {
    const shape = reshapes ? scheduleShape(input, shapeOf(current), now) : shapeOf(current);
    if (enabled && !reshapes && shape.runAt && current.retiredAt) {
      throw invalid("run_at", "this one-time trigger has fired; give a new run_at to run it again");
    }
    Object.assign(data, {
      cron: shape.cron,
      intervalSeconds: shape.intervalSeconds,
      runAt: shape.runAt,
      timezone: shape.timezone,
      enabled,
      revision: { increment: 1 },
      retiredAt: reshapes ? null : current.retiredAt,
      nextRunAt: enabled ? (reshapes || !current.enabled || !current.nextRunAt ? firstDue(shape, now) : current.nextRunAt) : null,
    });
  }
  const row = await triggers.updateTrigger(ctx.prisma, current.id, data);
  if (row.revision !== current.revision && row.enabled && row.nextRunAt && !row.retiredAt) await enqueueFire(ctx.jobs, row);
  return toTrigger(row);
}

export async function deleteTrigger(ctx: TriggerServiceContext, auth: AuthContext, userId: string | undefined, taskId: number, triggerId: string) {
  const task = await scopedTask(ctx, await resolveScope(ctx, auth, userId), taskId);
  const row = await loadTrigger(ctx, task, triggerId);
  // The webhook goes with its trigger (as DELETE /tasks/{id}/webhook): its URL answers 404 from now on.
  if (row.type === "webhook") return removeWebhook(ctx, task);
  // Its queued fire finds the row gone and does nothing.
  await triggers.deleteTrigger(ctx.prisma, task, row.id);
}

// ---------------------------------------------------------------------------------------------
// Email triggers: an address of their own (services/messaging/email-addresses.ts); mail to it from
// allowed_senders starts the task's run (entry-points/email-inbound.ts).

const SCHEDULE_FIELDS = ["cron", "interval_seconds", "run_at", "timezone", "missed_runs", "max_lateness_seconds"] as const;

async function createEmailTrigger(
  ctx: TriggerServiceContext,
  scope: Scope,
  taskId: number,
  input: z.infer<typeof TriggerCreate>,
): Promise<TriggerOut> {
  const field = [...SCHEDULE_FIELDS, "app", "trigger_name", "trigger_config"].find((name) => input[name as keyof typeof input] !== undefined);
  if (field) throw invalid(field, "an email trigger has no schedule or app; give allowed_senders only");
  const row = await triggers.insertTrigger(ctx.prisma, {
    taskId,
    accountId: scope.accountId,
    endUserId: scope.endUserId,
    type: "email",
    allowedSenders: (input.allowed_senders ?? []).map((entry) => entry.trim().toLowerCase()),
    emailAddress: newInboxAddress(emailSettings(ctx.config).domain, `task-${taskId}`),
  });
  return toTrigger(row);
}

/** PATCH of an email trigger: `enabled` and (extension) `allowed_senders`; it has no schedule. */
async function updateEmailTrigger(ctx: TriggerServiceContext, current: TriggerRow, input: z.infer<typeof TriggerUpdate>): Promise<TriggerOut> {
  const field = SCHEDULE_FIELDS.find((name) => input[name] !== undefined);
  if (field) throw invalid(field, "an email trigger has no schedule; only enabled and allowed_senders can change");
  const data: TriggerRowUpdate = {};
  if (input.enabled !== undefined) data.enabled = input.enabled;
  if (input.allowed_senders !== undefined) data.allowedSenders = input.allowed_senders.map((entry) => entry.trim().toLowerCase());
  if (Object.keys(data).length === 0) return toTrigger(current);
  return toTrigger(await triggers.updateTrigger(ctx.prisma, current.id, data));
}

/** PATCH of a webhook trigger: only `enabled` (as PATCH /tasks/{id}/webhook); it has no schedule. */
async function updateWebhookTrigger(ctx: TriggerServiceContext, taskId: number, input: z.infer<typeof TriggerUpdate>): Promise<TriggerOut> {
  const scheduleField = (["cron", "interval_seconds", "run_at", "timezone", "missed_runs", "max_lateness_seconds"] as const).find(
    (field) => input[field] !== undefined,
  );
  if (scheduleField) throw invalid(scheduleField, "a webhook trigger has no schedule; only enabled can change");
  if (input.enabled === undefined) {
    const row = await triggers.findWebhookTrigger(ctx.prisma, taskId);
    if (!row) throw triggerNotFound(`webhook of task ${taskId}`);
    return toTrigger(row);
  }
  return toTrigger((await setWebhookEnabled(ctx, taskId, input.enabled)).trigger);
}

export async function listAccountTriggers(
  ctx: TriggerServiceContext,
  auth: AuthContext,
  query: { user_id?: string; type?: string; task_id?: number; limit: number; starting_after?: string },
): Promise<Page<TriggerOut>> {
  const scope = query.user_id === undefined ? undefined : await resolveScope(ctx, auth, query.user_id);
  const after = query.starting_after ? parseCursor(query.starting_after) : undefined;
  const rows = await triggers.listAccountTriggers(ctx.prisma, auth.accountId, {
    endUserId: scope?.endUserId ?? undefined,
    type: query.type,
    taskId: query.task_id,
    after,
    limit: query.limit,
  });
  return toPage(rows, query.limit, toTrigger);
}

function parseCursor(cursor: string): { taskId: number; id: number } {
  const [task, trigger] = cursor.split(":");
  const { id } = parseTriggerId(trigger!);
  const taskId = Number(task);
  if (!Number.isSafeInteger(taskId) || !Number.isSafeInteger(id)) throw invalid("starting_after", "must be <task_id>:<trigger_id>");
  return { taskId, id };
}

export async function listFires(
  ctx: TriggerServiceContext,
  auth: AuthContext,
  taskId: number,
  triggerId: string,
  query: z.infer<typeof ListTriggerFiresQuery>,
): Promise<Page<z.infer<typeof TriggerFire>>> {
  const task = await scopedTask(ctx, await resolveScope(ctx, auth, query.user_id), taskId);
  const row = await loadTrigger(ctx, task, triggerId);
  const fires = await triggers.listFires(ctx.prisma, row.id, { limit: query.limit, startingAfter: query.starting_after });
  return toPage(fires, query.limit, (fire) => ({
    id: Number(fire.id),
    trigger_id: triggerApiId(row),
    due_at: fire.dueAt.toISOString(),
    fired_at: fire.firedAt.toISOString(),
    outcome: fire.outcome as "starting" | "started" | "refused" | "skipped",
    run_id: fire.runId,
    reason: fire.reason,
  }));
}


// ---------------------------------------------------------------------------------------------
// App-event triggers: the app is polled for new events (jobs/app-trigger-polls.ts) with the connection
// of the trigger's scope; next_run_at is the next poll.

async function createAppTrigger(ctx: TriggerServiceContext, scope: Scope, taskId: number, input: z.infer<typeof TriggerCreate>): Promise<TriggerOut> {
  const choice = chooseAppTrigger(ctx.config, input);
  const row = await triggers.insertTrigger(ctx.prisma, {
    taskId,
    accountId: scope.accountId,
    endUserId: scope.endUserId,
    type: APP_TRIGGER_TYPE,
    app: choice.app.slug,
    triggerName: choice.trigger.name,
    triggerConfig: choice.config as JsonObject,
    // The first poll, at once, records what is already there.
    nextRunAt: new Date(),
  });
  await enqueuePoll(ctx.jobs, row);
  return toTrigger(row);
}

async function updateAppTrigger(ctx: TriggerServiceContext, current: TriggerRow, input: z.infer<typeof TriggerUpdate>): Promise<TriggerOut> {
  const data = appTriggerUpdate(ctx.config, current, input);
  if (!data) return toTrigger(current);
  const enabled = (data.enabled as boolean | undefined) ?? current.enabled;
  // A new revision: the poll queued for the old one does nothing; an enabled trigger polls again now.
  const row = await triggers.updateTrigger(ctx.prisma, current.id, { ...data, revision: { increment: 1 }, nextRunAt: enabled ? new Date() : null });
  if (row.enabled) await enqueuePoll(ctx.jobs, row);
  return toTrigger(row);
}
