// The agent loop of one pass (run-pass.ts ends it): the AI SDK's streamText with the run's tools over
// several steps, its frames to the run's event log, each model call metered as it ends; the pass ends
// in a pause on requests for a person, or completed, through PassEnd.
import { ownLanguageModel, type RuntimeModel } from "../models/providers";
import {
  type LanguageModelUsage,
  type ModelMessage,
  Output,
  jsonSchema,
  stepCountIs,
  type StepResult,
  type StreamTextEndEvent,
  streamText,
  type ToolSet,
} from "ai";
import { logger } from "@/lib/logger";
import { firstToken, modelCost, modelTokens, providerOf, runsEnded } from "../observability/metrics";
import { modelTelemetry } from "../observability/tracing";
import type { RunFrame } from "@inlay/core/schemas/runs";
import { RUN_LIFECYCLE } from "@inlay/core/schemas/run-lifecycle";
import type { Db, JsonArray, JsonObject } from "../repositories/db";
import type { NewWebhookEvent } from "../repositories/webhook-events";
import type { PlatformConfig } from "../platform-config";
import type { JobQueue } from "../infrastructure/job-queue";
import { type AgentRow, findAgentAnyScope } from "../repositories/agents";
import { recentMemoryContents } from "../repositories/memories";
import type { NewRequest } from "../repositories/permission-requests";
import type { RunRow, RunUpdate } from "../repositories/runs";
import type { PassReads } from "../repositories/run-leases";
import { agentEnvValues, envValuesOf } from "../services/agents/agent-repos";
import { lessonsForPrompt } from "../services/agents/lessons";
import { type MeteredCall, meterCall, modelCall } from "../services/billing/billing";
import { resolveOwnModelConnection } from "../services/models/model-connections";
import { withAttachments } from "../services/runs/run-files";
import { resolveBuiltInTools } from "../services/agents/built-in-tools";
import { runWebhookEvent, type WebhookRun } from "../services/runs/run-webhooks";
import type { Mailer } from "../services/messaging/mailer";
import { notifyTaskRunFinished } from "../services/tasks/tasks";
import type { RunEventBus } from "../infrastructure/event-bus";
import type { RunEventWriter } from "../infrastructure/event-writer";
import type { HotCache } from "../infrastructure/hot-cache";
import { type FrameSink } from "./frame-sink";
import type { FairShare } from "./fair-share";
import type { LiveContent } from "../infrastructure/live-content";
import type { CheckpointHooks } from "./recovery";
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

/** The skill the run's current request forced: its slug and the playbook as it was then (services/runs/runs.ts). */
function forcedSkillOf(run: RunRow): { slug: string; name: string; body: string } | null {
  const playbook = run.skillPlaybook as { name?: unknown; body?: unknown } | null;
  if (run.skill === null || typeof playbook?.name !== "string" || typeof playbook.body !== "string") return null;
  return { slug: run.skill, name: playbook.name, body: playbook.body };
}



/** Thrown when a metadata_only run must go on in a process that does not hold its conversation. */
export const NOT_RETAINED_MESSAGE =
  "conversation_not_retained: this metadata_only run's conversation was kept only by the process that paused it";

/** What the transaction that takes a run out of running adds to end the pass (run-pass.ts, executePass()). */
export interface PassEnd {
  /** Written with the run's new status: no checkpoint, and no lease unless kept until the pass's last frames. */
  data(options?: { keepLease?: boolean }): RunUpdate;
  /**
   * Makes the run's `transition` out of running with `data` (transitionRun) and returns it (null when it
   * was not running any more), with the `requests` it pauses on, its `webhook` event, if any, and the settlement of what
   * the pass cost, all or nothing: one statement in the usual case, else one transaction. `last`: the
   * frames that say it ended, written only if it did; in one statement, with the frames not written yet.
   */
  transaction(
    transition: "complete" | "fail" | "pause",
    data: RunUpdate,
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
export interface Resumed {
  /** The checkpoint's conversation, in its own key order. */
  messages?: ModelMessage[];
  /** Text readers already have from the step that was cut off: the model continues it (partial-turn.ts). */
  partial?: string;
}

/** streamText options executePass() adds (run-pass.ts): checkpoints (recovery.ts; none under metadata_only). */
type StreamHooks = Partial<CheckpointHooks>;

/**
 * One pass's model loop. `share`: the pass's share of the event loop (fair-share.ts), counted as yet to
 * speak from the pass's start until its first word or its end (executePass ends it).
 */
export async function loop(
  deps: ExecutorDeps,
  run: RunRow,
  signal: AbortSignal,
  frames: FrameSink,
  share: FairShare,
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
  const callOf = (usage: LanguageModelUsage) =>
    modelCall(
      deps.config,
      run,
      {
        inputTokens: usage.inputTokens ?? 0,
        outputTokens: usage.outputTokens ?? 0,
        cacheReadTokens: usage.inputTokenDetails?.cacheReadTokens ?? 0,
        cacheWriteTokens: usage.inputTokenDetails?.cacheWriteTokens ?? 0,
      },
      own ? "own_sub" : "wallet",
    );
  // A tool step's model call is metered with the step's checkpoint, in one statement (recovery.ts):
  // metered apart, a hand-back between the two would bill the step again when the next pass redoes it.
  const checkpointed = input.hooks.onStepEnd;
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
    ...(checkpointed
      ? { onStepEnd: (step: StepResult<ToolSet>) => checkpointed(step, step.finishReason === "tool-calls" ? callOf(step.usage) : undefined) }
      : {}),
    ...(run.outputSchema ? { output: Output.object({ schema: jsonSchema(run.outputSchema as Record<string, unknown>) }) } : {}),
  });

  const { redactor } = frames;
  const reader = new StreamFrames({ tools, approvedCallIds: decisions.approvedCallIds, connectionNeeded, redactor });
  let firstWritten = false;
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
    const call = callOf(usage);
    // A step that asked for no tool is the pass's last: metered by the statement that ends the pass
    // (one round trip less), or on its own when the pass ends otherwise (executePass's finally). A
    // tool step: with its checkpoint (above), or here when the run keeps none (metadata_only).
    if (part.finishReason !== "tool-calls") end.unmetered = call;
    else if (!checkpointed) await meterCall(prisma, call);
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
      "pause",
      { ...common, ...end.data({ keepLease: true }) },
      (db, row) =>
        runWebhookEvent(db, row, RUN_LIFECYCLE.pause.event, {
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
    "complete",
    {
      ...common,
      ...end.data(),
      // metadata_only: the answer went out on the live stream only.
      output: metadataOnly ? null : redactor.text(text),
      outputData: metadataOnly ? null : outputData,
      stopReason: finishReason,
      finishedAt: new Date(),
    },
    (db, row) => runWebhookEvent(db, row, RUN_LIFECYCLE.complete.event, {}, known.reads?.userId),
    undefined,
    [
      { type: "run_status", status: RUN_LIFECYCLE.complete.to },
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
export async function notifyTaskRun(deps: ExecutorDeps, row: RunRow) {
  if (row.taskId === null) return;
  await notifyTaskRunFinished(deps, row).catch((error: unknown) => logger.warn({ runId: row.id, err: error }, "task run mail failed"));
}
