// The deterministic `sim` model (inlay/sim): a real AI SDK LanguageModelV3 that needs no network and no
// key. It answers from directives in the latest user message, so streaming, tools, questions, plan mode,
// structured output, failures and cancellation can be driven end to end, in tests and in a fresh install.
// docs/sim-model.md describes every rule; keep the two in step.

import {
  type JSONObject,
  type JSONValue,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3Content,
  type LanguageModelV3FinishReason,
  type LanguageModelV3GenerateResult,
  type LanguageModelV3Message,
  type LanguageModelV3Prompt,
  type LanguageModelV3StreamPart,
  type LanguageModelV3StreamResult,
  type LanguageModelV3ToolResultOutput,
  type LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { delay } from "@ai-sdk/provider-utils";
import { exampleFromJsonSchema } from "./json-schema-example";
import { ASK_USER_QUESTION, PLAN_APPROVAL } from "@inlay/core/schemas/runs";

export const SIM_PROVIDER = "inlay";
export const SIM_MODEL_ID = "inlay/sim";
/** The key of the call's providerOptions the sim model reads (`{ inlay: { planMode: true } }`). */
export const SIM_PROVIDER_OPTIONS_KEY = "inlay";
export const PLAN_APPROVE_OPTION = "Approve";
export const PLAN_REVISE_OPTION = "Revise";
/** `::words` beyond this is refused: a typo should not build a gigabyte string. */
export const SIM_MAX_WORDS = 10_000;

// `::words N` cycles through these, so a long answer is still readable and always the same.
const WORDS = [
  "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett", "kilo", "lima",
  "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey",
  "xray", "yankee", "zulu",
];

const TEXT_ID = "sim-text-0";

export type SimDirective =
  | { kind: "tool"; toolName: string; input: JSONObject }
  | { kind: "ask"; question: string; options: string[] }
  | { kind: "fail"; message: string }
  | { kind: "delay"; ms: number }
  | { kind: "words"; count: number }
  | { kind: "recall" }
  | { kind: "tools" }
  | { kind: "skill" };

export interface ParsedMessage {
  /** In the order the lines appear. */
  directives: SimDirective[];
  /** The message without its directive lines, trimmed. */
  text: string;
}

/** A `::fail` directive, or a directive the sim model cannot read. */
export class SimModelError extends Error {
  override name = "SimModelError";
}

export interface SimToolCall {
  toolCallId: string;
  toolName: string;
  input: JSONObject;
}

/** What the sim model does for one call, before it is turned into a generate result or a stream. */
export type SimReply =
  | { type: "fail"; message: string }
  | {
      type: "answer";
      /** May be empty (a step that only calls a tool). */
      text: string;
      /** At most one: the sim model calls one tool per step. */
      toolCalls: SimToolCall[];
      /** Milliseconds between streamed words (`::delay`). */
      delayMs: number;
      finishReason: "stop" | "tool-calls";
    };

export type SimSleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface SimModelOptions {
  /** How `::delay` waits; tests pass a fake. It must reject (or return at once) when the signal aborts. */
  sleep?: SimSleep;
  /** The clock `::delay` paces words against, in ms (default performance.now); a fake sleep brings its own. */
  now?: () => number;
}

/**
 * The waits of `::delay` between words: word i is due `delayMs × i` after the first, as a model server
 * produces tokens on its own clock whether or not its reader keeps up. A word taken late (the process
 * was busy) is followed by a shorter wait, not a full one, so a busy platform delays delivery without
 * also slowing the model down; every gap still goes through `sleep` (with 0 when the word is overdue).
 */
function pacer(delayMs: number, sleep: SimSleep, now: () => number) {
  let due = 0;
  return async (index: number, signal?: AbortSignal) => {
    if (index === 0) due = now();
    if (index === 0 || delayMs <= 0) return;
    due += delayMs;
    await sleep(Math.max(0, due - now()), signal);
  };
}

export function createSimModel(options: SimModelOptions = {}): LanguageModelV3 {
  const sleep: SimSleep = options.sleep ?? ((ms, signal) => delay(ms, { abortSignal: signal }));
  const now = options.now ?? (() => performance.now());
  return {
    specificationVersion: "v3",
    provider: SIM_PROVIDER,
    modelId: SIM_MODEL_ID,
    // The sim model reads no files, so it never needs a URL passed through rather than downloaded.
    supportedUrls: {},
    doGenerate: (callOptions) => generate(callOptions, sleep, now),
    doStream: (callOptions) => stream(callOptions, sleep, now),
  };
}

async function generate(options: LanguageModelV3CallOptions, sleep: SimSleep, now: () => number): Promise<LanguageModelV3GenerateResult> {
  throwIfAborted(options.abortSignal);
  const reply = answerOrThrow(options);
  // The same waits as the stream, so a generate call takes as long and can be cancelled the same way.
  const words = splitWords(reply.text);
  const pace = pacer(reply.delayMs, sleep, now);
  for (let index = 0; index < words.length && reply.delayMs > 0; index += 1) {
    await pace(index, options.abortSignal);
    throwIfAborted(options.abortSignal);
  }
  const content: LanguageModelV3Content[] = [];
  if (reply.text) content.push({ type: "text", text: reply.text });
  for (const call of reply.toolCalls) {
    content.push({ type: "tool-call", toolCallId: call.toolCallId, toolName: call.toolName, input: JSON.stringify(call.input) });
  }
  return {
    content,
    finishReason: finishReason(reply.finishReason),
    usage: simUsage(options.prompt, reply),
    response: { id: responseId(options.prompt), modelId: SIM_MODEL_ID },
    warnings: [],
  };
}

async function stream(options: LanguageModelV3CallOptions, sleep: SimSleep, now: () => number): Promise<LanguageModelV3StreamResult> {
  throwIfAborted(options.abortSignal);
  // A failure rejects doStream itself: streamText then reports it as the step's error (onError, an
  // `error` part in fullStream) without a half-open text part before it.
  const reply = answerOrThrow(options);
  // Aborted by the caller's signal or by the reader cancelling the stream, whichever comes first.
  const stop = new AbortController();
  const onAbort = () => stop.abort(options.abortSignal?.reason);
  options.abortSignal?.addEventListener("abort", onAbort, { once: true });

  async function* parts(): AsyncGenerator<LanguageModelV3StreamPart> {
    yield { type: "stream-start", warnings: [] };
    yield { type: "response-metadata", id: responseId(options.prompt), modelId: SIM_MODEL_ID };
    const words = splitWords(reply.text);
    if (words.length > 0) {
      yield { type: "text-start", id: TEXT_ID };
      const pace = pacer(reply.delayMs, sleep, now);
      for (const [index, word] of words.entries()) {
        await pace(index, stop.signal);
        throwIfAborted(stop.signal);
        yield { type: "text-delta", id: TEXT_ID, delta: word };
      }
      yield { type: "text-end", id: TEXT_ID };
    }
    for (const call of reply.toolCalls) {
      const input = JSON.stringify(call.input);
      yield { type: "tool-input-start", id: call.toolCallId, toolName: call.toolName };
      yield { type: "tool-input-delta", id: call.toolCallId, delta: input };
      yield { type: "tool-input-end", id: call.toolCallId };
      yield { type: "tool-call", toolCallId: call.toolCallId, toolName: call.toolName, input };
    }
    yield { type: "finish", finishReason: finishReason(reply.finishReason), usage: simUsage(options.prompt, reply) };
  }

  const iterator = parts();
  const done = () => options.abortSignal?.removeEventListener("abort", onAbort);
  return {
    stream: new ReadableStream<LanguageModelV3StreamPart>({
      // Pull, not push: a word is produced when the reader wants it, like a network stream.
      async pull(controller) {
        try {
          const next = await iterator.next();
          if (next.done) {
            done();
            controller.close();
          } else {
            controller.enqueue(next.value);
          }
        } catch (error) {
          done();
          controller.error(error);
        }
      },
      cancel(reason) {
        done();
        stop.abort(reason);
      },
    }),
  };
}

function answerOrThrow(options: LanguageModelV3CallOptions): Extract<SimReply, { type: "answer" }> {
  const reply = simReply(options);
  if (reply.type === "fail") throw new SimModelError(reply.message);
  return reply;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (!signal?.aborted) return;
  throw signal.reason instanceof Error ? signal.reason : new DOMException("The sim model call was aborted.", "AbortError");
}

function finishReason(unified: "stop" | "tool-calls"): LanguageModelV3FinishReason {
  return { unified, raw: unified };
}

// ---------------------------------------------------------------------------------------------------
// Directives

const DIRECTIVE = /^::([a-z]+)(?:\s+([\s\S]*))?$/;

/** Splits a user message into its directive lines (those starting with `::`) and the rest. */
export function parseDirectives(message: string): ParsedMessage {
  const directives: SimDirective[] = [];
  const text: string[] = [];
  for (const line of message.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (!trimmed.startsWith("::")) {
      text.push(line);
      continue;
    }
    const match = DIRECTIVE.exec(trimmed);
    const name = match?.[1];
    const argument = (match?.[2] ?? "").trim();
    switch (name) {
      case "tool":
        directives.push(parseTool(argument));
        break;
      case "ask":
        directives.push(parseAsk(argument));
        break;
      case "fail":
        directives.push({ kind: "fail", message: argument || "Simulated failure" });
        break;
      case "delay":
        directives.push({ kind: "delay", ms: parseCount("::delay", argument, Number.MAX_SAFE_INTEGER) });
        break;
      case "words":
        directives.push({ kind: "words", count: parseCount("::words", argument, SIM_MAX_WORDS) });
        break;
      case "recall":
        directives.push({ kind: "recall" });
        break;
      case "tools":
        directives.push({ kind: "tools" });
        break;
      case "skill":
        directives.push({ kind: "skill" });
        break;
      default:
        throw new SimModelError(
          `sim model: unknown directive "${trimmed.split(/\s/)[0]}" (known: ::tool, ::ask, ::fail, ::delay, ::words, ::recall, ::tools, ::skill)`,
        );
    }
  }
  return { directives, text: text.join("\n").trim() };
}

function parseTool(argument: string): SimDirective {
  const match = /^(\S+)(?:\s+([\s\S]*))?$/.exec(argument);
  const toolName = match?.[1];
  if (!toolName) throw new SimModelError("sim model: ::tool needs a tool name, as in ::tool NAME {json}");
  const json = match[2]?.trim() ?? "";
  if (!json) return { kind: "tool", toolName, input: {} };
  let input: unknown;
  try {
    input = JSON.parse(json);
  } catch {
    throw new SimModelError(`sim model: the input of ::tool ${toolName} is not valid JSON`);
  }
  if (!isObject(input)) throw new SimModelError(`sim model: the input of ::tool ${toolName} must be a JSON object`);
  return { kind: "tool", toolName, input };
}

function parseAsk(argument: string): SimDirective {
  const [question = "", ...options] = argument.split("|").map((piece) => piece.trim());
  if (!question) throw new SimModelError("sim model: ::ask needs a question, as in ::ask QUESTION | OPTION | OPTION");
  return { kind: "ask", question, options: options.filter(Boolean) };
}

function parseCount(directive: string, argument: string, max: number): number {
  if (!/^\d+$/.test(argument) || Number(argument) > max) {
    throw new SimModelError(`sim model: ${directive} needs a whole number from 0 to ${max}, got "${argument}"`);
  }
  return Number(argument);
}

// ---------------------------------------------------------------------------------------------------
// The reply

interface PromptToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** Absent while the prompt has no result for the call. */
  output?: LanguageModelV3ToolResultOutput;
}

