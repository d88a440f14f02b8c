// Runs: creation of a resolved target (createRun; the spec's rules for scope, agent, permission mode,
// model and effort decide the target in services/runs/run-target.ts), reads, and the transitions a person
// drives (cancel, approve, answer). Execution itself is the runtime's (server/platform/runtime/run-pass.ts).
import type { z } from "zod";
import { isReservedMetadataKey } from "@inlay/core/schemas/agents";
import { MAX_TURNS_CAP, type Run, type RunCreate, type RunFrame, timedFrame, isTerminalStatus } from "@inlay/core/schemas/runs";
import { RUN_LIFECYCLE } from "@inlay/core/schemas/run-lifecycle";
import type { Db, JsonArray, JsonObject } from "../../repositories/db";
import type { AgentRow } from "../../repositories/agents";
import { PlatformError } from "../../errors";
import {
  findPendingRequests,
  findRequest,
  listRequests,
  resolveRequest,
} from "../../repositories/permission-requests";
import { findRun, findRunInAccount, insertRunIn, transitionRun, type RunRow } from "../../repositories/runs";
import type { PassReads } from "../../repositories/run-leases";
import type { StoredEvent } from "../../repositories/run-events";
import { eventBatch } from "../../infrastructure/event-bus";
import { addLogContext } from "@/lib/log-context";
import { runsAdmitted } from "../../observability/metrics";
import { currentTraceContext, inSpan, insideSpan, SpanKind, tracingEnabled } from "../../observability/tracing";
import { METADATA_ONLY, redactMessages } from "../../infrastructure/redact";
import type { RunServiceContext } from "./run-context";
import type { NewRunFile } from "../../repositories/run-files";
import { inlineUserMessage, storedUserMessage } from "./run-files";
import { isOrphanKeyClaim } from "../../repositories/run-start";
import { isWriteConflict } from "../../../shared/db-errors";
import { bindClaimedKey, claimKeyIn, IdempotencyKeyTaken, type KeyClaim } from "../idempotency";
import { recordRunWebhook, runWebhookPayload } from "./run-webhooks";
import { findUsableConnections } from "../../repositories/app-connections";
import { settleRun, usdExact } from "../billing/billing";
import type { Effort } from "../../models/catalog";
import { hasOwnModelConnection } from "../models/model-connections";
import { admitRun, startAdmittedRunFast } from "./run-admission";
import type { Scope } from "../scope";

type RunOut = z.infer<typeof Run>;

const invalid = (field: string, message: string) =>
  new PlatformError({ type: "validation_error", message: `${field}: ${message}`, details: { field } });

const runNotFound = (id: number) => new PlatformError({ type: "not_found", message: `run ${id} not found` });

export function toRun(row: Omit<RunRow, "messages">, userId: string | null): RunOut {
  return {
    id: row.id,
    teammate_id: row.agentId,
    task_id: row.taskId,
    status: row.status as RunOut["status"],
    output: (row.output as unknown) ?? null,
    output_data: (row.outputData as Record<string, unknown> | null) ?? null,
    user_id: userId,
    metadata: (row.metadata as Record<string, unknown> | null) ?? null,
    permission_mode: row.permissionMode as RunOut["permission_mode"],
    human_in_the_loop: row.humanInTheLoop,
    interactive: row.interactive,
    model: row.model,
    effort: row.effort as Effort,
    max_turns: row.maxTurns,
    turns_used: row.turnsUsed,
    error: row.error,
    stop_reason: row.stopReason,
    usage: { input_tokens: row.inputTokens, output_tokens: row.outputTokens, cost_usd: usdExact(row.costMicros) },
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
  };
}

export async function emit(ctx: RunServiceContext, runId: number, untimed: RunFrame[]) {
  const now = new Date();
  const frames = untimed.map((frame) => timedFrame(frame, now));
  // This process's readers take the frames as they are; other instances read them from the log.
  await ctx.bus.publish(runId, eventBatch(await ctx.events.append(runId, frames), frames));
}

/**
 * What createRun starts, decided before it (services/runs/run-target.ts resolveRunTarget): the scope, the
 * agent (enabled, and created already when the request asked for a new one), the task it runs if any,
 * and the settings the agent decided.
 */
export interface RunTarget {
  scope: Scope;
  agent: AgentRow;
  taskId: number | null;
  permissionMode: "autonomous" | "approval" | "plan";
  humanInTheLoop: boolean;
  /** The skill it forces (services/agents/skills.ts ForcedSkill). */
  skill: { slug: string; name: string; body: string } | null;
  /** A catalogue id (models/catalog.ts), the effort already clamped to it. */
  model: string;
  effort: Effort;
}

