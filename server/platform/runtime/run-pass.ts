// One pass of a run, on the worker that holds its lease (run-worker.ts claims and leases): the agent
// loop on the AI SDK (streamText with tools, several steps). Every frame goes to the run's event log;
// a pause (tool approval, question, plan approval) persists the conversation and ends the pass, and
// /approve or /answer makes the run claimable again from the persisted messages. A pass stopped by a
// drain hands its run back: the lease lapses at once and another worker resumes it from its checkpoint.
import { ownLanguageModel, type RuntimeModel } from "../models/providers";
import {
  type ModelMessage,
  Output,
  jsonSchema,
  stepCountIs,
  type StreamTextEndEvent,
  streamText,
  type ToolSet,
} from "ai";
import { logger } from "@/lib/logger";
import { firstToken, modelCost, modelTokens, providerOf, runsEnded } from "../observability/metrics";
import { failActiveSpan, modelTelemetry } from "../observability/tracing";
import { isTerminalStatus, type RunFrame, timedFrame } from "@/lib/schemas/runs";
import type { Db, JsonArray, JsonObject } from "../repositories/db";
import type { NewWebhookEvent } from "../repositories/webhook-events";
import type { PlatformConfig } from "../platform-config";
import type { JobQueue } from "../infrastructure/job-queue";
import { type AgentRow, findAgentAnyScope } from "../repositories/agents";
import { recentMemoryContents } from "../repositories/memories";
import { createRequests, type NewRequest } from "../repositories/permission-requests";
import {
  clearCheckpoint,
  findRunById,
  handBackLease,
  type PassReads,
  releaseLease,
  transitionRun,
  type RunRow,
  type RunUpdate,
} from "../repositories/runs";
import { agentEnvValues, envValuesOf } from "../services/agents/agent-repos";
import { lessonsForPrompt } from "../services/agents/lessons";
import { type MeteredCall, meterCall, modelCall, settleRun, settleRunIn } from "../services/billing/billing";
import { resolveOwnModelConnection } from "../services/models/model-connections";
import { checkBalanceCrossings } from "../services/billing/payments";
import { withAttachments } from "../services/runs/run-files";
import { resolveBuiltInTools } from "../services/agents/built-in-tools";
import { runWebhookEvent, type WebhookRun } from "../services/runs/run-webhooks";
import { endRunInOneStatement } from "../services/runs/run-end";
import type { Mailer } from "../services/messaging/mailer";
import { notifyTaskRunFinished } from "../services/tasks/tasks";
import { type EventBatch, eventBatch, type RunEventBus } from "../infrastructure/event-bus";
import type { RunEventWriter } from "../infrastructure/event-writer";
import type { HotCache } from "../infrastructure/hot-cache";
import { FrameSink } from "./frame-sink";
import { fairShare } from "./fair-share";
import type { LiveContent } from "../infrastructure/live-content";
import { type CheckpointHooks, createCheckpointer, resumeOrFail, runTimings } from "./recovery";
import { passAnswer, passMessages } from "./partial-turn";
import type { Signals } from "../infrastructure/signals";
import { METADATA_ONLY, redactMessages } from "../infrastructure/redact";
import { buildSystemPrompt, PROMPT_MEMORY_LIMIT } from "../services/runs/system-prompt";
import { feedBackDecisions } from "./resume-decisions";
import { runTools } from "./run-tools";
import { SecretRedactor } from "../infrastructure/secret-redactor";
import { StreamFrames } from "./stream-frames";
import type { ScriptSandbox } from "../tool-servers/script-sandbox";

export interface ExecutorDeps {
  prisma: Db;
  /**
   * Renews leases: a client whose statements do not queue behind the pool's (the event writer's
   * connection), so a busy pool cannot delay a renewal past the lease and lose the worker its runs.
   */
  leases?: Db;
  config: PlatformConfig;
  bus: RunEventBus;
  /** Wake-ups between instances: "a run is ready to be claimed" (RUN_READY). */
  signals: Signals;
  /** Appends frames; every run's of this process go out together. */
  events: RunEventWriter;
  mailer: Mailer;
  languageModel(modelId: string): RuntimeModel;
  /** Content of metadata_only runs, kept in this process only. */
  live: LiveContent;
  /** For the task_setup tool, which calls the task service as the API does. */
  cache: HotCache;
  jobs: JobQueue;
  /** The sandbox script tool servers' calls run in (started on first use). */
  scriptSandbox(): ScriptSandbox;
}