/**
 * What the sim model answers to a call: a pure function of the prompt, the `inlay` provider options and
 * the response format. Only the latest user message and what follows it (this turn's tool calls and
 * results) decide the answer; plan approval is looked for in the whole prompt.
 */
export function simReply(
  options: Pick<LanguageModelV3CallOptions, "prompt" | "providerOptions" | "responseFormat" | "tools">,
): SimReply {
  // A prompt that ends with the assistant's own text is a partial answer to continue (a resumed run,
  // runtime/partial-turn.ts): the answer is worked out without it, and only what follows it is said.
  const partial = partialAnswer(options.prompt);
  if (partial === undefined) return replyTo(options);
  const reply = replyTo({ ...options, prompt: options.prompt.slice(0, -1) });
  return reply.type === "answer" ? { ...reply, text: continuation(reply.text, partial) } : reply;
}

/** The text of a last message that is the assistant's and only text; undefined for any other prompt. */
function partialAnswer(prompt: LanguageModelV3Prompt): string | undefined {
  const last = prompt.at(-1);
  if (last?.role !== "assistant" || !last.content.every((part) => part.type === "text")) return undefined;
  return last.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/**
 * What follows `partial` in `text`. A partial sent without its trailing whitespace (as providers that
 * refuse it there trim it) still matches; one that is not the start of the answer is ignored, and
 * the whole answer follows it.
 */
function continuation(text: string, partial: string): string {
  if (text.startsWith(partial)) return text.slice(partial.length);
  const trimmed = partial.trimEnd();
  return trimmed && text.startsWith(trimmed) ? text.slice(trimmed.length) : text;
}

function replyTo(
  options: Pick<LanguageModelV3CallOptions, "prompt" | "providerOptions" | "responseFormat" | "tools">,
): SimReply {
  const { prompt } = options;
  const userIndex = prompt.findLastIndex((message) => message.role === "user");
  const latest = prompt[userIndex];
  const message = latest?.role === "user" ? userText(latest) : "";
  let parsed: ParsedMessage;
  try {
    parsed = parseDirectives(message);
  } catch (error) {
    if (error instanceof SimModelError) return { type: "fail", message: error.message };
    throw error;
  }
  const { directives } = parsed;
  const failure = directives.find((directive) => directive.kind === "fail");
  if (failure) return { type: "fail", message: failure.message };

  const delayMs = lastOf(directives, "delay")?.ms ?? 0;
  const turnCalls = toolCallsIn(prompt.slice(userIndex + 1));
  const nextCallId = `sim-call-${countToolCalls(prompt) + 1}`;

  if (options.providerOptions?.[SIM_PROVIDER_OPTIONS_KEY]?.planMode === true && !planApproved(prompt)) {
    const answered = turnCalls.filter((call) => isPlanApprovalCall(call) && call.output !== undefined).at(-1);
    if (answered?.output) {
      const label = describeAnswer(answered.output, PLAN_APPROVAL);
      return {
        type: "answer",
        text: `The plan was not approved (${label}). Tell me what to change and I will write a new plan.`,
        toolCalls: [],
        delayMs,
        finishReason: "stop",
      };
    }
    return {
      type: "answer",
      text: planText(parsed, options.responseFormat?.type === "json"),
      toolCalls: [{ toolCallId: nextCallId, toolName: ASK_USER_QUESTION, input: planApprovalInput() }],
      delayMs,
      finishReason: "tool-calls",
    };
  }

  const actions = directives.filter(
    (directive): directive is Extract<SimDirective, { kind: "tool" | "ask" }> =>
      directive.kind === "tool" || directive.kind === "ask",
  );
  // This turn's answered calls, in order, are the results of the first actions; a call still without a
  // result does not count, so the next call repeats it.
  const answered = turnCalls.filter((call) => !isPlanApprovalCall(call) && call.output !== undefined);
  const next = actions[answered.length];
  if (next) {
    const call =
      next.kind === "tool"
        ? { toolCallId: nextCallId, toolName: resolveToolName(next.toolName, options.tools), input: next.input }
        : { toolCallId: nextCallId, toolName: ASK_USER_QUESTION, input: askInput(next.question, next.options) };
    return { type: "answer", text: "", toolCalls: [call], delayMs, finishReason: "tool-calls" };
  }

  let text: string;
  if (options.responseFormat?.type === "json") {
    text = JSON.stringify(exampleFromJsonSchema(options.responseFormat.schema), null, 2);
  } else {
    const lines = actions.map((action, index) => resultLine(action, answered[index]!));
    const words = lastOf(directives, "words");
    if (words) lines.push(wordList(words.count));
    else if (actions.length === 0) lines.push(`Echo: ${parsed.text}`.trimEnd());
    if (lastOf(directives, "recall")) lines.push(recallLine(prompt, userIndex));
    if (lastOf(directives, "tools")) lines.push(toolsLine(options.tools));
    if (lastOf(directives, "skill")) lines.push(...skillLines(prompt));
    if (latest?.role === "user") lines.push(...attachmentLines(latest));
    text = lines.join("\n");
  }
  return { type: "answer", text, toolCalls: [], delayMs, finishReason: "stop" };
}

function lastOf<K extends SimDirective["kind"]>(
  directives: SimDirective[],
  kind: K,
): Extract<SimDirective, { kind: K }> | undefined {
  return directives.findLast((directive): directive is Extract<SimDirective, { kind: K }> => directive.kind === kind);
}

function resultLine(action: Extract<SimDirective, { kind: "tool" | "ask" }>, call: PromptToolCall): string {
  const output = call.output!;
  switch (output.type) {
    case "error-text":
    case "error-json":
      // The SDK renders a thrown error as "Error: <message>"; the sim reports the message itself.
      return `Tool ${call.toolName} failed: ${toolResultText(output).replace(/^Error: /, "")}`;
    case "execution-denied":
      return `Tool ${call.toolName} was denied${output.reason ? `: ${output.reason}` : ""}`;
    default:
      return action.kind === "ask"
        ? `You chose ${describeAnswer(output, action.question)}`
        : `Tool ${call.toolName} returned ${toolResultText(output)}`;
  }
}

/** `count` words, always the same: the NATO alphabet in lower case, cycled. */
export function wordList(count: number): string {
  return Array.from({ length: count }, (_, index) => WORDS[index % WORDS.length]).join(" ");
}

export function askInput(question: string, options: string[]): JSONObject {
  return { questions: [{ question, options: options.map((label) => ({ label })) }] };
}

function planApprovalInput(): JSONObject {
  return askInput(PLAN_APPROVAL, [PLAN_APPROVE_OPTION, PLAN_REVISE_OPTION]);
}

/** The numbered plan written before asking for approval: one step per thing the message asks for. */
export function planText(parsed: ParsedMessage, json: boolean): string {
  const summary = parsed.text.replace(/\s+/g, " ");
  const steps = [summary ? `Understand the request: "${truncate(summary, 80)}".` : "Understand the request."];
  for (const directive of parsed.directives) {
    if (directive.kind === "tool") steps.push(`Call the tool ${directive.toolName}.`);
    if (directive.kind === "ask") steps.push(`Ask "${directive.question}".`);
    if (directive.kind === "words" && !json) steps.push(`Write ${directive.count} words.`);
    if (directive.kind === "recall" && !json) steps.push("Recall the previous message.");
    if (directive.kind === "tools" && !json) steps.push("List the tools I was given.");
    if (directive.kind === "skill" && !json) steps.push("Report the skills in my instructions.");
  }
  const acts = parsed.directives.some((directive) => directive.kind === "tool" || directive.kind === "ask");
  if (json) steps.push("Answer with a JSON object that matches the requested schema.");
  else if (acts) steps.push("Report the results.");
  else if (!parsed.directives.some((directive) => directive.kind === "words")) steps.push("Answer with an echo of the message.");
  return steps.map((step, index) => `${index + 1}. ${step}`).join("\n");
}

function truncate(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

// ---------------------------------------------------------------------------------------------------
// Reading the prompt

type UserMessage = Extract<LanguageModelV3Message, { role: "user" }>;
type UserPart = UserMessage["content"][number];

/** An attachment sent as text: a text part the platform marks with `{ inlay: { attachment } }`. */
function attachmentOf(part: UserPart): { filename: string; mediaType: string } | undefined {
  const marker = part.providerOptions?.[SIM_PROVIDER_OPTIONS_KEY]?.attachment;
  if (part.type !== "text" || !isObject(marker)) return undefined;
  return { filename: String(marker.filename ?? "attachment"), mediaType: String(marker.mediaType ?? "text/plain") };
}

/** The person's own words in a user message: its text parts that are not attachments. */
function userText(message: UserMessage): string {
  return message.content.flatMap((part) => (part.type === "text" && !attachmentOf(part) ? [part.text] : [])).join("\n");
}

/** One line per attachment of the message: text files show their first line, other files their size. */
function attachmentLines(message: UserMessage): string[] {
  return message.content.flatMap((part): string[] => {
    const attachment = attachmentOf(part);
    if (attachment && part.type === "text") {
      // The platform puts a header line first; the file's own text follows it.
      const body = part.text.slice(part.text.indexOf("\n") + 1);
      const first = body.split(/\r?\n/).find((line) => line.trim())?.trim() ?? "";
      return [`Attachment ${attachment.filename} (${attachment.mediaType}): ${truncate(first, 80)}`];
    }
    if (part.type === "file") {
      const size = byteSize(part.data);
      return [`Attachment ${part.filename ?? "file"} (${part.mediaType}${size === undefined ? "" : `, ${size} bytes`})`];
    }
    return [];
  });
}

function byteSize(data: unknown): number | undefined {
  if (data instanceof Uint8Array) return data.byteLength;
  if (typeof data === "string") return Buffer.from(data, "base64").byteLength;
  return undefined;
}

/**
 * `::tool *SUFFIX`: the first offered tool, in name order, whose name ends with SUFFIX, for tools whose
 * full name a test cannot know beforehand (a custom server's `srv<id>__echo`). No match: the name as
 * written, which the SDK reports as an unknown tool.
 */
function resolveToolName(name: string, tools: LanguageModelV3CallOptions["tools"]): string {
  if (!name.startsWith("*") || name.length === 1) return name;
  const suffix = name.slice(1);
  return (tools ?? []).map((tool) => tool.name).sort().find((offered) => offered.endsWith(suffix)) ?? name;
}

/** `::tools`: the names of the tools the call offers, sorted, so a test sees what a run was given. */
function toolsLine(tools: LanguageModelV3CallOptions["tools"]): string {
  const names = (tools ?? []).map((tool) => tool.name).sort();
  return `Tools: ${names.length > 0 ? names.join(", ") : "(none)"}`;
}

/**
 * `::skill`: one line per `## Skill: NAME` section of the system messages, with the section's text
 * (to the next `## ` heading; whitespace collapsed, cut at 300 characters), so a test sees which
 * playbook reached the model. `No skill.` when there is none.
 */
function skillLines(prompt: LanguageModelV3Prompt): string[] {
  const lines: string[] = [];
  for (const message of prompt) {
    if (message.role !== "system") continue;
    for (const section of message.content.split(/^(?=## )/m)) {
      const heading = /^## Skill: (.*)\n?/.exec(section);
      if (!heading) continue;
      const text = section.slice(heading[0].length).replace(/\s+/g, " ").trim();
      lines.push(`Skill ${heading[1]!.trim()}: ${truncate(text, 300)}`);
    }
  }
  return lines.length > 0 ? lines : ["No skill."];
}

/** `::recall`: the text of the user message before the latest one (its directives left out). */
function recallLine(prompt: LanguageModelV3Prompt, userIndex: number): string {
  const previous = prompt.slice(0, userIndex).findLast((message): message is UserMessage => message.role === "user");
  if (!previous) return "You said nothing before.";
  const text = userText(previous);
  let said: string;
  try {
    said = parseDirectives(text).text;
  } catch {
    said = text.trim();
  }
  return `You said before: "${truncate(said.replace(/\s+/g, " "), 200)}"`;
}

function toolCallsIn(messages: LanguageModelV3Prompt): PromptToolCall[] {
  const outputs = new Map<string, LanguageModelV3ToolResultOutput>();
  for (const message of messages) {
    if (message.role !== "assistant" && message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type === "tool-result") outputs.set(part.toolCallId, part.output);
    }
  }
  const calls: PromptToolCall[] = [];
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const part of message.content) {
      if (part.type !== "tool-call") continue;
      const output = outputs.get(part.toolCallId);
      calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input, ...(output && { output }) });
    }
  }
  return calls;
}

