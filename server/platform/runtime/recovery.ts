// Runs survive the death of the worker executing them. While a run executes, every finished tool
// step is saved as a checkpoint (the conversation so far, the steps it took, and the id of the run's
// last event at that moment). When the worker dies its lease lapses; any worker claims the run again
// and resumes it from the checkpoint, or from where the current execution began when there is none.
// A step cut off while it was only saying text goes on where its stream was: that text stays in the
// log and is the model's partial answer, which the new pass asks it to continue (partial-turn.ts), so
// a reader sees every word once and waits for none twice. Otherwise (a tool call was cut off, or the
// text holds a redacted secret value, so is not the model's own words) the step is done again: the
// frames after that point are dropped and a `run_status` frame with `discard_after` says so.
//
// Not resumed (the run ends failed with metadata.interrupted and auto_retryable instead): a run
// whose process died while a tool with side effects was running or had run since the checkpoint
// (doing the step again could repeat it), and a run already resumed `maxResumes` times.
import { setTimeout as delay } from "node:timers/promises";
import type { ModelMessage } from "ai";
import { logger } from "@/lib/logger";
import { failActiveSpan } from "../observability/tracing";
import { type RunFrame, timedFrame } from "@inlay/core/schemas/runs";
import { RUN_LIFECYCLE } from "@inlay/core/schemas/run-lifecycle";
import type { Db, JsonArray, JsonObject } from "../repositories/db";
import type { PlatformConfig, RunTimings } from "../platform-config";
import { appendEvents, deleteEventsAfter, eventsAfter, executionStartEventId, lastEventId } from "../repositories/run-events";
import { markCheckpointUnsafe, runGoesOnElsewhere, saveCheckpoint } from "../repositories/run-checkpoints";
import { type MeteredCall, meterCall, meterCallWithCheckpoint } from "../services/billing/billing";
import { transitionRun, type RunRow, type RunUpdate } from "../repositories/runs";
import { pingDatabase } from "../repositories/health";
import { recordRunWebhook } from "../services/runs/run-webhooks";
import { ASK_USER_QUESTION } from "@inlay/core/schemas/runs";
import { REDACTED_MARKER, type SecretRedactor } from "../infrastructure/secret-redactor";

export const INTERRUPTED_MESSAGE = "the process executing this run stopped before it finished";

// A lease is renewed every third of it: a worker that dies leaves its runs within LEASE_MS, and a poll
// every SWEEP_EVERY_MS finds them, so another worker continues them within 8 s at these defaults.
export const DEFAULT_LEASE_MS = 6_000;
const DEFAULT_POLL_MS = 2_000;

export function runTimings(config: PlatformConfig): RunTimings {
  const leaseMs = config.runs?.leaseMs ?? DEFAULT_LEASE_MS;
  return {
    leaseMs,
    graceMs: config.runs?.graceMs ?? 0,
    sweepEveryMs: config.runs?.sweepEveryMs ?? DEFAULT_POLL_MS,
    maxResumes: config.runs?.maxResumes ?? 2,
    keepAliveMs: config.runs?.keepAliveMs ?? 15_000,
  };
}

/** How long a pass that lost its database waits for it before it lets its lease lapse instead. */
const DATABASE_WAIT_MS = 30_000;

/**
 * Resolves once the database answers again (backing off from 100 ms to 2 s), or after
 * DATABASE_WAIT_MS: a pass that lost it hands its run back then, rather than fail calls meanwhile.
 */
export async function waitForDatabase(prisma: Db, limitMs = DATABASE_WAIT_MS): Promise<void> {
  const deadline = Date.now() + limitMs;
  for (let waitMs = 100; Date.now() < deadline; waitMs = Math.min(2_000, waitMs * 2)) {
    try {
      await pingDatabase(prisma);
      return;
    } catch {
      await delay(Math.min(waitMs, Math.max(0, deadline - Date.now())));
    }
  }
}