/** What the request that created a run already read: the worker does not read it again. */
/** The signal that says a run waits to be claimed (a new run, or one a person let go on). */
export const RUN_READY = "run-ready";

/** The reason a pass is aborted with when its worker drains: the run is handed back, not ended. */
export const HAND_BACK = "hand-back";

/** How the worker stops a pass from outside. */
export interface PassControl {
  /** Aborted when the run was cancelled or taken over elsewhere (the pass just stops), or with HAND_BACK. */
  readonly abort: AbortController;
  /**
   * Set by the pass: hands the run back at its next safe point, at once unless a tool with side
   * effects runs (then once its step is checkpointed, so the resume does not repeat it). A
   * metadata_only run cannot be continued elsewhere (its conversation is this process's): it runs on.
   */
  handBack(): void;
}

/**
 * One pass of a run this worker holds the lease of: from `running` to completed, failed, a pause, or
 * handed back. `abandoned`: the worker that held it stopped; it resumes from its checkpoint or ends
 * interrupted.
 */
export async function executePass(
  deps: ExecutorDeps,
  owner: string,
  claimed: RunRow,
  control: PassControl,
  abandoned: boolean,
  known: KnownReads = {},
): Promise<void> {
  const { prisma, bus } = deps;
  const { abort } = control;
  const runId = claimed.id;
  const { maxResumes } = runTimings(deps.config);
  // A cancel from any process lands in the database and wakes us through the bus. Our own publishes
  // (every flush) wake us too, synchronously inside publish(): those are skipped, not re-read.
  let publishingOwn = false;
  const publishOwn = (batch: EventBatch) => {
    publishingOwn = true;
    try {
      return bus.publish(runId, batch);
    } finally {
      publishingOwn = false;
    }
  };
  const unsubscribe = bus.subscribe(runId, () => {
    if (publishingOwn) return;
    findRunById(prisma, runId)
      .then((row) => {
        if (row && row.status !== "running") abort.abort();
      })
      // The next wake-up, or the lease's renewal, reads it again.
      .catch((error: unknown) => logger.warn({ err: error, runId }, "reading a run after a wake-up failed"));
  });
  const sink = new FrameSink(runId, { events: deps.events, live: deps.live, publish: publishOwn });
  let handBackWanted = false;
  const checkpointer = createCheckpointer(prisma, runId, owner, sink, {
    // A step that ran a tool with side effects is checkpointed: handing back is safe again.
    onSafe: () => {
      if (handBackWanted) abort.abort(HAND_BACK);
    },
  });
  control.handBack = () => {
    if (claimed.retention === METADATA_ONLY) return;
    handBackWanted = true;
    if (!checkpointer.state.unsafe) abort.abort(HAND_BACK);
  };
  let handedBack = false;
  // The transaction that moves the run out of running (completed, paused, failed) also ends this
  // pass: it drops the checkpoint and settles what the pass cost, so the finally below has nothing
  // left to write; an ended run also gives up its lease there. A paused run keeps its lease until its
  // last frames are written, so a person who lets it go on meanwhile (its permission_request frames
  // not yet in the log) cannot have another worker write after them: in the usual case the frames are
  // written with the pause, and the lease goes with them. A pass that ends otherwise (cancelled,
  // nothing to do) does it all in the finally.
  let passEnded = false;
  let keptLease = false;
  // Whether the account watches its balance, when the pass's settlement read it (checkBalanceCrossings).
  let watches: boolean | undefined;
  // The run as this pass last read it: what the run's webhook event is built from before the statement
  // that ends the run (the statement checks those of its values the event uses).
  let latest = claimed;
  const end: PassEnd = {
    unmetered: undefined,
    async meter() {
      const call = end.unmetered;
      end.unmetered = undefined;
      if (call) await meterCall(prisma, call);
    },
    data: (options) => {
      keptLease = options?.keepLease === true;
      return {
        ...(keptLease ? {} : { leaseOwner: null, leaseExpiresAt: null }),
        ...(checkpointer.state.saved ? { checkpoint: null } : {}),
      };
    },
    async transaction(data, webhook, requests = [], last) {
      // The usual case in one statement (its own transaction): the run's change, the requests it pauses
      // on, its settlement within its hold, its webhook event, and with `last` the frames not written
      // yet. Past its hold, or when a value the event was built from changed meanwhile, nothing was
      // written and the transaction below does it all.
      const held = last ? await sink.hold() : undefined;
      // The frames that end the run are timed with its finished_at: a reader's last step ends with the run.
      const endedAt = data.finishedAt instanceof Date ? data.finishedAt : new Date();
      const frames = held && [...held, ...sink.prepare(last!.map((frame) => timedFrame(frame, endedAt)))];
      // A pause keeps its lease until its last frames are written (see above); written with the pause,
      // the lease goes with it.
      const folded = frames && keptLease ? { ...data, leaseOwner: null, leaseExpiresAt: null } : data;
      let result: Awaited<ReturnType<typeof endRunInOneStatement>>;
      try {
        result = await endRunInOneStatement(prisma, latest, ["running"], folded, {
          webhook,
          requests,
          call: end.unmetered,
          ...(frames ? { events: { frames: sink.forLog(frames), wake: deps.events.wake } } : {}),
        });
      } catch (error) {
        if (held) sink.release(held);
        throw error;
      }
      if (result.ended && frames) {
        keptLease = false;
        await sink.written(frames, result.appended!);
      } else if (held) sink.release(held);
      if (result.ended !== undefined) {
        if (result.ended) {
          end.unmetered = undefined;
          passEnded = true;
          watches = result.settlement.watches;
        }
        return result.ended;
      }
      await end.meter();
      const row = await prisma.$transaction(async (tx) => {
        const moved = await transitionRun(tx as Db, runId, ["running"], data);
        if (!moved) return moved;
        if (requests.length > 0) await createRequests(tx as Db, runId, requests);
        // Last: past the run's hold it locks the account's row until the commit. The webhook event
        // goes in the settlement's statement (one round trip less).
        const event = webhook ? await webhook(tx as Db, moved) : undefined;
        watches = (await settleRunIn(tx as Db, moved, event))?.watches;
        return moved;
      });
      if (row) {
        passEnded = true;
        if (last) sink.push(...last);
      }
      return row;
    },
  };
  let resumed: Resumed | undefined;
  try {
    if (abandoned) {
      const resume = await resumeOrFail(prisma, claimed, maxResumes);
      await bus.publish(runId);
      if (!resume.resume) return;
      resumed = resume;
    }
    // A run that was resumed changed (its conversation, turns) since the claim read it.
    const run = abandoned ? await findRunById(prisma, runId) : claimed;
    if (!run || run.status !== "running") return;
    latest = run;
    sink.metadataOnly = run.retention === METADATA_ONLY;
    // A checkpoint holds the conversation, which a metadata_only run never writes: such a run has
    // none, and one resumed elsewhere ends conversation_not_retained.
    const hooks = sink.metadataOnly ? {} : checkpointer.hooks;
    await loop(deps, run, abort.signal, sink, hooks, end, known, resumed);
    await sink.flush();
  } catch (error) {
    // Cancelled: the cancel wrote the run's last frames; what the model was still saying is dropped.
    // Handed back: what is not written yet is dropped too; the pass that resumes says it again.
    if (abort.signal.aborted) {
      sink.drop();
      handedBack = abort.signal.reason === HAND_BACK;
      runsEnded.inc({ outcome: handedBack ? "handed_back" : "stopped" });
      // A write already under way commits before the run is handed on: the resuming pass reads the
      // log's tail, and a frame of this pass landing after it would say the same words twice.
      if (handedBack) await sink.flush().catch(() => {});
      return;
    }
    await sink.flush().catch(() => {});
    // A tool's or the model's error may quote what it was given.
    const message = sink.redactor.text(error instanceof Error ? error.message : String(error));
    logger.warn({ runId, err: sink.redactor.active ? message : error }, "run failed");
    failActiveSpan(message);
    // The outbox row commits with the status, so whoever sees the run failed also finds run.failed.
    const finishedAt = new Date();
    const failed = await end.transaction(
      { ...end.data(), status: "failed", error: message, stopReason: "error", finishedAt },
      (db, row) => runWebhookEvent(db, row, "run.failed", {}, known.reads?.userId),
    );
    if (failed) {
      runsEnded.inc({ outcome: "failed" });
      const frames: RunFrame[] = [
        { type: "run_status", status: "failed", error: message },
        { type: "done", completion_state: "failed", stop_reason: "error", message_count: countMessages(failed) },
      ];
      const timed = frames.map((frame) => timedFrame(frame, finishedAt));
      await bus.publish(runId, eventBatch(await deps.events.append(runId, timed), timed));
      await notifyTaskRun(deps, failed);
    }
  } finally {
    unsubscribe();
    // The last model call, when the pass's end did not meter it (the run was no longer running, or failed first).
    await end.meter().catch((error: unknown) => logger.error({ err: error, runId }, "metering a model call failed"));
    if (!passEnded) {
      // Only an execution that ended keeps no checkpoint (a handed-back run resumes from it); a process
      // that dies never gets here.
      if (checkpointer.state.saved && !handedBack) await clearCheckpoint(prisma, runId).catch(() => {});
      // Charge what this pass cost; a run that ended (cancelled) also gives back its hold.
      await settleRun(prisma, runId).catch((error: unknown) => logger.error({ err: error, runId }, "settling a run failed"));
    }
    // What the pass cost may have taken the balance below an auto-reload or alert threshold.
    await checkBalanceCrossings({ prisma, jobs: deps.jobs }, claimed.accountId, watches).catch((error: unknown) =>
      logger.warn({ err: error, runId }, "checking the balance thresholds failed"),
    );
    if (handedBack) {
      // The lease lapses now instead of in leaseMs: any worker that is not stopping resumes the run.
      if (await handBackLease(prisma, runId, owner).catch(() => false)) deps.signals.publish(RUN_READY, String(runId));
    } else if (!passEnded || keptLease) {
      await sink.flush().catch(() => {});
      // Let go of the run; one that is running again (a person answered while this pass ended) waits
      // for a worker, this one or another.
      const status = await releaseLease(prisma, runId, owner).catch(() => null);
      if (status === "running") deps.signals.publish(RUN_READY, String(runId));
    }
    if (sink.metadataOnly) {
      const now = await findRunById(prisma, runId);
      if (!now || isTerminalStatus(now.status)) deps.live.release(runId);
    }
  }
}