function countToolCalls(prompt: LanguageModelV3Prompt): number {
  return prompt.reduce(
    (count, message) =>
      count + (message.role === "assistant" ? message.content.filter((part) => part.type === "tool-call").length : 0),
    0,
  );
}

function isPlanApprovalCall(call: PromptToolCall): boolean {
  if (call.toolName !== ASK_USER_QUESTION || !isObject(call.input)) return false;
  const questions = call.input.questions;
  return Array.isArray(questions) && isObject(questions[0]) && questions[0].question === PLAN_APPROVAL;
}

/** Anywhere in the prompt, a Plan Approval question whose answer is Approve (any case). */
export function planApproved(prompt: LanguageModelV3Prompt): boolean {
  return toolCallsIn(prompt).some(
    (call) =>
      isPlanApprovalCall(call) &&
      call.output !== undefined &&
      answerLabel(call.output, PLAN_APPROVAL)?.trim().toLowerCase() === PLAN_APPROVE_OPTION.toLowerCase(),
  );
}

/**
 * The option label an AskUserQuestion result carries: a plain string, `{ answers: { [question]: label } }`
 * (the shape of POST /runs/<id>/answer; with a single answer its key need not match), `{ answer }` or
 * `{ label }`; a label may itself be `{ label }` or a list whose first entry is taken. Text results that
 * hold JSON are read as that JSON. Undefined when the result has none of these shapes.
 */
