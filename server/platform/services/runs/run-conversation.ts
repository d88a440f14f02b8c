// The run endpoints beyond create/answer/approve/cancel: POST /runs/{run_id}/reply (continuing the
// conversation on the same run), POST /runs/first-session and PATCH /runs/{run_id}/permission-mode.
//
// A reply continues the *same* run (docs/platform-api.md, "Replies"): the spec's max_turns is a cap
// "per request on the run" that "a new caller message re-arms", webhooks report a message "received on
// a run", and "each run replies and resumes using the effort of the run". So a finished run (completed,
// failed or cancelled) goes back to running with the new message appended; it is a new request on the
// run, not a new run.
import { runsAdmitted } from "../../observability/metrics";
import type { ModelMessage } from "ai";
import type { z } from "zod";
import { isActiveStatus, isSettledStatus, isTerminalStatus, timedFrame, type FirstSessionCreate, type RunReply } from "@inlay/core/schemas/runs";
import { RUN_LIFECYCLE } from "@inlay/core/schemas/run-lifecycle";
import type { JsonArray } from "../../repositories/db";
import { PlatformError } from "../../errors";
import { findPendingRequests, resolveRequest } from "../../repositories/permission-requests";
import { countRunFiles, type NewRunFile } from "../../repositories/run-files";
import { addRunHold } from "../../repositories/billing";
import { findRun, reopenRunIn, updateRun } from "../../repositories/runs";
import { METADATA_ONLY } from "../../infrastructure/redact";
import type { AuthContext } from "../account/auth";
import { storedUserMessage } from "./run-files";
import { recordRunWebhook } from "./run-webhooks";
import { bindClaimedKey, claimKeyIn, type KeyClaim } from "../idempotency";
import { admitRun } from "./run-admission";
import { resumeIfSettled, toRun } from "./runs";
import { requestRun } from "./run-target";
import type { RunServiceContext } from "./run-context";
import type { Scope } from "../scope";
import { findAccountAgent } from "../agents/agents";
import { type ForcedSkill, resolveForcedSkill } from "../agents/skills";

const conflict = (message: string, errorCode?: string) =>
  new PlatformError({ type: "conflict_error", message, ...(errorCode ? { errorCode } : {}) });

/**
 * Calls of the last assistant message that never got a result (the run was cancelled or failed while
 * they waited) are closed as not executed, so the conversation stays valid for any provider.
 */
function closeOutstandingCalls(messages: ModelMessage[]): ModelMessage[] {
  const last = messages.at(-1);
  if (!last || last.role !== "assistant" || typeof last.content === "string") return messages;
  const calls = last.content.filter((part) => part.type === "tool-call");
  if (calls.length === 0) return messages;
  return [
    ...messages,
    {
      role: "tool",
      content: calls.map((call) => ({
        type: "tool-result" as const,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: { type: "execution-denied" as const, reason: "the run ended before this call ran" },
      })),
    },
  ];
}