/**
 * Whether calling the tool changes something outside the run. Unknown tools (custom and app tools,
 * when they come) count as having side effects.
 */
export function hasSideEffects(toolName: string, input: unknown): boolean {
  if (toolName === "calculator" || toolName === "task_history" || toolName === ASK_USER_QUESTION) return false;
  if (toolName === "memory") return (input as { action?: unknown } | null)?.action !== "search";
  if (toolName === "documents") {
    const action = (input as { action?: unknown } | null)?.action;
    return action !== "read" && action !== "list";
  }
  return true;
}

interface Checkpoint {
  /**
   * The conversation as JSON text: JSONB would reorder the keys of every object in it (a tool's
   * result among them), and a model resumed from a reordered conversation does not say the same.
   */
  messages_json?: string;
  /** Older checkpoints: the conversation as JSONB. */
  messages?: ModelMessage[];
  steps?: number;
  /** The run's last event when the checkpoint was taken; frames after it belong to unfinished work. */
  event_id?: string;
  unsafe_tool?: string;
  unsafe_at_event?: string;
}

interface StepPart {
  type: string;
  toolCallId?: string;
}

/** The streamText callbacks it uses, with only the fields it reads (methods: the SDK's events are wider). */
export interface CheckpointHooks {
  onStepStart(event: { messages: ModelMessage[] }): void;
  /** `call`: the step's model call when it is a tool step, metered with the checkpoint (agent-loop.ts). */
  onStepEnd(
    step: {
      content: readonly StepPart[];
      response: { messages: ModelMessage[] };
    },
    call?: MeteredCall,
  ): Promise<void>;
  onToolExecutionStart(event: { toolCall: { toolName: string; input: unknown } }): Promise<void>;
}

/** What a checkpoint needs of the run's frame sink (frame-sink.ts). */
export interface WrittenFrames {
  /** tool_use ids whose tool_result frame is in the log. */
  readonly writtenResults: Set<string>;
  /** Writes what is pending to the log; resolves once it is committed. */
  flush(): Promise<void>;
  /**
   * The run's secret values: a checkpoint's conversation becomes the stored one on a resume, so it is
   * kept redacted like the log (the resumed model then reads the marker, as a later pass would).
   */
  readonly redactor?: SecretRedactor;
}

// A step's last frames reach the sink a moment after the step ends (the loop reads the stream behind
// the SDK); past this, the checkpoint is skipped rather than taken at a wrong place in the log.
const FRAMES_WAIT_MS = 1_000;

/**
 * The streamText callbacks that keep a run's checkpoint; `saved` tells whether any was written,
 * `unsafe` whether a tool with side effects ran since the last one (a resume now would not go on).
 * `onSafe` is called when a checkpoint ends such a stretch.
 */
