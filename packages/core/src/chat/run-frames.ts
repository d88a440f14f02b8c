// A run's frames → the AI SDK UI message stream of one ChatMessage. Pure and synchronous: the bridge
// feeds it frames as they arrive and writes what it returns, and tests feed it recorded sequences.
//
// - Text: content_block_delta opens a text part and appends to it; any other content frame closes it
//   (the platform reuses its block ids across steps, so part ids are ours: `<messageId>-t<n>`).
// - Tools: tool_use / tool_result become a dynamic tool part (input, then output or error).
//   AskUserQuestion is not shown as a tool: its request becomes a question or plan card.
// - permission_request: kind tool → data-approval (pending); question → data-question; plan →
//   data-plan holding the text just streamed (the plan). A tool_result for an approved call marks its
//   approval allowed; a run that ends with an approved-or-denied call still unanswered marks it denied
//   (the platform sends no result for a denied call). kind connection → data-connection (an app to
//   connect): its call's result marks it connected (the run resumed once the app was connected), as
//   does a kind tool request with the same id (connected, and now the call asks for approval); a
//   failed result or the end of the request declined.
// - run_status → message metadata; a failure's error → data-error (kind run_failed).
// - done → metadata (completion, last event id), data-output when the frame carries output_data,
//   then finish. Usage arrives with finish() from the run, since frames carry none: the run's usage is
//   its total, so a reply's message shows it less what the run had used before (`since`).
import { microsToUsd, usdToMicros } from "../money";
import type { RunFrame, Run } from "../platform-client";
import { isTerminalStatus } from "../schemas/run-constants";
import {
  ASK_USER_QUESTION,
  PLAN_APPROVAL,
  type ChatChunk,
  type ChatDataTypes,
  type ChatError,
  type ChatMetadata,
  type ChatUsage,
  type Question,
} from "./types";

export interface TranslatorInit {
  messageId: string;
  runId?: number;
  cursor?: string;
  now?: () => number;
}

interface Call {
  name: string;
  input: unknown;
  done: boolean;
  shown: boolean;
}

export interface RunTranslator {
  /** The `start` chunk. */
  start(): ChatChunk[];
  /** One frame, with its event id when known. */
  frame(frame: RunFrame, eventId?: string): ChatChunk[];
  /** A failure of the stream itself (or before it): an error part. finish() still ends the message. */
  fail(error: ChatError): ChatChunk[];
  /**
   * Ends the message: open parts closed, the run's output when given and its usage (see FinishUsage),
   * `finish`.
   */
  finish(run?: Pick<Run, "usage" | "output_data" | "status">, usage?: FinishUsage): ChatChunk[];
  /**
   * Ends this stream of the message without ending the request (the server drains): nothing is
   * settled, the metadata says why, and the chat reattaches to replay the request whole.
   */
  interrupt(reason: "draining"): ChatChunk[];
  readonly ended: boolean;
  readonly lastEventId: string | undefined;
}

/**
 * Which part of the run's usage the message shows. Default: all of it (the run's first request).
 * `since`: the run's usage when this request began (a reply), so the message shows the difference.
 * `wholeRun`: this request's own share is not known, so the usage is the conversation's (`runUsage`).
 */
export type FinishUsage = { since?: ChatUsage; wholeRun?: false } | { wholeRun: true };

/** The usage of the request that took the run from `since` to `total`: tokens and exact micro-USD. */
export function requestUsage(total: ChatUsage, since: ChatUsage | undefined): ChatUsage {
  if (!since) return { input_tokens: total.input_tokens, output_tokens: total.output_tokens, cost_usd: total.cost_usd };
  const micros = (usd: string) => usdToMicros(usd) ?? 0n;
  const cost = micros(total.cost_usd) - micros(since.cost_usd);
  return {
    input_tokens: Math.max(0, total.input_tokens - since.input_tokens),
    output_tokens: Math.max(0, total.output_tokens - since.output_tokens),
    cost_usd: microsToUsd(cost > 0n ? cost : 0n),
  };
}

