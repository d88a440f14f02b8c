// Tasks: creation with their defaults (name, permission mode), reads and changes in a scope, runs of a
// task (through createRun, so they are admitted, capped, billed and rate-limited like any run), and the
// mail a task with email_notifications sends when one of its runs ends. No HTTP here.
import type { z } from "zod";
import type { Page } from "@inlay/core/schemas/common";
import type { PermissionMode } from "@inlay/core/schemas/agents";
import type { Task, TaskCreate, TaskRunCreate, TaskUpdate } from "@inlay/core/schemas/tasks";
import type { Db } from "../../repositories/db";
import { PlatformError } from "../../errors";
import { findAccount } from "../../repositories/accounts";
import type { NewRunFile } from "../../repositories/run-files";
import type { RunRow } from "../../repositories/runs";
import {
  type TaskRow,
  type TaskRowUpdate,
  createTask as insertTask,
  deleteTask as removeTask,
  findTask,
  findTaskInAccount,
  listTasks as selectTasks,
  taskExistsInScope,
  updateTask as updateTaskRow,
} from "../../repositories/tasks";
import type { DataContext } from "../../infrastructure/hot-cache";
import { METADATA_ONLY } from "../../infrastructure/redact";
import { findScopedAgent } from "../agents/agents";
import type { AuthContext } from "../account/auth";
import type { KeyClaim } from "../idempotency";
import type { Mailer } from "../messaging/mailer";
import { toPage } from "../pagination";
import { requestRun } from "../runs/run-target";
import type { RunServiceContext } from "../runs/run-context";
import { resolveScope, type Scope } from "../scope";
import { insertTaskScheduleTrigger } from "./task-triggers";
import { issueTaskWebhook } from "./task-webhooks";
import { enqueueFire } from "./trigger-fires";
import type { JobQueue } from "../../infrastructure/job-queue";

export type { TaskRow };

type TaskOut = z.infer<typeof Task>;

const invalid = (field: string, message: string, errorCode?: string) =>
  new PlatformError({ type: "validation_error", message: `${field}: ${message}`, errorCode, details: { field } });

const taskNotFound = (id: number) => new PlatformError({ type: "not_found", message: `task ${id} not found` });