/** The skill the run's current request forced: its slug and the playbook as it was then (services/runs/runs.ts). */
function forcedSkillOf(run: RunRow): { slug: string; name: string; body: string } | null {
  const playbook = run.skillPlaybook as { name?: unknown; body?: unknown } | null;
  if (run.skill === null || typeof playbook?.name !== "string" || typeof playbook.body !== "string") return null;
  return { slug: run.skill, name: playbook.name, body: playbook.body };
}

const countMessages = (row: RunRow) => (Array.isArray(row.messages) ? row.messages.length : 0);


/** Thrown when a metadata_only run must go on in a process that does not hold its conversation. */
export const NOT_RETAINED_MESSAGE =
  "conversation_not_retained: this metadata_only run's conversation was kept only by the process that paused it";

/** What the transaction that takes a run out of running adds to end the pass (see executePass()). */
interface PassEnd {
  /** Written with the run's new status: no checkpoint, and no lease unless kept until the pass's last frames. */
  data(options?: { keepLease?: boolean }): RunUpdate;
  /**
   * Moves the run out of running with `data` (transitionRun) and returns it (null when it was not running
   * any more), with the `requests` it pauses on, its `webhook` event, if any, and the settlement of what
   * the pass cost, all or nothing: one statement in the usual case, else one transaction. `last`: the
   * frames that say it ended, written only if it did; in one statement, with the frames not written yet.
   */
  transaction(
    data: RunUpdate & { status: string },
    webhook?: (db: Db, row: WebhookRun) => Promise<NewWebhookEvent>,
    requests?: NewRequest[],
    last?: RunFrame[],
  ): Promise<RunRow | null>;
  /** The pass's last model call, not metered yet: `transaction` meters it with the run's change. */
  unmetered: MeteredCall | undefined;
  /** Meters `unmetered` on its own, if any. */
  meter(): Promise<void>;
}