export function createCheckpointer(prisma: Db, runId: number, owner: string, sink: WrittenFrames, options: { onSafe?: () => void } = {}) {
  let stepInput: ModelMessage[] = [];
  let steps = 0;
  const state = { saved: false, unsafe: false };

  async function framesWritten(toolCallIds: string[]): Promise<boolean> {
    const deadline = Date.now() + FRAMES_WAIT_MS;
    for (;;) {
      await sink.flush();
      if (toolCallIds.every((id) => sink.writtenResults.has(id))) return true;
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }

  const hooks: CheckpointHooks = {
    onStepStart: (event) => {
      stepInput = event.messages;
    },
    // The SDK waits for this before starting the next step, so while it runs no frame of a later step
    // can reach the log: after the flush, the log ends exactly with this step.
    // A tool step's model call (`call`) is metered in the checkpoint's statement: a pass handed back
    // after it redoes exactly the steps that were neither checkpointed nor billed. Without a
    // checkpoint it is metered alone, unless the run goes on elsewhere (handed back or taken over:
    // the next pass redoes the step and bills it then).
    onStepEnd: async (step, call) => {
      steps += 1;
      const meterAlone = async () => {
        if (call) await meterCall(prisma, call);
      };
      const meterUnlessElsewhere = async () => {
        if (call && !(await runGoesOnElsewhere(prisma, runId, owner))) await meterCall(prisma, call);
      };
      const calls = step.content.flatMap((part) => (part.type === "tool-call" && part.toolCallId ? [part.toolCallId] : []));
      const settled = new Set(
        step.content.filter((part) => part.type === "tool-result" || part.type === "tool-error").map((part) => part.toolCallId),
      );
      // A step without tools is the answer: the run ends right after it, nothing to resume. A call
      // without a result waits for a person: the pause itself persists the conversation.
      if (calls.length === 0 || !calls.every((id) => settled.has(id))) return meterAlone();
      try {
        if (!(await framesWritten(calls))) {
          logger.warn({ runId, step: steps }, "no checkpoint: the step's frames did not arrive in time");
          return await meterAlone();
        }
        const conversation = [...stepInput, ...step.response.messages];
        const checkpoint: Checkpoint = {
          messages_json: JSON.stringify(sink.redactor?.messages(conversation) ?? conversation),
          steps,
          event_id: String(await lastEventId(prisma, runId)),
        };
        const saved = call
          ? await meterCallWithCheckpoint(prisma, call, owner, checkpoint)
          : await saveCheckpoint(prisma, runId, owner, checkpoint as unknown as JsonObject);
        // Not written: the run ended meanwhile (the step is billed), or goes on elsewhere (it is not).
        if (!saved) return await meterUnlessElsewhere();
        state.saved = true;
        if (state.unsafe) {
          state.unsafe = false;
          options.onSafe?.();
        }
      } catch (error) {
        // Without this checkpoint a resume goes back to the previous one: slower, still correct.
        logger.warn({ runId, err: error }, "could not save the run's checkpoint");
        await meterUnlessElsewhere().catch((failed: unknown) => logger.error({ runId, err: failed }, "could not meter a tool step's model call"));
      }
    },
    // Written before the tool runs (the SDK awaits this), so a resume never repeats a side effect.
    onToolExecutionStart: async ({ toolCall }) => {
      if (!hasSideEffects(toolCall.toolName, toolCall.input)) return;
      state.unsafe = true;
      try {
        await markCheckpointUnsafe(prisma, runId, owner, toolCall.toolName);
        state.saved = true;
      } catch (error) {
        logger.error({ runId, err: error, tool: toolCall.toolName }, "could not note a side-effecting tool call before it ran");
      }
    },
  };
  return { hooks, state };
}

// A step's frames after a checkpoint: a few thousand deltas at most.
const TAIL_MAX = 20_000;

/**
 * A run this worker just re-claimed (its lease counted one more attempt): either prepares it to
 * execute again from its checkpoint, or ends it failed and interrupted.
 */
export async function resumeOrFail(
  prisma: Db,
  run: RunRow,
  maxResumes: number,
): Promise<{ resume: false } | { resume: true; partial?: string; messages?: ModelMessage[] }> {
  const checkpoint = (run.checkpoint ?? {}) as Checkpoint;
  const started = await executionStartEventId(prisma, run.id);
  // A checkpoint older than the current execution (one that paused and was approved since) is stale.
  const current = (eventId: string | undefined) => eventId !== undefined && BigInt(eventId) >= started;
  const messages: ModelMessage[] | undefined =
    checkpoint.messages_json !== undefined ? (JSON.parse(checkpoint.messages_json) as ModelMessage[]) : checkpoint.messages;
  const usable = messages !== undefined && current(checkpoint.event_id);
  const unsafeTool = current(checkpoint.unsafe_at_event) ? checkpoint.unsafe_tool : undefined;
  // Tokens and cost are not restored here: metering wrote them to the run as each step finished.
  const progress: RunUpdate = usable
    ? {
        messages: messages as unknown as JsonArray,
        turnsUsed: { increment: checkpoint.steps ?? 0 },
      }
    : {};
  const keepUpTo = usable ? BigInt(checkpoint.event_id!) : started;

  const reason =
    unsafeTool !== undefined
      ? `${INTERRUPTED_MESSAGE}, while the tool ${unsafeTool} (which has side effects) was running or had run; not resumed, so it is not repeated`
      : run.resumeAttempts > maxResumes
        ? `${INTERRUPTED_MESSAGE}, after ${maxResumes} resume${maxResumes === 1 ? "" : "s"}`
        : undefined;
  if (reason !== undefined) {
    // The outbox row commits with the status, as on every other failure.
    const failed = await prisma.$transaction(async (tx) => {
      const row = await transitionRun(tx as Db, run.id, "interrupt", {
        ...progress,
        error: reason,
        stopReason: "interrupted",
        finishedAt: new Date(),
        leaseOwner: null,
        leaseExpiresAt: null,
        checkpoint: null,
        metadata: { ...((run.metadata as JsonObject | null) ?? {}), interrupted: true, auto_retryable: true },
      });
      if (row) await recordRunWebhook(tx as Db, row, RUN_LIFECYCLE.interrupt.event);
      return row;
    });
    if (failed) {
      const messageCount = Array.isArray(failed.messages) ? failed.messages.length : 0;
      const frames: RunFrame[] = [
        { type: "run_status", status: RUN_LIFECYCLE.interrupt.to, error: reason },
        { type: "done", completion_state: "failed", stop_reason: "interrupted", message_count: messageCount },
      ];
      await appendEvents(prisma, run.id, frames.map((frame) => timedFrame(frame)));
    }
    logger.warn({ runId: run.id, reason }, "ended a run whose process stopped");
    failActiveSpan(reason);
    return { resume: false };
  }

  // Only text after the resume point: it stays, and the new pass continues it (the partial answer).
  // An earlier resume's notice says nothing, so a run handed on twice (a rolling restart) still continues.
  const tail = await eventsAfter(prisma, run.id, keepUpTo, TAIL_MAX);
  const saysNothing = (frame: RunFrame) => frame.type === "run_status" && frame.resumed === true;
  const onlyText =
    tail.length > 0 &&
    tail.length < TAIL_MAX &&
    tail.some((event) => event.frame.type === "content_block_delta") &&
    tail.every((event) => event.frame.type === "content_block_delta" || saysNothing(event.frame));
  const said = onlyText ? tail.map((event) => (event.frame.type === "content_block_delta" ? event.frame.delta.text : "")).join("") : "";
  // Text in which a secret value was redacted is not what the model said: it is said again whole.
  const partial = onlyText && !said.includes(REDACTED_MARKER) ? said : undefined;
  const kept = partial !== undefined ? tail.at(-1)!.id : keepUpTo;
  // One transaction: a reader sees either the interrupted frames or the resume frame after them gone.
  const resumed = await prisma.$transaction(async (tx) => {
    const row = await transitionRun(tx as Db, run.id, "recover", { ...progress, checkpoint: null });
    if (!row) return false;
    await deleteEventsAfter(tx as Db, run.id, kept);
    const frame: RunFrame = timedFrame({
      type: "run_status",
      status: "running",
      resumed: true,
      attempt: run.resumeAttempts,
      discard_after: kept.toString(),
    });
    await appendEvents(tx as Db, run.id, [frame]);
    return true;
  });
  if (!resumed) return { resume: false };
  logger.warn({ runId: run.id, attempt: run.resumeAttempts, fromCheckpoint: usable, keptText: partial?.length ?? 0 }, "resuming a run whose worker stopped");
  // The conversation in its own key order, for the pass that now resumes (the row's is JSONB's).
  return { resume: true, partial, messages: usable ? messages : undefined };
}
