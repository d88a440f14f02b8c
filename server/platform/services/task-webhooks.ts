// A task's inbound webhook (/tasks/{task_id}/webhook, POST /hooks/tasks/{token}): a secret URL whose
// calls start the task's run with the call's body as the payload. The token is shown once, by the call
// that issues it; only its SHA-256 is kept (on the task). Each task has at most one, listed among its
// triggers as webhook_<n>: the trigger row and the task's webhook fields change together, in one
// transaction that locks the task row first. No HTTP here.
import { randomBytes } from "node:crypto";
import type { z } from "zod";
import type { TaskWebhook, TaskWebhookAccepted, Trigger } from "@/lib/schemas/triggers";
import type { Db } from "../repositories/db";
import { PlatformError } from "../errors";
import * as triggers from "../repositories/task-triggers";
import type { TriggerRow } from "../repositories/task-triggers";
import { findTaskByWebhookHash, updateTask, type TaskRow } from "../repositories/tasks";
import type { DataContext } from "../runtime/hot-cache";
import { accountActing, type AuthContext } from "./auth";
import { createIdempotently, requestHash } from "./idempotency";
import { getRunInAccount, type RunServiceContext } from "./runs";
import { resolveScope } from "./scope";
import { toTrigger, triggerApiId } from "./task-triggers";
import { runTask } from "./tasks";
import { sha256Hex } from "@/server/secret-box";

type TaskWebhookOut = z.infer<typeof TaskWebhook>;
type TriggerOut = z.infer<typeof Trigger>;

/** Where inbound calls go, under the platform's base URL (…/api/v2). */
export const TASK_HOOK_PATH = "/hooks/tasks";
/** 32 random bytes, base64url: 43 characters. */
const TOKEN_BYTES = 32;
/** The most of a payload a run's message carries; the rest is cut with a note saying how much. */
export const WEBHOOK_PAYLOAD_MAX_CHARS = 64_000;


/** A new inbound-webhook token (task or agent webhooks) and the hash that is all we keep of it. */
export function newWebhookToken(): { token: string; hash: string } {
  const token = randomBytes(TOKEN_BYTES).toString("base64url");
  return { token, hash: sha256Hex(token) };
}

const webhookUrl = (baseUrl: string, token: string) => `${baseUrl}${TASK_HOOK_PATH}/${token}`;

const taskNotFound = (id: number) => new PlatformError({ type: "not_found", message: `task ${id} not found` });
const noWebhook = (id: number) =>
  new PlatformError({ type: "not_found", message: `task ${id} has no webhook; create one with POST /tasks/${id}/webhook` });

function toTaskWebhook(task: TaskRow, trigger: TriggerRow, url?: string): TaskWebhookOut {
  return {
    task_id: task.id,
    user_id: task.endUser?.externalId ?? null,
    trigger_id: triggerApiId(trigger),
    enabled: task.webhookEnabled,
    ...(url !== undefined ? { webhook_url: url } : {}),
    created_at: trigger.createdAt.toISOString(),
    updated_at: trigger.updatedAt.toISOString(),
  };
}

async function scopedTask(ctx: DataContext, auth: AuthContext, userId: string | undefined, taskId: number): Promise<number> {
  const scope = await resolveScope(ctx, auth, userId);
  const id = await triggers.findScopedTaskId(ctx.prisma, scope, taskId);
  if (id === null) throw taskNotFound(taskId);
  return id;
}

/**
 * Issues a new token for the task (in `tx`, whose caller has the task in reach) and enables its
 * webhook, creating its trigger row the first time. The old token, if any, stops working.
 */
export async function issueTaskWebhook(tx: Db, taskId: number, baseUrl: string) {
  const { token, hash } = newWebhookToken();
  // The task row first: it locks the task, so two calls at once never create two trigger rows.
  const task = await updateTask(tx, taskId, { webhookEnabled: true, webhookTokenHash: hash });
  const existing = await triggers.findWebhookTrigger(tx, taskId);
  const trigger = existing
    ? await triggers.updateTrigger(tx, existing.id, { enabled: true })
    : await triggers.insertTrigger(tx, { taskId, accountId: task.accountId, endUserId: task.endUserId, type: "webhook", enabled: true });
  return { task, trigger, url: webhookUrl(baseUrl, token) };
}

/** POST /tasks/{task_id}/webhook: enables the webhook with a new URL (shown once); again, rotates it. */
export async function enableTaskWebhook(
  ctx: DataContext,
  auth: AuthContext,
  userId: string | undefined,
  taskId: number,
  baseUrl: string,
): Promise<TaskWebhookOut> {
  const id = await scopedTask(ctx, auth, userId, taskId);
  const { task, trigger, url } = await ctx.prisma.$transaction((tx) => issueTaskWebhook(tx as Db, id, baseUrl));
  return toTaskWebhook(task, trigger, url);
}

/** POST /tasks/{task_id}/triggers with type webhook: the same as POST /tasks/{task_id}/webhook, as a trigger. */
export async function createWebhookTrigger(ctx: DataContext, taskId: number, baseUrl: string): Promise<TriggerOut> {
  const { trigger, url } = await ctx.prisma.$transaction((tx) => issueTaskWebhook(tx as Db, taskId, baseUrl));
  return { ...toTrigger(trigger), webhook_url: url };
}