function questionsOf(input: unknown): Question[] {
  const list = (input as { questions?: unknown } | null)?.questions;
  if (!Array.isArray(list)) return [];
  return list.flatMap((raw): Question[] => {
    const item = raw as Record<string, unknown>;
    if (typeof item?.question !== "string") return [];
    const options = Array.isArray(item.options)
      ? item.options.flatMap((option) => {
          const value = option as Record<string, unknown>;
          if (typeof option === "string") return [{ label: option }];
          if (typeof value?.label !== "string") return [];
          return [{ label: value.label, ...(typeof value.description === "string" ? { description: value.description } : {}) }];
        })
      : [];
    return [
      {
        question: item.question,
        options,
        ...(typeof item.header === "string" ? { header: item.header } : {}),
        ...(typeof item.multiSelect === "boolean" ? { multiSelect: item.multiSelect } : {}),
      },
    ];
  });
}

function answersOf(result: unknown): Record<string, string> | undefined {
  const answers = (result as { answers?: unknown } | null)?.answers;
  if (!answers || typeof answers !== "object") return undefined;
  return Object.fromEntries(Object.entries(answers).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

/** The executor reports a tool that threw as `{error: "…"}`. */
function toolError(result: unknown): string | undefined {
  if (result && typeof result === "object" && !Array.isArray(result)) {
    const keys = Object.keys(result);
    const error = (result as { error?: unknown }).error;
    if (keys.length === 1 && typeof error === "string") return error;
  }
  return undefined;
}

export function createRunTranslator(init: TranslatorInit): RunTranslator {
  const { messageId } = init;
  const now = init.now ?? Date.now;
  const calls = new Map<string, Call>();
  const approvals = new Map<string, ChatDataTypes["approval"]>();
  const questions = new Map<string, ChatDataTypes["question"]>();
  const plans = new Map<string, ChatDataTypes["plan"]>();
  const connections = new Map<string, ChatDataTypes["connection"]>();
  let textCount = 0;
  let openText: { id: string; text: string } | undefined;
  let lastText: { id: string; text: string } | undefined;
  let lastEventId: string | undefined;
  let ended = false;
  let outputSent = false;
  let completionState: string | undefined;

  const closeText = (): ChatChunk[] => {
    if (!openText) return [];
    const id = openText.id;
    lastText = openText;
    openText = undefined;
    return [{ type: "text-end", id }];
  };
  const meta = (messageMetadata: ChatMetadata): ChatChunk => ({ type: "message-metadata", messageMetadata });
  const approvalChunk = (data: ChatDataTypes["approval"]): ChatChunk => ({ type: "data-approval", id: data.requestId, data: { ...data } });
  const questionChunk = (data: ChatDataTypes["question"]): ChatChunk => ({ type: "data-question", id: data.requestId, data: { ...data } });
  const planChunk = (data: ChatDataTypes["plan"]): ChatChunk => ({ type: "data-plan", id: data.requestId, data: { ...data } });
  const connectionChunk = (data: ChatDataTypes["connection"]): ChatChunk => ({ type: "data-connection", id: data.requestId, data: { ...data } });

  /** The latest unanswered call of this tool: a permission request does not name its call. */
  const pendingCall = (name: string): string | undefined => {
    let found: string | undefined;
    for (const [id, call] of calls) if (call.name === name && !call.done) found = id;
    return found;
  };

  function onFrame(frame: RunFrame): ChatChunk[] {
    switch (frame.type) {
      case "content_block_delta": {
        const out: ChatChunk[] = [];
        if (!openText) {
          openText = { id: `${messageId}-t${textCount++}`, text: "" };
          out.push({ type: "text-start", id: openText.id });
        }
        openText.text += frame.delta.text;
        out.push({ type: "text-delta", id: openText.id, delta: frame.delta.text });
        return out;
      }
      case "tool_use": {
        const out = closeText();
        const shown = frame.name !== ASK_USER_QUESTION;
        calls.set(frame.id, { name: frame.name, input: frame.input, done: false, shown });
        if (shown) {
          out.push({ type: "tool-input-available", toolCallId: frame.id, toolName: frame.name, input: frame.input ?? {}, dynamic: true });
        }
        return out;
      }
      case "tool_result": {
        const out = closeText();
        const call = calls.get(frame.tool_use_id);
        if (call) call.done = true;
        const error = toolError(frame.result);
        if (call && !call.shown) {
          // A question's answer: the card shows it. A question refused (no card) is shown as a tool.
          const answers = answersOf(frame.result);
          const question = [...questions.values()].find((each) => each.toolCallId === frame.tool_use_id);
          const plan = [...plans.values()].find((each) => each.toolCallId === frame.tool_use_id);
          if (question) {
            Object.assign(question, { state: "answered", answers: answers ?? question.answers });
            out.push(questionChunk(question));
          } else if (plan) {
            const answer = answers?.[PLAN_APPROVAL] ?? Object.values(answers ?? {})[0];
            Object.assign(plan, { state: answer === "Approve" ? "approved" : "revised", answer });
            out.push(planChunk(plan));
          } else {
            out.push({ type: "tool-input-available", toolCallId: frame.tool_use_id, toolName: call.name, input: call.input ?? {}, dynamic: true });
            out.push({ type: "tool-output-error", toolCallId: frame.tool_use_id, errorText: error ?? frame.content, dynamic: true });
          }
          return out;
        }
        if (!call) {
          // A result whose call this message did not see (a resumed log that starts mid-way).
          out.push({ type: "tool-input-available", toolCallId: frame.tool_use_id, toolName: "tool", input: {}, dynamic: true });
        }
        out.push(
          error !== undefined
            ? { type: "tool-output-error", toolCallId: frame.tool_use_id, errorText: error, dynamic: true }
            : { type: "tool-output-available", toolCallId: frame.tool_use_id, output: frame.result, dynamic: true },
        );
        for (const approval of approvals.values()) {
          if (approval.toolCallId === frame.tool_use_id && approval.state !== "allowed") {
            approval.state = "allowed";
            out.push(approvalChunk(approval));
          }
        }
        for (const connection of connections.values()) {
          if (connection.toolCallId === frame.tool_use_id && connection.state === "pending") {
            connection.state = error === undefined ? "connected" : "declined";
            out.push(connectionChunk(connection));
          }
        }
        return out;
      }
      case "permission_request": {
        const out = closeText();
        if (frame.kind === "question" || frame.kind === "plan") {
          const toolCallId = pendingCall(frame.tool_name);
          if (frame.kind === "plan") {
            const options = questionsOf(frame.input)[0]?.options.map((option) => option.label) ?? ["Approve", "Revise"];
            const plan: ChatDataTypes["plan"] = {
              requestId: frame.request_id,
              toolCallId,
              plan: lastText?.text.trim() ?? "",
              textId: lastText?.id,
              options,
              state: "pending",
            };
            plans.set(plan.requestId, plan);
            out.push(planChunk(plan));
          } else {
            const question: ChatDataTypes["question"] = {
              requestId: frame.request_id,
              toolCallId,
              questions: questionsOf(frame.input),
              state: "pending",
            };
            questions.set(question.requestId, question);
            out.push(questionChunk(question));
          }
          return out;
        }
        if (frame.kind === "connection") {
          const app = frame.app ?? frame.tool_name.split("__")[0] ?? frame.tool_name;
          const connection: ChatDataTypes["connection"] = {
            requestId: frame.request_id,
            toolName: frame.tool_name,
            toolCallId: pendingCall(frame.tool_name),
            app,
            appName: frame.app_name ?? app,
            reason: frame.connection_status === "expired" ? "expired" : "missing",
            state: "pending",
          };
          connections.set(connection.requestId, connection);
          out.push(connectionChunk(connection));
          return out;
        }
        // The app was connected and the call now asks for its own approval (approval mode): the
        // connection card is done, and the approval card is the same request.
        const connected = connections.get(frame.request_id);
        if (connected && connected.state === "pending") {
          connected.state = "connected";
          out.push(connectionChunk(connected));
        }
        const approval: ChatDataTypes["approval"] = {
          requestId: frame.request_id,
          toolName: frame.tool_name,
          toolCallId: connected?.toolCallId ?? pendingCall(frame.tool_name),
          input: frame.input,
          state: "pending",
        };
        approvals.set(approval.requestId, approval);
        out.push(approvalChunk(approval));
        return out;
      }
      case "run_status": {
        const out: ChatChunk[] = [meta({ status: frame.status })];
        if (frame.status === "failed") {
          out.unshift(...closeText());
          out.push({ type: "data-error", data: { kind: "run_failed", message: frame.error ?? "The run failed." } });
        }
        return out;
      }
      case "done": {
        const out = closeText();
        completionState = frame.completion_state;
        out.push(...settleRequests(frame.completion_state));
        if (frame.output_data !== undefined) {
          outputSent = true;
          out.push({ type: "data-output", data: { data: frame.output_data } });
        }
        out.push(
          meta({
            completionState: frame.completion_state,
            stopReason: frame.stop_reason,
            lastEventId,
            ...(isTerminalStatus(frame.completion_state)
              ? { status: frame.completion_state as ChatMetadata["status"] }
              : {}),
          }),
        );
        return out;
      }
    }
  }

  /** At the end of a request, nothing stays pending: unanswered calls were denied or cut short. */
  function settleRequests(state: string): ChatChunk[] {
    const out: ChatChunk[] = [];
    for (const approval of approvals.values()) {
      if (approval.state !== "pending") continue;
      const call = approval.toolCallId ? calls.get(approval.toolCallId) : undefined;
      approval.state = state === "completed" ? "denied" : "expired";
      out.push(approvalChunk(approval));
      if (approval.toolCallId && call && !call.done) {
        call.done = true;
        out.push({ type: "tool-output-denied", toolCallId: approval.toolCallId });
      }
    }
    for (const connection of connections.values()) {
      if (connection.state !== "pending") continue;
      const call = connection.toolCallId ? calls.get(connection.toolCallId) : undefined;
      connection.state = state === "completed" ? "declined" : "expired";
      out.push(connectionChunk(connection));
      if (connection.toolCallId && call && !call.done) {
        call.done = true;
        out.push({ type: "tool-output-denied", toolCallId: connection.toolCallId });
      }
    }
    for (const question of questions.values()) {
      if (question.state === "pending") {
        question.state = "expired";
        out.push(questionChunk(question));
      }
    }
    for (const plan of plans.values()) {
      if (plan.state === "pending") {
        plan.state = "expired";
        out.push(planChunk(plan));
      }
    }
    for (const [id, call] of calls) {
      if (!call.done && call.shown) {
        call.done = true;
        out.push({ type: "tool-output-error", toolCallId: id, errorText: state === "cancelled" ? "Stopped before it finished" : "Not run", dynamic: true });
      }
    }
    return out;
  }

  return {
    start: () => [
      {
        type: "start",
        messageId,
        messageMetadata: {
          ...(init.runId !== undefined ? { runId: init.runId } : {}),
          ...(init.cursor !== undefined ? { cursor: init.cursor } : {}),
          createdAt: now(),
        },
      },
    ],
    frame(frame, eventId) {
      if (ended) return [];
      if (eventId !== undefined) lastEventId = eventId;
      return onFrame(frame);
    },
    fail(error) {
      if (ended) return [];
      return [...closeText(), { type: "data-error", data: error }];
    },
    finish(run, usage) {
      if (ended) return [];
      ended = true;
      const out = closeText();
      if (completionState === undefined) out.push(...settleRequests("interrupted"));
      if (!outputSent && run?.output_data !== undefined && run.output_data !== null) {
        out.push({ type: "data-output", data: { data: run.output_data } });
      }
      const failed = completionState === "failed";
      out.push({
        type: "finish",
        finishReason: failed ? "error" : completionState === undefined ? "other" : "stop",
        messageMetadata: {
          ...(run ? (usage?.wholeRun ? { runUsage: requestUsage(run.usage, undefined) } : { usage: requestUsage(run.usage, usage?.since) }) : {}),
          ...(lastEventId !== undefined ? { lastEventId } : {}),
        },
      });
      return out;
    },
    interrupt(reason) {
      if (ended) return [];
      ended = true;
      return [...closeText(), { type: "finish", finishReason: "other", messageMetadata: { interrupted: reason } }];
    },
    get ended() {
      return ended;
    },
    get lastEventId() {
      return lastEventId;
    },
  };
}

/** Frames (with event ids) → chunks, for a whole sequence: what the bridge does, minus the I/O. */
export function translateFrames(
  init: TranslatorInit,
  frames: Iterable<readonly [string | undefined, RunFrame]>,
  run?: Pick<Run, "usage" | "output_data" | "status">,
): ChatChunk[] {
  const translator = createRunTranslator(init);
  const out = translator.start();
  for (const [eventId, frame] of frames) out.push(...translator.frame(frame, eventId));
  out.push(...translator.finish(run));
  return out;
}