/**
 * Starts a run of a resolved target: admits it, inserts it with its first frame and its run.started
 * webhook, and hands it to the executor. With `claim` (an Idempotency-Key, services/idempotency.ts) the
 * key is written with the run, or IdempotencyKeyTaken is thrown and nothing is. A kernel: it calls only
 * what starting the run needs (run-admission, the run and key repositories, the run.started outbox row,
 * model-connections for the meter, metrics), never the agent, task or trigger services above it.
 */
export async function createRun(
  ctx: RunServiceContext,
  target: RunTarget,
  input: z.infer<typeof RunCreate>,
  attachments: NewRunFile[] = [],
  claim?: KeyClaim,
): Promise<{ run: RunOut; scope: Scope; first?: StoredEvent }> {
  // A run no request started (a mail, a schedule, fetchmail, a bridge's message) is the root of its
  // own trace, so its passes and webhook deliveries are one trace as a POSTed run's are.
  if (tracingEnabled() && !insideSpan()) {
    const attributes = { "inlay.account.id": target.scope.accountId, "inlay.agent.id": target.agent.id };
    return inSpan("run.start", { kind: SpanKind.PRODUCER, attributes }, () => createRun(ctx, target, input, attachments, claim));
  }
  const { scope, agent, skill } = target;
  const forced = { skill: skill?.slug ?? null, skillPlaybook: skill ? { name: skill.name, body: skill.body } : null };

  const metadata =
    input.metadata === undefined
      ? null
      : (Object.fromEntries(Object.entries(input.metadata).filter(([key]) => !isReservedMetadataKey(key))) as JsonObject);

  const settings = {
    agentId: agent.id,
    taskId: target.taskId,
    permissionMode: target.permissionMode,
    humanInTheLoop: target.humanInTheLoop,
    model: target.model,
    effort: target.effort,
    tools: input.tools ?? [],
    memory: input.memory ?? null,
    history: input.history ?? null,
    taskSetupTools: input.task_setup_tools ?? true,
    feedback: input.feedback ?? null,
    emailNotifications: input.email_notifications ?? false,
    maxTurns: input.max_turns ?? MAX_TURNS_CAP,
  };
  // metadata_only (the account's retention_mode, read by the admission): the conversation (files
  // included) lives in this process only; the row gets its skeleton.
  const inlineMessage = inlineUserMessage(input.message, attachments);
  const storedMessages = { standard: [storedUserMessage(input.message, attachments, 0)], metadataOnly: redactMessages([inlineMessage]) };
  const first: RunFrame = timedFrame({ type: "run_status", status: RUN_LIFECYCLE.start.to });
  const admission = { accountId: scope.accountId, endUserId: scope.endUserId, userId: scope.userId, model: target.model } as const;

  // Its passes and webhook deliveries join the admitting request's trace (observability/tracing.ts).
  const traceContext = currentTraceContext();
  let row: RunRow | undefined;
  // The fast path's statement wakes the workers itself when it can (one round trip less); a run this
  // process's worker leases at insert needs no wake-up.
  const wake = ctx.lease ? undefined : ctx.runReady;
  let othersWoken = false;
  // With this process's lease, the fast path's statement read what the run's pass reads before the model.
  let reads: PassReads | undefined;
  // The run's first event with its id, when the statement that wrote it said (the fast path): the
  // POST's own stream starts from it instead of reading the log.
  let firstEvent: StoredEvent | undefined;
  // The fast path: one statement admits, inserts and leases the run (services/runs/run-admission.ts). It
  // holds from the balance, so a run on the account's own model connection (own_sub) takes the
  // admission below, which decides the meter again in its transaction.
  if (attachments.length === 0 && !(await hasOwnModelConnection(ctx.prisma, ctx.config, scope.accountId, target.model))) {
    try {
      const fast = await startAdmittedRunFast(ctx, admission, {
        ...settings,
        ...forced,
        outputSchema: input.output_schema ?? null,
        metadata,
        messages: storedMessages,
        first,
        webhookPayload: runWebhookPayload(
          { id: 0, ...scope, ...settings, status: RUN_LIFECYCLE.start.to, outputSchema: null, outputData: null, retention: "standard", error: null },
          RUN_LIFECYCLE.start.event,
          scope.userId,
        ),
        lease: ctx.lease,
        key: claim,
        traceContext,
        wake,
      });
      if (fast.kind === "key_taken") throw new IdempotencyKeyTaken();
      if (fast.kind === "inserted") {
        row = fast.run;
        reads = fast.reads;
        othersWoken = wake !== undefined;
        firstEvent = { id: fast.firstEventId, frame: first };
      }
    } catch (error) {
      // The key was claimed but the hold refused after all, or PostgreSQL broke a deadlock: the
      // statement rolled back; decide below.
      if (!isOrphanKeyClaim(error) && !isWriteConflict(error)) throw error;
    }
  }
  // Admission (verification, balance, per-end-user caps and turn rate) and the insert are one
  // transaction: the run exists exactly when its hold is placed. So does its outbox row.
  let keyId: number | undefined;
  row ??= await admitRun(
    ctx,
    { ...admission, kind: "start" },
    async (tx, admitted) => {
      const metadataOnly = admitted.retentionMode === METADATA_ONLY;
      const run = await insertRunIn(
        tx,
        scope,
        {
          ...settings,
          skill: forced.skill,
          skillPlaybook: forced.skillPlaybook,
          outputSchema: (input.output_schema as JsonObject | undefined) ?? null,
          metadata,
          retention: metadataOnly ? METADATA_ONLY : "standard",
          messages: (metadataOnly ? storedMessages.metadataOnly : storedMessages.standard) as unknown as JsonArray,
          holdMicros: admitted.holdMicros,
          traceContext,
          ...(ctx.lease ? { leaseOwner: ctx.lease.owner, leaseExpiresAt: new Date(Date.now() + ctx.lease.ms) } : {}),
        },
        first,
        metadataOnly ? [] : attachments,
      );
      await admitted.recordFunding(run.id);
      if (keyId !== undefined) await bindClaimedKey(tx, keyId, run.id);
      await recordRunWebhook(tx, run, RUN_LIFECYCLE.start.event, {}, scope.userId);
      return run;
    },
    claim ? { first: async (tx) => void (keyId = await claimKeyIn(tx, scope.accountId, claim)) } : {},
  );
  if (row.retention === METADATA_ONLY) ctx.live.setMessages(row.id, [inlineMessage]);
  // Nobody can be reading the new run's log yet (the POST's own stream reads it from the start): no wake-up.
  addLogContext({ runId: row.id });
  ctx.startRun(row.id, { run: row, agent, ...(othersWoken ? { othersWoken } : {}), ...(reads ? { reads } : {}) });
  runsAdmitted.inc();
  return { run: toRun(row, scope.userId), scope, ...(firstEvent ? { first: firstEvent } : {}) };
}

