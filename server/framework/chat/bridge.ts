// The chat bridge: platform run streams → AI SDK UI message streams for useChat (docs/embedding.md).
// POST starts a run (or replies on the chat's run), GET reattaches to a run's current request through
// the platform's event log, and actions approve, answer and cancel. Framework-agnostic (Request →
// Response); app/api/chat/* mounts it with the framework's ChatContextResolver.
import { setTimeout as delay } from "node:timers/promises";
import { createUIMessageStream, createUIMessageStreamResponse, readUIMessageStream } from "ai";
import type { z } from "zod";
import {
  CHAT_HISTORY_LIMIT,
  ChatAction,
  ChatCommandsQuery,
  ChatConversationQuery,
  ChatHistoryQuery,
  ChatResumeQuery,
  ChatSendBody,
  FILES_ONLY_MESSAGE,
  MAX_ATTACHMENTS,
  chatMessageId,
  type ChatCommand,
  type ChatHistoryItem,
} from "@inlay/core/chat/contract";
import { chatErrorFrom } from "@inlay/core/chat/errors";
import { isSettledStatus } from "@inlay/core/schemas/runs";
import { conversationPreview, interleaveTurns, unfinishedRequestMessage } from "@inlay/core/chat/history";
import { createRunTranslator, type FinishUsage, type RunTranslator } from "@inlay/core/chat/run-frames";
import type { ChatChunk, ChatError, ChatMessage } from "@inlay/core/chat/types";
import { isRefusal, PlatformApiError, type Run, type RunFrame, type RunMessages, type RunStream } from "@inlay/core/platform-client";
import { logger } from "@/lib/logger";
import { chatReattaches, chatStreamsOpen, chatTurnsRefused, chatTurnsStarted } from "@/server/framework/observability/metrics";
import { ChatRefusal, type ChatAdmission, type ChatContext, type ChatContextResolver } from "./context";
import { appDraining, drainingResponse } from "../lifecycle";
import { appSpan, SpanKind } from "../tracing";
import { DATABASE_RETRY_AFTER_SECONDS } from "@/server/shared/db-errors";
import { DATABASE_AWAY_MESSAGE, isAppDatabaseAway } from "@/server/framework/tenancy/errors";

const json = (status: number, body: unknown, headers?: HeadersInit) =>
  Response.json(body, { status, headers: { "cache-control": "no-store", ...headers } });

const statusOf: Record<ChatError["kind"], number> = {
  cap_reached: 402,
  balance_depleted: 402,
  verification_required: 402,
  rate_limited: 429,
  run_failed: 500,
  connection: 502,
  not_found: 404,
  conflict: 409,
  unauthorized: 403,
  token_expired: 401,
  invalid: 422,
  unavailable: 503,
  unknown: 500,
};

const unprocessable = (message: string) => json(422, { error: { kind: "invalid", message } satisfies ChatError });

const invalid = (error: z.ZodError) =>
  unprocessable(error.issues.map((issue) => `${issue.path.join(".") || "body"}: ${issue.message}`).join("; "));

const toChatError = (error: unknown): ChatError => {
  if (error instanceof ChatRefusal) return error.chatError;
  if (isAppDatabaseAway(error)) return { kind: "unavailable", message: DATABASE_AWAY_MESSAGE, retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS };
  return chatErrorFrom(error);
};

/** A turn refused before it had a run: by the framework's limits or the platform, and which limit. */
const countRefusal = (error: unknown) =>
  chatTurnsRefused.inc({ by: error instanceof ChatRefusal ? "framework" : "platform", limit: toChatError(error).code ?? toChatError(error).kind });

function failure(error: unknown) {
  const chatError = toChatError(error);
  if (isAppDatabaseAway(error)) logger.warn({ err: error }, "the app's database did not answer in time: 503");
  else if (!(error instanceof PlatformApiError) && !(error instanceof ChatRefusal)) logger.error({ err: error }, "chat action failed");
  const headers = chatError.retryAfterSeconds !== undefined ? { "retry-after": String(chatError.retryAfterSeconds) } : undefined;
  return json(statusOf[chatError.kind], { error: chatError }, headers);
}

async function readJson(request: Request): Promise<unknown> {
  try {
    return await request.json();
  } catch {
    return undefined;
  }
}