export function answerLabel(output: LanguageModelV3ToolResultOutput, question: string): string | undefined {
  switch (output.type) {
    case "json":
      return labelFromJson(output.value, question);
    case "text":
    case "content": {
      const text = toolResultText(output).trim();
      const json = parseJson(text);
      // A JSON object or string sent as text reads as that JSON; any other text is the label itself.
      return isObject(json) || typeof json === "string" ? labelFromJson(json, question) : text;
    }
    default:
      return undefined;
  }
}

function labelFromJson(value: JSONValue, question: string): string | undefined {
  const label = (candidate: unknown): string | undefined => {
    if (typeof candidate === "string") return candidate;
    if (Array.isArray(candidate)) return label(candidate[0]);
    if (isObject(candidate) && typeof candidate.label === "string") return candidate.label;
    return undefined;
  };
  if (typeof value === "string") return value;
  if (!isObject(value)) return undefined;
  if (isObject(value.answers)) {
    const answers = Object.values(value.answers);
    return label(value.answers[question] ?? (answers.length === 1 ? answers[0] : undefined));
  }
  return label(value.answer) ?? label(value.label);
}

function describeAnswer(output: LanguageModelV3ToolResultOutput, question: string): string {
  return answerLabel(output, question) ?? toolResultText(output);
}