async function loadRun(ctx: RunServiceContext, scope: Scope, id: number): Promise<RunRow> {
  const row = await findRun(ctx.prisma, scope, id);
  if (!row) throw runNotFound(id);
  return row;
}

export const getRun = async (ctx: RunServiceContext, scope: Scope, id: number) =>
  toRun(await loadRun(ctx, scope, id), scope.userId);

/** The run's current state for an idempotent replay: bound to the account, not to an end-user scope. */
export async function getRunInAccount(ctx: RunServiceContext, accountId: number, id: number): Promise<RunOut> {
  const row = await findRunInAccount(ctx.prisma, accountId, id);
  if (!row) throw runNotFound(id);
  const { endUser, ...run } = row;
  return toRun(run, endUser?.externalId ?? null);
}

export async function cancelRun(ctx: RunServiceContext, scope: Scope, id: number): Promise<RunOut> {
  const row = await loadRun(ctx, scope, id);
  if (isTerminalStatus(row.status)) {
    throw new PlatformError({ type: "conflict_error", message: `run ${id} is already ${row.status}` });
  }
  const finishedAt = new Date();
  const cancelled = await transitionRun(ctx.prisma, id, "cancel", {
    stopReason: "cancelled",
    finishedAt,
  });
  if (!cancelled) {
    const now = await loadRun(ctx, scope, id);
    throw new PlatformError({ type: "conflict_error", message: `run ${id} is already ${now.status}` });
  }
  // What the run cost so far is charged and the rest of its hold given back.
  await settleRun(ctx.prisma, id);
  // Timed with the run's finished_at, as a pass's end.
  await emit(ctx, id, [
    timedFrame({ type: "run_status", status: RUN_LIFECYCLE.cancel.to }, finishedAt),
    timedFrame({ type: "done", completion_state: "cancelled", stop_reason: "cancelled", message_count: messageCount(cancelled) }, finishedAt),
  ]);
  // The request in progress answered a reply: the message it was handling is cancelled with the run.
  if (answersReply(cancelled)) await recordRunWebhook(ctx.prisma, cancelled, "run.message_cancelled");
  await recordRunWebhook(ctx.prisma, cancelled, RUN_LIFECYCLE.cancel.event);
  if (cancelled.retention === METADATA_ONLY) ctx.live.release(id);
  return toRun(cancelled, scope.userId);
}

/** A run's conversation holds more than its first message: what it works on came as a reply. */
const answersReply = (row: RunRow) =>
  Array.isArray(row.messages) && row.messages.filter((message) => (message as { role?: unknown }).role === "user").length > 1;

export const messageCount = (row: RunRow) => (Array.isArray(row.messages) ? row.messages.length : 0);

// ---------------------------------------------------------------------------------------------
// A person answers: approvals and questions