/** A data: URL from the chat input as a File for the platform's multipart endpoints. */
async function fileFrom(part: { url: string; mediaType: string; filename?: string }, index: number): Promise<File> {
  const blob = await (await fetch(part.url)).blob();
  return new File([blob], part.filename ?? `attachment-${index + 1}`, { type: part.mediaType });
}

interface Follow {
  context: ChatContext;
  runId: number;
  cursor: string | undefined;
  /** The first frames, already read (a reattachment peeks to know there is something to show). */
  head?: { frame: RunFrame; eventId: string | undefined }[];
  /** The run's stream, and the iterator over it when the head was read from it already. */
  frames: RunStream | undefined;
  iterator?: AsyncIterator<RunFrame>;
  /** A failure before any frame: shown as the message's only part. */
  error?: ChatError;
  /** Which part of the run's usage is this request's (a reply's: what the run used beyond `since`). */
  usage?: FinishUsage;
  signal: AbortSignal;
  /** The ledger's record of this turn's run, still being written: the turn is settled after it. */
  started?: Promise<void>;
}

// How long a stream's end waits for its turn's settlement (a database slow to answer).
const SETTLE_WAIT_MS = 2_000;

/**
 * Settled before the stream closes, so the quota the page refreshes at the turn's end counts it; a
 * database slow to answer does not hold the stream's end for long (the settlement goes on; failing,
 * the run's webhook settles the turn).
 */
async function settleBeforeClose(settling: Promise<void>, runId: number): Promise<void> {
  const done = settling.catch((failed: unknown) => logger.warn({ err: failed, runId }, "chat: settling the ended run failed; its webhook will"));
  const waited = new AbortController();
  await Promise.race([done, delay(SETTLE_WAIT_MS, undefined, { signal: waited.signal }).catch(() => {})]);
  waited.abort();
}

/** The UI message stream of one request on a run, from its frames (or its failure). */
function messageStream({ context, runId, cursor, head = [], frames, iterator, error, usage, signal, draining, started }: Follow & { draining: AbortSignal }) {
  const translator = createRunTranslator({ messageId: chatMessageId(runId, cursor), runId, cursor });
  const stream = createUIMessageStream<ChatMessage>({
    async execute({ writer }) {
      chatStreamsOpen.inc();
      const write = (chunks: ReturnType<typeof translator.start>) => chunks.forEach((chunk) => writer.write(chunk));
      write(translator.start());
      let run: Run | undefined;
      let sawDone = false;
      // The browser went away (a reload, a closed tab): the run goes on and a reload reattaches. Stop
      // is an explicit cancel (POST /api/chat/actions), not a dropped request. The turn's admission is
      // settled by the run ledger from the platform's webhooks, so reading stops at once.
      const stop = () => frames?.abort();
      signal.addEventListener("abort", stop, { once: true });
      // This process drains (lifecycle.ts): the stream ends, marked, and the chat reattaches elsewhere.
      draining.addEventListener("abort", stop, { once: true });
      try {
        if (error) write(translator.fail(error));
        for (const { frame, eventId } of head) {
          write(translator.frame(frame, eventId));
          sawDone ||= frame.type === "done";
        }
        if (frames && !sawDone) {
          const next = iterator ?? frames[Symbol.asyncIterator]();
          for (let step = await next.next(); !step.done; step = await next.next()) {
            write(translator.frame(step.value, frames.lastEventId));
            sawDone ||= step.value.type === "done";
          }
        }
        if (sawDone) run = await context.client.runs.get(runId).catch(() => undefined);
      } catch (failed) {
        write(translator.fail(chatErrorFrom(failed)));
      } finally {
        signal.removeEventListener("abort", stop);
        draining.removeEventListener("abort", stop);
        chatStreamsOpen.dec();
      }
      if (draining.aborted && !sawDone) {
        // Not the request's end: nothing is marked expired or denied; the reattachment replays it whole.
        write(translator.interrupt("draining"));
        return;
      }
      write(translator.finish(run, usage));
      const ended = context.ended;
      if (run && ended) await settleBeforeClose((started ?? Promise.resolve()).then(() => ended(run)), runId);
    },
    onError: () => "The chat stream failed.",
  });
  return createUIMessageStreamResponse({
    stream,
    headers: { "cache-control": "no-store", "x-run-id": String(runId) },
  });
}