export async function replyToRun(
  ctx: RunServiceContext,
  scope: Scope,
  runId: number,
  input: z.infer<typeof RunReply> & { skill?: string },
  attachments: NewRunFile[] = [],
  claim?: KeyClaim,
): Promise<{ run: ReturnType<typeof toRun>; after: bigint }> {
  const row = await findRun(ctx.prisma, scope, runId);
  if (!row) throw new PlatformError({ type: "not_found", message: `run ${runId} not found` });
  // A reply continues from a terminal run: its last request is over.
  if (!isTerminalStatus(row.status)) {
    throw conflict(
      isActiveStatus(row.status)
        ? `run ${runId} is still ${row.status}; reply once it has finished, or cancel it first`
        : `run ${runId} is ${row.status} and takes no replies`,
    );
  }
  if (row.retention === METADATA_ONLY) {
    throw conflict(
      `run ${runId} ran under metadata_only retention, so its conversation was not kept; start a new run`,
      "conversation_not_retained",
    );
  }
  // A forced skill holds for the request that forced it: a reply forces its own (a leading /slug,
  // read by the route) or none.
  let skill: ForcedSkill | null = null;
  if (input.skill !== undefined) {
    const agent = await findAccountAgent(ctx, scope.accountId, row.agentId);
    if (!agent) throw new PlatformError({ type: "not_found", message: `agent ${row.agentId} not found` });
    skill = await resolveForcedSkill(ctx, scope, agent, input.skill);
  }
  const history = closeOutstandingCalls(row.messages as unknown as ModelMessage[]);
  const firstOrdinal = attachments.length > 0 ? await countRunFiles(ctx.prisma, runId) : 0;
  const messages = [...history, storedUserMessage(input.message, attachments, firstOrdinal)];
  // A reply is an agent turn like a start: the same admission (balance, caps, turn rate) and a new hold,
  // in the transaction that reopens the run.
  const admission = { accountId: scope.accountId, endUserId: scope.endUserId, userId: scope.userId, kind: "reply", runId } as const;
  let keyId: number | undefined;
  const reopened = await admitRun(ctx, admission, async (tx, admitted) => {
    const result = await reopenRunIn(
      tx,
      runId,
      {
        // The spec's reply is non-interactive; a chat with a person at it asks for interactive (extension).
        interactive: input.interactive === true,
        messages: messages as unknown as JsonArray,
        // max_turns is per request: a new caller message re-arms it.
        turnsUsed: 0,
        taskSetupTools: input.task_setup_tools ?? row.taskSetupTools,
        skill: skill?.slug ?? null,
        skillPlaybook: skill ? { name: skill.name, body: skill.body } : null,
        output: null,
        outputData: null,
        error: null,
        stopReason: null,
        finishedAt: null,
        // Its new deltas are merged once it has finished again long enough (jobs/event-retention.ts).
        eventsCompactedAt: null,
      },
      timedFrame({ type: "run_status", status: RUN_LIFECYCLE.reply.to }),
      attachments,
    );
    // Thrown inside the transaction so the hold and the turn roll back with it.
    if (!result) throw conflict(`run ${runId} changed while replying; try again`);
    await addRunHold(tx, runId, admitted.holdMicros);
    if (keyId !== undefined) await bindClaimedKey(tx, keyId, runId);
    return result;
  }, claim ? { first: async (tx) => void (keyId = await claimKeyIn(tx, scope.accountId, claim)) } : {});
  await recordRunWebhook(ctx.prisma, reopened.run, RUN_LIFECYCLE.reply.event);
  await ctx.bus.publish(runId);
  ctx.startRun(runId);
  runsAdmitted.inc();
  return { run: toRun(reopened.run, scope.userId), after: reopened.after };
}

/**
 * The message of an agent's first session: the agent introduces itself from its own instructions (they
 * are in its system prompt) and says what it needs to start.
 */
export const FIRST_SESSION_MESSAGE =
  "This is our first session. Introduce yourself in a few sentences: who you are, what you can do for me " +
  "based on your instructions, and what you need from me to get started.";

export function startFirstSession(
  ctx: RunServiceContext,
  auth: AuthContext,
  userId: string | undefined,
  input: z.infer<typeof FirstSessionCreate>,
  claim?: KeyClaim,
) {
  return requestRun(ctx, auth, userId, {
    message: FIRST_SESSION_MESSAGE,
    teammate_id: input.teammate_id,
    permission_mode: input.permission_mode,
    human_in_the_loop: input.human_in_the_loop,
    stream: input.stream,
  }, [], claim);
}


/**
 * Changes the mode of a run that is not over. The executor reads the mode each time it starts the
 * agent loop, so it applies from the next start (a resume after a pause, or a reply). Switching a
 * paused run to autonomous also allows its pending tool approvals (autonomous approves every tool),
 * which resumes it when no question is left.
 */
export async function changePermissionMode(
  ctx: RunServiceContext,
  scope: Scope,
  runId: number,
  mode: "autonomous" | "approval" | "plan",
) {
  const row = await findRun(ctx.prisma, scope, runId);
  if (!row) throw new PlatformError({ type: "not_found", message: `run ${runId} not found` });
  if (isSettledStatus(row.status)) throw conflict(`run ${runId} is already ${row.status}`);
  // human_in_the_loop=false is only valid with autonomous, so leaving autonomous turns it on.
  const updated = await updateRun(ctx.prisma, runId, {
    permissionMode: mode,
    ...(mode !== "autonomous" ? { humanInTheLoop: true } : {}),
  });
  if (mode === "autonomous" && updated.status === "awaiting_approval") {
    for (const request of await findPendingRequests(ctx.prisma, runId)) {
      if (request.kind === "tool") await resolveRequest(ctx.prisma, request.id, { status: "allowed" });
    }
    await resumeIfSettled(ctx, runId);
  }
  const now = await findRun(ctx.prisma, scope, runId);
  return toRun(now ?? updated, scope.userId);
}