/** A tool result as the model sees it: text as is, JSON serialised. */
export function toolResultText(output: LanguageModelV3ToolResultOutput): string {
  switch (output.type) {
    case "text":
    case "error-text":
      return output.value;
    case "json":
    case "error-json":
      return JSON.stringify(output.value);
    case "execution-denied":
      return output.reason ?? "denied";
    case "content":
      return output.value.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");
  }
}

/**
 * The whole prompt as text, for counting input tokens: every part of every message on its own line.
 * System messages and text or reasoning parts are their text; a tool call is `NAME <input JSON>`; a tool
 * result is `NAME <result text>`; a file is `[file NAME-or-media-type]`; an approval response
 * `approved|denied <approval id>`.
 */
export function promptText(prompt: LanguageModelV3Prompt): string {
  return prompt.flatMap(messageLines).join("\n");
}

function messageLines(message: LanguageModelV3Message): string[] {
  if (message.role === "system") return [message.content];
  return message.content.map((part) => {
    switch (part.type) {
      case "text":
      case "reasoning":
        return part.text;
      case "file":
        return `[file ${part.filename ?? part.mediaType}]`;
      case "tool-call":
        return `${part.toolName} ${JSON.stringify(part.input ?? null)}`;
      case "tool-result":
        return `${part.toolName} ${toolResultText(part.output)}`;
      case "tool-approval-response":
        return `${part.approved ? "approved" : "denied"} ${part.approvalId}`;
    }
  });
}