/** A failure before there is a run: the message is just the explanation. */
function refusalStream(error: ChatError, messageId: string) {
  const translator = createRunTranslator({ messageId });
  const stream = createUIMessageStream<ChatMessage>({
    execute({ writer }) {
      for (const chunk of [...translator.start(), ...translator.fail(error), ...translator.finish()]) writer.write(chunk);
    },
  });
  return createUIMessageStreamResponse({ stream, headers: { "cache-control": "no-store" } });
}

/** A run whose event log has ended: a running or waiting run's current request has no done frame yet. */
/** A bound on the requests one conversation rebuilds (each is one read of the log). */
const MAX_REQUESTS = 200;

async function messageFrom(chunks: ChatChunk[]): Promise<ChatMessage | undefined> {
  const stream = new ReadableStream<ChatChunk>({
    start(controller) {
      chunks.forEach((chunk) => controller.enqueue(chunk));
      controller.close();
    },
  });
  let last: ChatMessage | undefined;
  for await (const message of readUIMessageStream<ChatMessage>({ stream })) last = message;
  return last && structuredClone(last);
}

/**
 * A run's conversation: one assistant message per request, read request by request from its event log
 * (each read ends at that request's done frame), with the ids and metadata the live chat gave them, so
 * a reply continues from the last one; each after the person's message that started its request (the
 * run's turns, GET /runs/{run_id}/messages). A run still going has one user turn per request, its
 * current one included: the requests before it are read, and the current one is a message to
 * reattach to (GET /api/chat from its cursor), as after a reload. Undefined when that cannot be known
 * (a metadata_only run keeps no turns) or is too long to read.
 */
async function conversationOf(context: ChatContext, run: Run, turns: RunMessages, signal: AbortSignal): Promise<ChatMessage[] | undefined> {
  const settled = isSettledStatus(run.status);
  const requestsBefore = turns.data.filter((turn) => turn.role === "user").length - 1;
  if (!settled && (requestsBefore < 0 || requestsBefore > MAX_REQUESTS)) return undefined;
  // A settled run's log is read to its end; a running one's only up to its current request, whose
  // read would wait for it to finish.
  const limit = settled ? MAX_REQUESTS : requestsBefore;
  const requests: { translator: RunTranslator; chunks: ChatChunk[] }[] = [];
  let cursor: string | undefined;
  while (requests.length < limit) {
    const frames = context.client.runs.events(run.id, { lastEventId: cursor }, { signal });
    const translator = createRunTranslator({ messageId: chatMessageId(run.id, cursor), runId: run.id, cursor });
    const chunks = translator.start();
    for await (const frame of frames) chunks.push(...translator.frame(frame, frames.lastEventId));
    // Nothing after the cursor: the log is over.
    if (chunks.length === 1) break;
    requests.push({ translator, chunks });
    if (translator.lastEventId === undefined || translator.lastEventId === cursor) break;
    cursor = translator.lastEventId;
  }
  const messages: ChatMessage[] = [];
  for (const [index, { translator, chunks }] of requests.entries()) {
    // Usage and output are the run's: they belong with its latest request. The log does not say what
    // each request used, so with several the usage is the conversation's total, shown as such.
    const usage: FinishUsage | undefined = requests.length > 1 ? { wholeRun: true } : undefined;
    chunks.push(...translator.finish(settled && index === requests.length - 1 ? run : undefined, usage));
    const message = await messageFrom(chunks);
    if (message) messages.push(message);
  }
  if (!settled) {
    if (requests.length < requestsBefore) return undefined;
    messages.push(unfinishedRequestMessage(run.id, cursor, run.status));
  }
  return interleaveTurns(run.id, turns.data, messages);
}

export interface ChatHandlers {
  /** POST /api/chat */
  send(request: Request): Promise<Response>;
  /** GET /api/chat?runId=&cursor= */
  resume(request: Request): Promise<Response>;
  /** POST /api/chat/actions */
  act(request: Request): Promise<Response>;
  /** GET /api/chat/history?agent= */
  history(request: Request): Promise<Response>;
  /** GET /api/chat/conversation?agent=&runId= */
  conversation(request: Request): Promise<Response>;
  /** GET /api/chat/commands?agent=: the `/` picker's platform commands and skills. */
  commands(request: Request): Promise<Response>;
  /** GET /api/chat/connections: the apps the caller may connect, with their status (404 where the context offers none). */
  connections(request: Request): Promise<Response>;
  /** GET /api/chat/quota: the caller's runs and cost this month against their caps (404 where the context keeps none). */
  quota(request: Request): Promise<Response>;
}