const ALLOW = new Set(["allow", "allowed", "approve", "approved", "yes"]);
const DENY = new Set(["deny", "denied", "reject", "rejected", "no"]);

export async function approveRequest(
  ctx: RunServiceContext,
  scope: Scope,
  runId: number,
  input: { request_id: string; decision: string; remember?: boolean },
) {
  const row = await loadRun(ctx, scope, runId);
  if (isTerminalStatus(row.status)) throw new PlatformError({ type: "conflict_error", message: `run ${runId} is already ${row.status}` });
  const decision = input.decision.trim().toLowerCase();
  const allowed = ALLOW.has(decision);
  if (!allowed && !DENY.has(decision)) throw invalid("decision", 'must be "allow" or "deny"');
  const request = await findRequest(ctx.prisma, runId, input.request_id);
  if (!request) throw new PlatformError({ type: "not_found", message: `no permission request ${input.request_id} on run ${runId}` });
  if (request.kind !== "tool" && request.kind !== "connection") {
    throw invalid("request_id", "is a question; answer it with POST /runs/{run_id}/answer");
  }
  if (request.status !== "pending") {
    throw new PlatformError({ type: "conflict_error", message: `permission request ${input.request_id} is already ${request.status}` });
  }
  // A connection request is settled by connecting the app (the run then goes on by itself) or
  // declined here; allowing it without a connection would only pause the run again.
  if (request.kind === "connection" && allowed && !(await hasActiveConnection(ctx.prisma, row, request.app ?? ""))) {
    throw new PlatformError({
      type: "conflict_error",
      errorCode: "connection_required",
      message: `connect ${request.app} first (POST /apps/${request.app}/connect); the run goes on by itself once it is connected`,
    });
  }
  const resolved = await resolveRequest(ctx.prisma, request.id, {
    status: allowed ? "allowed" : "denied",
    remember: input.remember ?? false,
  });
  await resumeIfSettled(ctx, runId);
  return { request_id: resolved.id, status: resolved.status, tool_name: resolved.toolName, remember: resolved.remember };
}

export async function answerRun(
  ctx: RunServiceContext,
  scope: Scope,
  runId: number,
  input: { answers: Record<string, string>; request_id?: string },
) {
  const row = await loadRun(ctx, scope, runId);
  if (isTerminalStatus(row.status)) throw new PlatformError({ type: "conflict_error", message: `run ${runId} is already ${row.status}` });
  const pending = (await findPendingRequests(ctx.prisma, runId)).filter((request) => request.kind !== "tool");
  if (pending.length === 0) throw new PlatformError({ type: "conflict_error", message: `run ${runId} has no pending question` });
  if (pending.length > 1 && input.request_id === undefined) {
    throw invalid("request_id", "is required when several questions are pending");
  }
  const target = input.request_id === undefined ? pending[0]! : pending.find((request) => request.id === input.request_id);
  if (!target) throw new PlatformError({ type: "not_found", message: `no pending question ${input.request_id} on run ${runId}` });
  await resolveRequest(ctx.prisma, target.id, { status: "allowed", answer: input.answers });
  await resumeIfSettled(ctx, runId);
  return { request_id: target.id, status: "allowed" as const, answers: input.answers };
}

/** Once no request of the paused run is pending, the run goes back to running and resumes. */
export async function resumeIfSettled(ctx: RunServiceContext, runId: number) {
  if ((await findPendingRequests(ctx.prisma, runId)).length > 0) return;
  const resumed = await transitionRun(ctx.prisma, runId, "proceed", {});
  if (!resumed) return;
  await emit(ctx, runId, [{ type: "run_status", status: RUN_LIFECYCLE.proceed.to }]);
  ctx.startRun(runId);
}

export async function listPermissionRequests(ctx: RunServiceContext, scope: Scope, runId: number) {
  await loadRun(ctx, scope, runId);
  const rows = await listRequests(ctx.prisma, runId);
  return {
    data: rows.map((row) => ({
      request_id: row.id,
      kind: row.kind,
      app: row.app,
      tool_name: row.toolName,
      input: row.input as unknown,
      status: row.status as "pending" | "allowed" | "denied",
      answer: (row.answer as unknown) ?? null,
      remember: row.remember,
      created_at: row.createdAt.toISOString(),
      resolved_at: row.resolvedAt?.toISOString() ?? null,
    })),
    has_more: false,
  };
}


/** Whether the run's scope has an active connection of `app` granted to the run's agent. */
async function hasActiveConnection(
  prisma: Db,
  run: { accountId: number; endUserId: number | null; agentId: number },
  app: string,
): Promise<boolean> {
  const rows = await findUsableConnections(prisma, { accountId: run.accountId, endUserId: run.endUserId }, run.agentId);
  return rows.some((row) => row.app === app && row.status === "active");
}
