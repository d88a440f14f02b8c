// App-event triggers on tasks (POST /tasks/{id}/triggers with an app event): the trigger names an
// app of the catalogue and one of its trigger types (GET /apps/{app}/triggers), with a config checked
// against that type's schema. The platform notices events by polling (jobs/app-trigger-polls.ts) with
// the connection of the trigger's scope; each new event starts the task's run.
import { Ajv, type ValidateFunction } from "ajv";
import type { z } from "zod";
import type { TriggerCreate, TriggerUpdate } from "@inlay/core/schemas/triggers";
import type { JsonObject } from "../../repositories/db";
import type { TriggerRowUpdate } from "../../repositories/task-triggers";
import { appCatalogOf } from "../../apps/catalog";
import type { AppDefinition, AppTriggerDefinition, JsonSchemaObject } from "../../apps/definition";
import type { PlatformConfig } from "../../platform-config";
import { PlatformError } from "../../errors";
import type { JobQueue } from "../../infrastructure/job-queue";

/** The stored type of every app-event trigger (its id reads `app_<n>`). */
export const APP_TRIGGER_TYPE = "app";

/** Input types that mean an app event: "app", "app_event", or "<app>.<trigger_name>". */
export function isAppTriggerType(type: string): boolean {
  return type === APP_TRIGGER_TYPE || type === "app_event" || /^[a-z0-9_-]+\.[a-z0-9_.-]+$/i.test(type);
}

const invalid = (field: string, message: string) =>
  new PlatformError({ type: "validation_error", message: `${field}: ${message}`, details: { fields: [{ field, message }] } });

const ajv = new Ajv({ allErrors: true, strict: false });
const validators = new WeakMap<JsonSchemaObject, ValidateFunction>();

function checkConfig(trigger: AppTriggerDefinition, config: Record<string, unknown>) {
  let validate = validators.get(trigger.config);
  if (!validate) validators.set(trigger.config, (validate = ajv.compile(trigger.config)));
  if (validate(config)) return;
  const error = validate.errors?.[0];
  const missing = error?.keyword === "required" ? `.${(error.params as { missingProperty: string }).missingProperty}` : "";
  const at = `trigger_config${(error?.instancePath ?? "").replaceAll("/", ".")}${missing}`;
  throw invalid(at, missing ? "is required" : (error?.message ?? "does not match the trigger type's schema"));
}

export interface AppTriggerChoice {
  app: AppDefinition;
  trigger: AppTriggerDefinition;
  config: Record<string, unknown>;
}

/** The app, trigger type and config an app-event trigger's create input names; 422 naming the field otherwise. */
export function chooseAppTrigger(config: PlatformConfig, input: z.infer<typeof TriggerCreate>): AppTriggerChoice {
  const dotted = /^([^.]+)\.(.+)$/.exec(input.type);
  const slug = input.app ?? dotted?.[1];
  const name = input.trigger_name ?? dotted?.[2];
  if (dotted && input.app !== undefined && input.app !== dotted[1]) throw invalid("app", `does not match type ${input.type}`);
  if (dotted && input.trigger_name !== undefined && input.trigger_name !== dotted[2]) throw invalid("trigger_name", `does not match type ${input.type}`);
  if (!slug) throw invalid("app", "is required for an app event trigger (see GET /apps)");
  if (!name) throw invalid("trigger_name", `is required for an app event trigger (see GET /apps/${slug}/triggers)`);
  const catalog = appCatalogOf(config);
  const app = catalog.get(slug);
  if (!app) throw invalid("app", `${slug} is not an app of this platform (see GET /apps)`);
  if (!catalog.configured(slug)) {
    throw new PlatformError({ type: "validation_error", errorCode: "app_not_configured", message: `app: ${slug} is not configured on this platform` });
  }
  const trigger = app.triggers.find((candidate) => candidate.name === name);
  if (!trigger) throw invalid("trigger_name", `${name} is not a trigger of ${slug} (see GET /apps/${slug}/triggers)`);
  if (!trigger.poll) throw invalid("trigger_name", `${slug}'s ${name} events cannot be received by this platform`);
  const extra = (["cron", "interval_seconds", "run_at", "timezone", "allowed_senders", "missed_runs", "max_lateness_seconds"] as const).find(
    (field) => input[field] !== undefined,
  );
  if (extra) throw invalid(extra, "an app event trigger has no schedule or senders; give app, trigger_name and trigger_config");
  const settings = input.trigger_config ?? {};
  checkConfig(trigger, settings);
  return { app, trigger, config: settings };
}

/** A PATCH of an app-event trigger: `enabled` and `trigger_config` (checked again); nothing else applies. */
export function appTriggerUpdate(
  config: PlatformConfig,
  current: { app: string | null; triggerName: string | null; enabled: boolean },
  input: z.infer<typeof TriggerUpdate>,
): TriggerRowUpdate | null {
  const extra = (["cron", "interval_seconds", "run_at", "timezone", "allowed_senders", "missed_runs", "max_lateness_seconds"] as const).find(
    (field) => input[field] !== undefined,
  );
  if (extra) throw invalid(extra, "an app event trigger has no schedule or senders");
  const trigger = appCatalogOf(config)
    .get(current.app ?? "")
    ?.triggers.find((candidate) => candidate.name === current.triggerName);
  const data: TriggerRowUpdate = {};
  if (input.trigger_config !== undefined) {
    if (!trigger) throw invalid("trigger_config", `${current.app}'s ${current.triggerName} is no longer in the catalogue`);
    checkConfig(trigger, input.trigger_config);
    // Other things to watch: the next poll sees them as they are, and fires for nothing already there.
    Object.assign(data, { triggerConfig: input.trigger_config as JsonObject, pollCursor: null });
  }
  if (input.enabled !== undefined) data.enabled = input.enabled;
  // Turned back on: what happened while it was off is not an event; the next poll records it first.
  if (input.enabled === true && !current.enabled) data.pollCursor = null;
  if (Object.keys(data).length === 0) return null;
  return data;
}

export const APP_POLL_JOB = "app-trigger-poll";
export const DEFAULT_APP_POLL_SECONDS = 60;
export interface AppPollData {
  triggerId: number;
  revision: number;
  at: string;
}
export const appPollKey = (data: AppPollData) => `${data.triggerId}:${data.revision}:${data.at}`;
export const appPollSeconds = (config: PlatformConfig) => config.apps?.triggerPollSeconds ?? DEFAULT_APP_POLL_SECONDS;
/** Enqueues the trigger's next poll, once whatever the callers. */
export function enqueuePoll(jobs: JobQueue, trigger: { id: number; revision: number; nextRunAt: Date | null }) {
  if (!trigger.nextRunAt) return Promise.resolve(null);
  const data: AppPollData = { triggerId: trigger.id, revision: trigger.revision, at: trigger.nextRunAt.toISOString() };
  return jobs.enqueue(APP_POLL_JOB, data, { key: appPollKey(data), startAfter: trigger.nextRunAt, retryLimit: 3, retryDelaySeconds: 5, retryBackoff: true });
}