// ---------------------------------------------------------------------------------------------------
// Words, usage, ids

/** Streaming chunks: each word with the whitespace after it, so the chunks join back to the text. */
export function splitWords(text: string): string[] {
  const words = text.match(/\S+\s*/g) ?? [];
  const leading = /^\s+/.exec(text)?.[0];
  if (leading && words.length > 0) words[0] = leading + words[0];
  return words;
}

/** Roughly four characters a token, rounded up: the usual rule of thumb, and exactly reproducible. */
export const simTokens = (characters: number): number => Math.ceil(characters / 4);

/** What the call produced, as counted for output tokens: the text, then each tool call as `NAME <input>`. */
export function producedText(reply: Extract<SimReply, { type: "answer" }>): string {
  return [reply.text, ...reply.toolCalls.map((call) => `${call.toolName} ${JSON.stringify(call.input)}`)]
    .filter(Boolean)
    .join("\n");
}

function simUsage(prompt: LanguageModelV3Prompt, reply: Extract<SimReply, { type: "answer" }>): LanguageModelV3Usage {
  const promptCharacters = promptText(prompt).length;
  const outputCharacters = producedText(reply).length;
  const input = simTokens(promptCharacters);
  const output = simTokens(outputCharacters);
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
    raw: { promptCharacters, outputCharacters },
  };
}

/** Same prompt, same id: a 32-bit FNV-1a hash of the prompt text. */
function responseId(prompt: LanguageModelV3Prompt): string {
  let hash = 0x811c9dc5;
  for (const character of promptText(prompt)) {
    hash ^= character.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `sim-resp-${hash.toString(16).padStart(8, "0")}`;
}

function isObject(value: unknown): value is { [key: string]: JSONValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseJson(text: string): JSONValue | undefined {
  try {
    return JSON.parse(text) as JSONValue;
  } catch {
    return undefined;
  }
}