export function toTask(row: TaskRow): TaskOut {
  return {
    id: row.id,
    teammate_id: row.agentId,
    user_id: row.endUser?.externalId ?? null,
    name: row.name,
    instructions: row.instructions,
    tools: row.tools,
    expected_output: row.expectedOutput,
    goals: row.goals,
    email_notifications: row.emailNotifications,
    permission_mode: row.permissionMode as TaskOut["permission_mode"],
    webhook_enabled: row.webhookEnabled,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

const NAME_WORDS = 8;
const NAME_CHARS = 80;

/** The default name: the instructions' first words, cut at a word where it can be. */
export function nameFromInstructions(instructions: string): string {
  const words = instructions.trim().split(/\s+/);
  let name = words.slice(0, NAME_WORDS).join(" ");
  if (name.length > NAME_CHARS) name = name.slice(0, NAME_CHARS - 1).trimEnd();
  return name.length < instructions.trim().length ? `${name}…` : name;
}

/**
 * What the model is asked when the task runs: its instructions, then the expected output and the
 * goals under their own headings when the task has them, then the payload of the webhook call that
 * started it, if one did (already cut to size: entry-points/inbound-webhooks.ts webhookPayloadText), or the mail.
 */
export function taskRunMessage(task: Pick<TaskRow, "instructions" | "expectedOutput" | "goals">, options: TaskRunOptions = {}): string {
  const parts = [task.instructions.trim()];
  if (task.expectedOutput?.trim()) parts.push(`Expected output:\n${task.expectedOutput.trim()}`);
  if (task.goals?.trim()) parts.push(`Goals:\n${task.goals.trim()}`);
  if (options.webhookPayload !== undefined) parts.push(`Webhook payload:\n${options.webhookPayload}`);
  if (options.email !== undefined) parts.push(`Email:\n${options.email}`);
  if (options.appEvent !== undefined) parts.push(`App event:\n${options.appEvent}`);
  return parts.join("\n\n");
}

/** Internal options of a task's run (not API fields). */
export interface TaskRunOptions {
  /** The body of the inbound webhook call that starts the run, as the message shows it. */
  webhookPayload?: string;
  /** The mail that starts the run (an email trigger's), as the message shows it (entry-points/email-inbound.ts). */
  email?: string;
  /** The app event that starts the run (an app-event trigger's), as the message shows it (jobs/app-trigger-polls.ts). */
  appEvent?: string;
  /** The mail's attachments, stored with the run as POST /runs/with-files stores files. */
  attachments?: NewRunFile[];
}

/**
 * POST /tasks. With `schedule`, its schedule trigger, and with `webhook: true`, its webhook (the URL
 * in the response, this once; `baseUrl` builds it), are created in the task's transaction.
 */
export async function createTask(
  ctx: DataContext & { jobs: JobQueue },
  scope: Scope,
  input: z.infer<typeof TaskCreate>,
  /** The API's base URL, for the webhook URL of `webhook: true` (the task_setup tool offers no webhook). */
  baseUrl?: string,
): Promise<TaskOut> {
  if (input.schedule_timezone !== undefined && input.schedule === undefined) {
    throw invalid("schedule_timezone", "is only accepted with schedule");
  }
  // The agent must live in the task's scope: a task never runs an agent its scope cannot see.
  const agent = await findScopedAgent(ctx, scope, input.teammate_id);
  if (!agent) throw new PlatformError({ type: "not_found", message: `agent ${input.teammate_id} not found` });
  const data = {
    agentId: agent.id,
    name: input.name?.trim() ?? nameFromInstructions(input.instructions),
    instructions: input.instructions,
    tools: input.tools ?? [],
    expectedOutput: input.expected_output ?? null,
    goals: input.goals ?? null,
    emailNotifications: input.email_notifications ?? false,
    permissionMode: input.permission_mode ?? agent.defaultPermissionMode,
  };
  const schedule = input.schedule;
  if (schedule === undefined && !input.webhook) return toTask(await insertTask(ctx.prisma, scope, data));
  const { row, trigger, webhookUrl } = await ctx.prisma.$transaction(async (tx) => {
    let created = await insertTask(tx as Db, scope, data);
    const scheduled =
      schedule === undefined ? undefined : await insertTaskScheduleTrigger(tx as Db, created, { cron: schedule, timezone: input.schedule_timezone });
    let url: string | undefined;
    if (input.webhook) {
      if (baseUrl === undefined) throw new Error("createTask: webhook: true needs the API's base URL");
      ({ task: created, url } = await issueTaskWebhook(tx as Db, created.id, baseUrl));
    }
    return { row: created, trigger: scheduled, webhookUrl: url };
  });
  if (trigger) await enqueueFire(ctx.jobs, trigger);
  return webhookUrl === undefined ? toTask(row) : { ...toTask(row), webhook_url: webhookUrl };
}

async function loadTask(ctx: DataContext, scope: Scope, id: number): Promise<TaskRow> {
  const row = await findTask(ctx.prisma, scope, id);
  if (!row) throw taskNotFound(id);
  return row;
}

export const getTask = async (ctx: DataContext, scope: Scope, id: number) => toTask(await loadTask(ctx, scope, id));

export async function listTasks(
  ctx: DataContext,
  scope: Scope,
  query: { limit: number; starting_after?: number; teammate_id?: number },
): Promise<Page<TaskOut>> {
  if (query.starting_after !== undefined && !(await taskExistsInScope(ctx.prisma, scope, query.starting_after))) {
    throw invalid("starting_after", `no task ${query.starting_after} in this scope`);
  }
  const rows = await selectTasks(ctx.prisma, scope, {
    limit: query.limit + 1,
    startingAfter: query.starting_after,
    agentId: query.teammate_id,
  });
  return toPage(rows, query.limit, toTask);
}

export async function updateTask(ctx: DataContext, scope: Scope, id: number, input: z.infer<typeof TaskUpdate>): Promise<TaskOut> {
  const current = await loadTask(ctx, scope, id);
  const data: TaskRowUpdate = {};
  if (input.name !== undefined) data.name = input.name.trim();
  if (input.instructions !== undefined) data.instructions = input.instructions;
  if (input.tools !== undefined) data.tools = input.tools;
  if (input.expected_output !== undefined) data.expectedOutput = input.expected_output;
  if (input.goals !== undefined) data.goals = input.goals;
  if (input.email_notifications !== undefined) data.emailNotifications = input.email_notifications;
  if (input.permission_mode !== undefined) data.permissionMode = input.permission_mode;
  if (Object.keys(data).length === 0) return toTask(current);
  return toTask(await updateTaskRow(ctx.prisma, current.id, data));
}

export async function deleteTask(ctx: DataContext, scope: Scope, id: number): Promise<void> {
  if (!(await removeTask(ctx.prisma, scope, id))) throw taskNotFound(id);
}

// ---------------------------------------------------------------------------------------------
// Runs of a task

/**
 * The task a POST /tasks/{task_id}/runs names: in the scope `userId` names, or, without one, wherever
 * it lives in the account (the run inherits its scope). Strict mode (require_end_user_id) refuses the
 * call without user_id only for an account-level task.
 */
export async function findTaskToRun(ctx: DataContext, auth: AuthContext, taskId: number, userId: string | undefined): Promise<TaskRow> {
  if (userId !== undefined) {
    const row = await findTask(ctx.prisma, await resolveScope(ctx, auth, userId), taskId);
    if (!row) throw taskNotFound(taskId);
    return row;
  }
  // An omitted user_id inherits the task's scope (spec: POST /tasks/<task_id>/runs), so strict mode
  // only refuses the run of an account-level task: that one alone would land in the account scope.
  const row = await findTaskInAccount(ctx.prisma, auth.accountId, taskId);
  if (!row) throw taskNotFound(taskId);
  if (row.endUserId === null) await resolveScope(ctx, auth, undefined, { strict: true });
  return row;
}

/**
 * Starts a run of `task` (loaded already, and in the caller's reach) through requestRun: the task's
 * agent and scope, its instructions as the message (taskRunMessage), its tools, and its saved
 * permission mode unless the input names one. A user_id other than the task's is a 404 for the task.
 * Also called by the trigger jobs, with an AuthContext built for the account.
 */
export async function runTask(
  ctx: RunServiceContext,
  auth: AuthContext,
  task: TaskRow,
  input: z.infer<typeof TaskRunCreate>,
  claim?: KeyClaim,
  options: TaskRunOptions = {},
) {
  const userId = task.endUser?.externalId ?? null;
  if (task.accountId !== auth.accountId || (input.user_id !== undefined && input.user_id !== userId)) {
    throw taskNotFound(task.id);
  }
  const scope: Scope = { accountId: task.accountId, endUserId: task.endUserId, userId };
  return requestRun(
    ctx,
    auth,
    userId ?? undefined,
    {
      message: taskRunMessage(task, options),
      teammate_id: task.agentId,
      tools: task.tools,
      permission_mode: input.permission_mode ?? (task.permissionMode as z.infer<typeof PermissionMode>),
      human_in_the_loop: input.human_in_the_loop,
      stream: input.stream,
      model: input.model,
      effort: input.effort,
      metadata: input.metadata,
      output_schema: input.output_schema,
      max_turns: input.max_turns,
      memory: input.memory,
      history: input.history,
      task_setup_tools: input.task_setup_tools,
      feedback: input.feedback,
      email_notifications: task.emailNotifications,
    },
    options.attachments ?? [],
    claim,
    { task: { id: task.id, scope } },
  );
}

// ---------------------------------------------------------------------------------------------
// Notifications

const OUTPUT_IN_MAIL_CHARS = 2_000;

/**
 * After a task's run committed completed or failed: mails the account owner when the task (as it is
 * now) has email_notifications on. Runs of no task, and of deleted tasks, send nothing.
 */
export async function notifyTaskRunFinished(deps: { prisma: Db; mailer: Mailer }, run: RunRow): Promise<void> {
  if (run.taskId === null) return;
  const task = await findTaskInAccount(deps.prisma, run.accountId, run.taskId);
  if (!task?.emailNotifications) return;
  const account = await findAccount(deps.prisma, run.accountId);
  if (!account) return;
  const lines = [`Run ${run.id} of task "${task.name}" (task ${task.id}) ${run.status} at ${(run.finishedAt ?? new Date()).toISOString()}.`];
  if (run.status === "failed" && run.error) lines.push("", `Error: ${run.error}`);
  // A metadata_only account keeps no run content, so none goes out by mail either.
  if (run.status === "completed" && run.retention !== METADATA_ONLY && typeof run.output === "string" && run.output !== "") {
    const output = run.output.length > OUTPUT_IN_MAIL_CHARS ? `${run.output.slice(0, OUTPUT_IN_MAIL_CHARS)}…` : run.output;
    lines.push("", "Output:", output);
  }
  await deps.mailer.send(deps.prisma, {
    accountId: run.accountId,
    to: account.email,
    subject: `Task "${task.name}": run ${run.id} ${run.status}`,
    text: lines.join("\n"),
    kind: "task_run_finished",
  });
}