/** What the pass was handed, read before it started (by the worker's claim): not read again. */
export interface KnownReads {
  agent?: AgentRow;
  reads?: PassReads;
}

/** What a pass that resumes a run whose worker died starts from (runtime/recovery.ts). */
interface Resumed {
  /** The checkpoint's conversation, in its own key order. */
  messages?: ModelMessage[];
  /** Text readers already have from the step that was cut off: the model continues it (partial-turn.ts). */
  partial?: string;
}

/** streamText options executePass() adds: checkpoints (recovery.ts; none under metadata_only). */
type StreamHooks = Partial<CheckpointHooks>;

async function loop(
  deps: ExecutorDeps,
  run: RunRow,
  signal: AbortSignal,
  frames: FrameSink,
  hooks: StreamHooks,
  end: PassEnd,
  known: KnownReads,
  resumed?: Resumed,
) {
  const { prisma } = deps;
  const agent = known.agent ?? (await findAgentAnyScope(prisma, run.accountId, run.agentId));
  if (!agent) throw new Error(`agent ${run.agentId} no longer exists`);
  const metadataOnly = run.retention === METADATA_ONLY;
  const live = metadataOnly ? deps.live.messages(run.id) : undefined;
  if (metadataOnly && !live) throw new Error(NOT_RETAINED_MESSAGE);
  const messages = live ?? resumed?.messages ?? (run.messages as unknown as ModelMessage[]);
  // A non-interactive request (a reply) has no questions and no plan mode; its tools that would need
  // approval are refused (services/runs/tool-approval.ts).
  const interactive = run.interactive;

  // What the pass needs before the model's first call, read together: each is its own round trip,
  // and under load every round trip waits its turn on the event loop, so reading them one after the
  // other would put several turns between a run's start and its first token.
  // The worker's claim read some of them with the run (known.reads).
  const scope = { accountId: run.accountId, endUserId: run.endUserId };
  const envValues = known.reads
    ? Promise.resolve().then(() => envValuesOf(deps.config, known.reads!.envSealed))
    : agentEnvValues(prisma, deps.config, run.accountId, run.agentId);
  const reads = Promise.all([
    // What people decided while the run waited.
    feedBackDecisions(prisma, run.id, messages, { metadataOnly }),
    runTools(deps, run, agent, known.reads),
    resolveBuiltInTools(agent, run).includes("memory") ? (known.reads?.memories ?? recentMemoryContents(prisma, scope, PROMPT_MEMORY_LIMIT)) : [],
    // A task's runs read the lessons its earlier runs saved.
    run.taskId === null ? [] : lessonsForPrompt(prisma, scope, run.taskId),
    // An account's own model connection for this provider: its credentials, and the own_sub meter.
    resolveOwnModelConnection(prisma, deps.config, run.accountId, run.model, run.id),
  ]);
  // Awaited below; a failure while the env values load must not go unhandled meanwhile.
  reads.catch(() => {});
  // The agent's repository env values leave the run only as the marker, from the first frame on
  // (a failure of the other reads included).
  frames.redactor = new SecretRedactor(await envValues);
  const [decisions, { tools, enabled, connectionNeeded }, memories, lessons, own] = await reads;
  frames.push(...decisions.frames);
  if (decisions.message) messages.push(decisions.message);
  const system = buildSystemPrompt(
    { name: agent.name, instructions: agent.instructions, role: agent.role, goals: agent.goals, promptProfile: agent.promptProfile === "bare" ? "bare" : "platform" },
    { memories, lessons, builtInTools: [...enabled], skill: forcedSkillOf(run) },
  );

  const turnsLeft = Math.max(1, run.maxTurns - run.turnsUsed);
  // What the SDK hands onEnd once the stream is read: its result getters (response, steps, text…)
  // would each read the whole stream again from the SDK's buffer.
  const finished: { event?: StreamTextEndEvent<ToolSet> & { output?: unknown } } = {};
  // The SDK's step input holds the attachments inline (bytes); a checkpoint keeps the conversation
  // as stored, with its `inlay-file:` references (withAttachments maps message for message).
  const input = passMessages(messages, await withAttachments(prisma, run.id, messages), resumed?.partial, hooks);
  const result = streamText({
    model: own ? ownLanguageModel(deps.config.models, run.model, own) : deps.languageModel(run.model),
    system,
    messages: input.messages,
    tools,
    stopWhen: stepCountIs(turnsLeft),
    abortSignal: signal,
    // The loop below reads errors from the stream and fails the run; the SDK's default would print them.
    onError: () => {},
    onEnd: (event) => {
      finished.event = event;
    },
    providerOptions: { inlay: { planMode: interactive && run.permissionMode === "plan" } },
    // Model and tool spans (GenAI semantic conventions) while tracing is on.
    ...modelTelemetry(agent.name),
    // Checkpoints, so a run whose process dies resumes after its finished steps.
    ...input.hooks,
    ...(run.outputSchema ? { output: Output.object({ schema: jsonSchema(run.outputSchema as Record<string, unknown>) }) } : {}),
  });

  const { redactor } = frames;
  const reader = new StreamFrames({ tools, approvedCallIds: decisions.approvedCallIds, connectionNeeded, redactor });
  let firstWritten = false;
  const share = fairShare();
  for await (const part of result.fullStream) {
    // Aborted: nothing more of this pass reaches the log (a run handed back is resumed from what the
    // log holds, and the SDK's `abort` part would end its partial answer there).
    if (signal.aborted) break;
    // A step whose metering was left to the pass's end, yet the stream goes on (a provider that reports
    // no tool calls and makes another step): metered now after all.
    if (end.unmetered && part.type !== "finish") await end.meter();
    frames.push(...reader.read(part));
    if (reader.failure) throw reader.failure;
    // Steps back after the first token and when parts have been read a while without the event loop
    // turning (runtime/fair-share.ts), so requests and other runs' first tokens are not starved.
    const turn = share.after(part);
    if (turn) await turn;
    // The stream is read on once the first token is in the log: a model that streams faster than the
    // log is written would otherwise keep this process busy with what follows while the first
    // token's write waits for it (in the SDK's buffer, the rest waits no longer than that write).
    if (!firstWritten && frames.said) {
      firstWritten = true;
      await frames.flush();
      if (run.turnsUsed === 0 && !resumed) firstToken.observe((Date.now() - run.createdAt.getTime()) / 1000);
    }
    if (part.type !== "finish-step") continue;
    // Every model call is metered as it ends (the last with the pass's end), so a run cancelled or
    // failed later still pays for it.
    const usage = part.usage;
    const model = { provider: providerOf(run.model), model: run.model };
    modelTokens.inc({ ...model, kind: "input" }, usage.inputTokens ?? 0);
    modelTokens.inc({ ...model, kind: "output" }, usage.outputTokens ?? 0);
    modelTokens.inc({ ...model, kind: "cache_read" }, usage.inputTokenDetails?.cacheReadTokens ?? 0);
    modelTokens.inc({ ...model, kind: "cache_write" }, usage.inputTokenDetails?.cacheWriteTokens ?? 0);
    const call = modelCall(
      deps.config,
      run,
      {
        inputTokens: part.usage.inputTokens ?? 0,
        outputTokens: part.usage.outputTokens ?? 0,
        cacheReadTokens: part.usage.inputTokenDetails?.cacheReadTokens ?? 0,
        cacheWriteTokens: part.usage.inputTokenDetails?.cacheWriteTokens ?? 0,
      },
      own ? "own_sub" : "wallet",
    );
    // A step that asked for no tool is the pass's last: metered by the statement that ends the pass
    // (one round trip less), or on its own when the pass ends otherwise (executePass's finally).
    if (part.finishReason === "tool-calls") await meterCall(prisma, call);
    else end.unmetered = call;
    modelCost.inc(model, Number(call.costMicros));
  }

  // A stream aborted (cancel, takeover, hand-back) may end without an error: it is not the run's end.
  signal.throwIfAborted();
  // Text a redactor still held back (the stream ends with a finish part, which releases it already).
  frames.push(...reader.end());

  // The SDK calls onEnd before it closes the stream, unless the stream failed (thrown above).
  const ended = finished.event;
  if (!ended) throw new Error("the model's stream ended without a result");
  // Every step's messages (the result's `response` holds only the last step's), a continued
  // partial answer joined in.
  const responded = input.responded(ended.steps.flatMap((step) => step.response.messages));
  // The SDK runs the approved calls before the first step and shows their results to the model, but
  // leaves them out of the steps' messages: without them the next resume's prompt would be invalid.
  const answered = new Set(
    responded.flatMap((message) =>
      message.role === "tool" ? message.content.flatMap((part) => (part.type === "tool-result" ? [part.toolCallId] : [])) : [],
    ),
  );
  const missing = reader.approvedResults.filter((result) => !answered.has(result.toolCallId));
  if (decisions.message && missing.length > 0) decisions.message.content.push(...missing);
  messages.push(...responded);
  const steps = ended.steps.length;
  // Tokens and cost were added to the run step by step (finish-step above).
  if (metadataOnly) deps.live.setMessages(run.id, messages);
  const common: RunUpdate = {
    // The stored conversation is what readers see: redacted of the secret values (the model's input,
    // kept in memory for this pass, keeps them).
    messages: (metadataOnly ? redactMessages(messages) : redactor.messages(messages)) as unknown as JsonArray,
    turnsUsed: { increment: steps },
  };

  const requests = reader.requests;
  if (requests.length > 0) {
    // One transaction: whoever sees awaiting_approval also finds the pending requests.
    const stored = requests.map((request) => ({ ...request, input: metadataOnly ? {} : redactor.json(request.input) }));
    const paused = await end.transaction(
      { ...common, ...end.data({ keepLease: true }), status: "awaiting_approval" },
      (db, row) =>
        runWebhookEvent(db, row, "run.awaiting_input", {
          pending_requests: requests.map((request) => ({
            request_id: request.id,
            tool_name: request.toolName,
            kind: request.kind,
            ...(request.app ? { app: request.app } : {}),
          })),
        }, known.reads?.userId),
      stored,
      reader.pauseFrames(),
    );
    if (!paused) return;
    runsEnded.inc({ outcome: "paused" });
    return;
  }

  const { finishReason } = ended;
  const answer = passAnswer(resumed?.partial, ended, run.outputSchema !== null);
  const text = answer.text;
  // The model produced no valid object: output_data stays null (the SDK leaves output undefined).
  const outputData =
    run.outputSchema && answer.output !== undefined ? redactor.json(answer.output as JsonObject) : null;
  // The frames that say so go with the run's change (PassEnd.transaction).
  const completed = await end.transaction(
    {
      ...common,
      ...end.data(),
      status: "completed",
      // metadata_only: the answer went out on the live stream only.
      output: metadataOnly ? null : redactor.text(text),
      outputData: metadataOnly ? null : outputData,
      stopReason: finishReason,
      finishedAt: new Date(),
    },
    (db, row) => runWebhookEvent(db, row, "run.completed", {}, known.reads?.userId),
    undefined,
    [
      { type: "run_status", status: "completed" },
      {
        type: "done",
        completion_state: "completed",
        stop_reason: finishReason,
        message_count: messages.length,
        ...(run.outputSchema ? { output_data: outputData } : {}),
      },
    ],
  );
  if (!completed) return;
  runsEnded.inc({ outcome: "completed" });
  await notifyTaskRun(deps, completed);
}

/** A task's run ended: its mail, if the task asks for one. Never fails the run. */
async function notifyTaskRun(deps: ExecutorDeps, row: RunRow) {
  if (row.taskId === null) return;
  await notifyTaskRunFinished(deps, row).catch((error: unknown) => logger.warn({ runId: row.id, err: error }, "task run mail failed"));
}