/** `draining`: aborted when this process drains (the app's, lifecycle.ts, unless a test gives its own). */
export function createChatHandlers(resolveContext: ChatContextResolver, draining: AbortSignal = appDraining()): ChatHandlers {
  async function contextOr401(request: Request): Promise<ChatContext | Response> {
    try {
      const context = await resolveContext(request);
      return context ?? json(401, { error: { kind: "unauthorized", message: "Sign in to chat." } satisfies ChatError });
    } catch (error) {
      return failure(error);
    }
  }

  /** POST /api/chat under its span: start a run (or reply on the chat's run) and stream the answer. */
  async function sendTurn(request: Request): Promise<Response> {
    if (draining.aborted) return drainingResponse();
    const context = await appSpan("chat.context", {}, () => contextOr401(request));
    if (context instanceof Response) return context;
    const parsed = ChatSendBody.safeParse(await readJson(request));
    if (!parsed.success) return invalid(parsed.error);
    const { agent, message, runId, cursor, permissionMode } = parsed.data;
    const text = message.parts.flatMap((part) => (part.type === "text" ? [String(part.text)] : [])).join("\n").trim();
    const fileParts = message.parts.flatMap((part) =>
      part.type === "file" ? [part as { url: string; mediaType: string; filename?: string }] : [],
    );
    if (fileParts.length > MAX_ATTACHMENTS) return unprocessable(`message.parts: at most ${MAX_ATTACHMENTS} files`);
    if (!text && fileParts.length === 0) return unprocessable("message: must not be empty");
    const messageText = text || FILES_ONLY_MESSAGE;

    // Before any admission: the run a reply continues is the caller's, and a new run's agent exists
    // (another member's or a missing run, an unknown agent: 404, and nothing is counted or made).
    let target: { runId: number; prior: Run } | { runId?: undefined; teammateId: number };
    try {
      target =
        runId !== undefined
          ? { runId, prior: await context.client.runs.get(runId) }
          : { teammateId: await context.agentId(agent, { create: true }) };
    } catch (error) {
      return failure(error);
    }

    // A new run's preparation (the member's copies of what the tenant offers, the apps it names) goes
    // on while the turn is admitted: the first token waits for the slower of the two, not for both.
    // A refused turn leaves copies the member's next run would make anyway; a failed preparation is
    // met below, once the admission can be given back.
    const prepared = target.runId === undefined ? context.prepare?.() : undefined;
    prepared?.catch(() => {});
    let admission: ChatAdmission | undefined;
    try {
      // A reply continues its run: admitted as a message, not as another run.
      admission = await appSpan("chat.admission", {}, async () => context.admit?.({ reply: target.runId !== undefined }));
    } catch (error) {
      if (error instanceof ChatRefusal) {
        countRefusal(error);
        return refusalStream(error.chatError, `refused-${message.id}`);
      }
      return failure(error);
    }
    // The run's stream is not tied to this request: when the browser goes away, messageStream
    // stops reading it.
    let stream: RunStream;
    // A reply's cost is what the run costs beyond this point (it waited for the person, so its cost
    // has not moved since it was read above).
    const priorCostUsd = admission && target.runId !== undefined ? target.prior.usage.cost_usd : undefined;
    try {
      const files = await Promise.all(fileParts.map(fileFrom));
      if (target.runId !== undefined) {
        // Every turn of a chat has the person at it: it honours the run's permission mode (approval
        // cards on follow-ups too), where the spec's plain reply would refuse such tools.
        stream = files.length
          ? await context.client.runs.replyWithFiles(target.runId, { message: messageText, files, interactive: true })
          : await context.client.runs.reply(target.runId, { message: messageText, interactive: true });
      } else {
        const apps = (await prepared)?.apps ?? [];
        const params = {
          teammate_id: target.teammateId,
          message: messageText,
          ...(permissionMode ? { permission_mode: permissionMode } : {}),
          ...(apps.length ? { tools: apps } : {}),
        };
        stream = files.length
          ? await context.client.runs.createWithFiles({ ...params, files })
          : await context.client.runs.create(params);
      }
    } catch (error) {
      // A refusal (the platform's, or the framework's own) started no run: the member keeps the run
      // the admission counted. Anything else may have started one.
      const refused = isRefusal(error) || error instanceof ChatRefusal;
      // A run or agent gone meanwhile (404, below) is no limit.
      if (refused && toChatError(error).kind !== "not_found") countRefusal(error);
      await (refused ? admission?.withdraw() : admission?.abandon())?.catch(() => {});
      if (!(error instanceof PlatformApiError) && !(error instanceof ChatRefusal)) logger.error({ err: error }, "chat send failed");
      const chatError = toChatError(error);
      // What the message names is not there (a run or agent gone meanwhile): 404, as above.
      if (chatError.kind === "not_found") return json(404, { error: chatError });
      return refusalStream(chatError, `failed-${message.id}`);
    }
    const id = stream.runId ?? runId;
    if (id === undefined) {
      stream.abort();
      await admission?.abandon().catch(() => {});
      return refusalStream({ kind: "unknown", message: "The platform did not name the run." }, `failed-${message.id}`);
    }
    // The ledger learns the turn's run while the stream starts: the first token does not wait for that
    // write, and the turn's settlement at the stream's end waits for it (messageStream). The run goes on
    // either way, so a webhook of a run that ends first finds nothing to settle; the stream's end or the
    // ledger's sweep does. Should the write fail, the sweep releases the admission as one that never
    // named a run.
    const started = appSpan("ledger.turn_started", { attributes: { "inlay.run.id": id } }, async () => admission?.started(id, priorCostUsd)).catch((failed) =>
      logger.error({ err: failed }, "chat admission start failed"),
    );
    chatTurnsStarted.inc({ kind: target.runId !== undefined ? "reply" : "new" });
    // The message's usage is this request's: a reply's is what the run used beyond its prior total.
    const usage = target.runId !== undefined ? { since: target.prior.usage } : undefined;
    return messageStream({ context, runId: id, cursor: runId === undefined ? undefined : cursor, frames: stream, usage, signal: request.signal, draining, started });
  }

  return {
    send(request) {
      // One trace per chat turn: this span is the parent of the platform's (tracing.ts).
      return appSpan("POST /api/chat", { kind: SpanKind.SERVER, attributes: { "http.request.method": "POST", "http.route": "/api/chat" } }, async (span) => {
        const response = await sendTurn(request);
        span.setAttribute("http.response.status_code", response.status);
        const runId = response.headers.get("x-run-id");
        if (runId) span.setAttribute("inlay.run.id", Number(runId));
        return response;
      });
    },

    async resume(request) {
      if (draining.aborted) return drainingResponse();
      const context = await contextOr401(request);
      if (context instanceof Response) return context;
      const url = new URL(request.url);
      const parsed = ChatResumeQuery.safeParse(Object.fromEntries(url.searchParams));
      if (!parsed.success) return invalid(parsed.error);
      const { runId, cursor } = parsed.data;
      const frames = context.client.runs.events(runId, { lastEventId: cursor });
      // Peek: a request that is over and already shown has nothing after its cursor. 204 tells useChat
      // there is no stream to resume.
      const iterator = frames[Symbol.asyncIterator]();
      let first: IteratorResult<RunFrame>;
      try {
        first = await iterator.next();
      } catch (error) {
        chatReattaches.inc({ outcome: "failed" });
        return failure(error);
      }
      chatReattaches.inc({ outcome: first.done ? "nothing" : "streamed" });
      if (first.done) return new Response(null, { status: 204 });
      const head = [{ frame: first.value, eventId: frames.lastEventId }];
      // A later request's own usage is not known here (what the run had used before it is gone): the
      // conversation's total, shown as such. The first request's is the run's.
      const usage: FinishUsage | undefined = cursor === undefined ? undefined : { wholeRun: true };
      return messageStream({ context, runId, cursor, head, frames, iterator, usage, signal: request.signal, draining });
    },

    async act(request) {
      const context = await contextOr401(request);
      if (context instanceof Response) return context;
      const parsed = ChatAction.safeParse(await readJson(request));
      if (!parsed.success) return invalid(parsed.error);
      const action = parsed.data;
      const runs = context.client.runs;
      try {
        switch (action.action) {
          case "approve": {
            const remember = action.remember === true || action.always === true;
            const result = await runs.approve(action.runId, { request_id: action.requestId, decision: action.decision, ...(remember ? { remember } : {}) });
            // Always allow: on the person's allow-list, so later runs do not ask again.
            if (action.always && action.decision === "allow") await context.client.permissions.create({ tool: result.tool_name });
            return json(200, { ok: true, result });
          }
          case "answer":
            return json(200, { ok: true, result: await runs.answer(action.runId, { answers: action.answers, ...(action.requestId ? { request_id: action.requestId } : {}) }) });
          case "cancel":
            return json(200, { ok: true, result: { status: (await runs.cancel(action.runId)).status } });
          case "connect": {
            if (!context.connect) return json(404, { error: { kind: "not_found", message: "Apps cannot be connected here." } satisfies ChatError });
            return json(200, { ok: true, result: await context.connect(action) });
          }
          case "complete": {
            if (!context.complete) return json(404, { error: { kind: "not_found", message: "Apps cannot be connected here." } satisfies ChatError });
            return json(200, { ok: true, result: await context.complete(action) });
          }
          case "disconnect": {
            if (!context.disconnect) return json(404, { error: { kind: "not_found", message: "Apps cannot be connected here." } satisfies ChatError });
            return json(200, { ok: true, result: await context.disconnect(action) });
          }
        }
      } catch (error) {
        return failure(error);
      }
    },

    async history(request) {
      const context = await contextOr401(request);
      if (context instanceof Response) return context;
      const parsed = ChatHistoryQuery.safeParse(Object.fromEntries(new URL(request.url).searchParams));
      if (!parsed.success) return invalid(parsed.error);
      try {
        const teammateId = await context.agentId(parsed.data.agent);
        const page = await context.client.runs.list({ teammate_id: teammateId, limit: CHAT_HISTORY_LIMIT });
        const conversations = page.data.map(
          (run): ChatHistoryItem => {
            const preview = conversationPreview(run);
            return { runId: run.id, status: run.status, createdAt: run.created_at, preview: preview?.text ?? null, previewFrom: preview?.from ?? null };
          },
        );
        return json(200, { conversations });
      } catch (error) {
        return failure(error);
      }
    },

    async conversation(request) {
      const context = await contextOr401(request);
      if (context instanceof Response) return context;
      const parsed = ChatConversationQuery.safeParse(Object.fromEntries(new URL(request.url).searchParams));
      if (!parsed.success) return invalid(parsed.error);
      const { agent, runId } = parsed.data;
      try {
        // The bound client sees only the member's runs (another's is the platform's 404); the agent
        // check keeps a chat (an embed token names one agent) to its own agent's conversations.
        const [run, teammateId] = await Promise.all([context.client.runs.get(runId), context.agentId(agent)]);
        if (run.teammate_id !== teammateId) {
          return json(404, { error: { kind: "not_found", message: "There is no such conversation here." } satisfies ChatError });
        }
        // Read after the run: a reply that starts in between only adds a turn, never takes one away.
        const turns = await context.client.runs.messages(runId);
        const messages = await conversationOf(context, run, turns, request.signal);
        if (!messages) {
          return json(409, { error: { kind: "conflict", message: "This conversation is still going; open it once it has finished." } satisfies ChatError });
        }
        return json(200, { runId, messages });
      } catch (error) {
        return failure(error);
      }
    },

    async commands(request) {
      const context = await contextOr401(request);
      if (context instanceof Response) return context;
      const parsed = ChatCommandsQuery.safeParse(Object.fromEntries(new URL(request.url).searchParams));
      if (!parsed.success) return invalid(parsed.error);
      try {
        await context.prepare?.();
        const teammateId = await context.agentId(parsed.data.agent);
        const page = await context.client.skills.invokable({ teammate_id: teammateId });
        const commands = page.data.map((entry): ChatCommand => ({ slug: entry.slug, name: entry.name, description: entry.description, kind: entry.kind }));
        return json(200, { commands });
      } catch (error) {
        return failure(error);
      }
    },

    async connections(request) {
      const context = await contextOr401(request);
      if (context instanceof Response) return context;
      if (!context.apps) return json(404, { error: { kind: "not_found", message: "Apps cannot be connected here." } satisfies ChatError });
      try {
        return json(200, { apps: await context.apps() });
      } catch (error) {
        return failure(error);
      }
    },

    async quota(request) {
      const context = await contextOr401(request);
      if (context instanceof Response) return context;
      if (!context.quota) return json(404, { error: { kind: "not_found", message: "This chat keeps no quota." } satisfies ChatError });
      try {
        return json(200, await context.quota());
      } catch (error) {
        return failure(error);
      }
    },
  };
}