/** Pauses (false) or resumes (true) the task's webhook, the task in reach already; its URL is unchanged. */
export async function setWebhookEnabled(ctx: DataContext, taskId: number, enabled: boolean) {
  return ctx.prisma.$transaction(async (tx) => {
    // Throwing rolls the update back: a task without a webhook stays as it was.
    const task = await updateTask(tx as Db, taskId, { webhookEnabled: enabled });
    if (task.webhookTokenHash === null) throw noWebhook(taskId);
    await triggers.setWebhookTriggersEnabled(tx as Db, taskId, enabled);
    const trigger = await triggers.findWebhookTrigger(tx as Db, taskId);
    if (!trigger) throw noWebhook(taskId);
    return { task, trigger };
  });
}

/** PATCH /tasks/{task_id}/webhook. */
export async function updateTaskWebhook(
  ctx: DataContext,
  auth: AuthContext,
  userId: string | undefined,
  taskId: number,
  enabled: boolean,
): Promise<TaskWebhookOut> {
  const { task, trigger } = await setWebhookEnabled(ctx, await scopedTask(ctx, auth, userId, taskId), enabled);
  return toTaskWebhook(task, trigger);
}

/** Removes the webhook, the task in reach already: its URL answers 404 from now on. */
export async function removeWebhook(ctx: DataContext, taskId: number): Promise<void> {
  await ctx.prisma.$transaction(async (tx) => {
    await updateTask(tx as Db, taskId, { webhookEnabled: false, webhookTokenHash: null });
    // Its trigger row is there whenever it has a token: none, no webhook (and the update rolls back).
    const { count } = await triggers.deleteWebhookTriggers(tx as Db, taskId);
    if (count === 0) throw noWebhook(taskId);
  });
}

/** DELETE /tasks/{task_id}/webhook. */
export async function deleteTaskWebhook(ctx: DataContext, auth: AuthContext, userId: string | undefined, taskId: number) {
  await removeWebhook(ctx, await scopedTask(ctx, auth, userId, taskId));
}

// ---------------------------------------------------------------------------------------------
// Inbound calls

export interface WebhookCall {
  token: string;
  contentType: string | undefined;
  body: string;
  idempotencyKey?: string;
}

const isJson = (contentType: string | undefined) => /^application\/([\w.+-]*\+)?json\b/i.test(contentType?.trim() ?? "");

/** The payload as the run's message shows it: JSON pretty-printed, anything else as sent; cut past the cap. */
export function webhookPayloadText(contentType: string | undefined, body: string): string {
  let text = body;
  if (isJson(contentType) && body.trim() !== "") {
    try {
      text = JSON.stringify(JSON.parse(body), null, 2);
    } catch {
      // Not JSON after all: the agent gets it as sent.
    }
  }
  if (text.trim() === "") return "(empty)";
  if (text.length <= WEBHOOK_PAYLOAD_MAX_CHARS) return text;
  return `${text.slice(0, WEBHOOK_PAYLOAD_MAX_CHARS)}\n[… payload truncated: ${WEBHOOK_PAYLOAD_MAX_CHARS} of ${text.length} characters shown]`;
}

/**
 * An inbound call: an unknown token is a 404, a paused webhook a 409 (nothing started); otherwise the
 * task's run starts as POST /tasks/{task_id}/runs with stream=false would start it, acting for the
 * task's account (admission, caps and billing included: a refusal is thrown as the spec's error). Each
 * call is recorded as a fire of the webhook trigger. An Idempotency-Key (scoped to the account, as on
 * the run-creating endpoints) replays the first call's run.
 */
export async function receiveTaskWebhook(
  ctx: RunServiceContext,
  call: WebhookCall,
): Promise<{ accepted: z.infer<typeof TaskWebhookAccepted>; replay: boolean }> {
  const task = await findTaskByWebhookHash(ctx.prisma, sha256Hex(call.token));
  if (!task) throw new PlatformError({ type: "not_found", message: "no webhook at this URL" });
  const trigger = await triggers.findWebhookTrigger(ctx.prisma, task.id);
  if (!task.webhookEnabled || !trigger?.enabled) {
    throw new PlatformError({
      type: "conflict_error",
      errorCode: "webhook_paused",
      message: "this task's webhook is paused; resume it with PATCH /tasks/{task_id}/webhook {\"enabled\": true}",
    });
  }
  const auth = accountActing(task.accountId);
  const idempotent =
    call.idempotencyKey === undefined
      ? undefined
      : {
          accountId: task.accountId,
          key: call.idempotencyKey,
          // The task, not the token: a retry after a rotation is still the same request.
          hash: requestHash({ method: "POST", path: `${TASK_HOOK_PATH}/task-${task.id}`, query: [], body: call.body }),
        };
  let outcome;
  try {
    outcome = await createIdempotently(ctx.prisma, idempotent, (claim) =>
      runTask(ctx, auth, task, { stream: false }, claim, { webhookPayload: webhookPayloadText(call.contentType, call.body) }),
    );
  } catch (error) {
    if (error instanceof PlatformError) {
      await triggers.recordEventFire(ctx.prisma, trigger.id, { outcome: "refused", reason: `${error.type}: ${error.message}` });
    }
    throw error;
  }
  if (outcome.kind === "replay") {
    const run = await getRunInAccount(ctx, task.accountId, outcome.runId);
    return { accepted: { run_id: run.id, status: run.status }, replay: true };
  }
  const { run } = outcome.value;
  await triggers.recordEventFire(ctx.prisma, trigger.id, { outcome: "started", runId: run.id });
  return { accepted: { run_id: run.id, status: run.status }, replay: false };
}
