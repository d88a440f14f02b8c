// A task's inbound webhook (/tasks/{task_id}/webhook, POST /hooks/tasks/{token}): a secret URL whose
// calls start the task's run with the call's body as the payload. The token is shown once, by the call
// that issues it; only its SHA-256 is kept (on the task). Each task has at most one, listed among its
// triggers as webhook_<n>: the trigger row and the task's webhook fields change together, in one
// transaction that locks the task row first. Its calls are entry-points/inbound-webhooks.ts's. No HTTP here.
import type { z } from "zod";
import type { TaskWebhook, Trigger } from "@inlay/core/schemas/triggers";
import type { Db } from "../../repositories/db";
import { PlatformError } from "../../errors";
import * as triggers from "../../repositories/task-triggers";
import type { TriggerRow } from "../../repositories/task-triggers";
import { updateTask, type TaskRow } from "../../repositories/tasks";
import type { DataContext } from "../../infrastructure/hot-cache";
import type { AuthContext } from "../account/auth";
import { resolveScope } from "../scope";
import { toTrigger, triggerApiId } from "./trigger-shape";
import { newWebhookToken, taskWebhookUrl } from "./webhook-tokens";

type TaskWebhookOut = z.infer<typeof TaskWebhook>;
type TriggerOut = z.infer<typeof Trigger>;


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
  return { task, trigger, url: taskWebhookUrl(baseUrl, token) };
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
