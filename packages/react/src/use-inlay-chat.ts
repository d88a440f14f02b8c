"use client";
// useInlayChat: the chat without its drawing, for a vendor who draws its own (and what <InlayChat>
// itself draws from). Inside an <InlayProvider>: streams each turn, keeps the conversation across
// reloads (sessionStorage, under the provider's storageScope), reattaches to a run still going after a
// reload, a cut or an instance's restart, and answers approvals, questions and connect requests
// through the same actions as the default cards.
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, type FileUIPart } from "ai";
import { useCallback, useEffect, useMemo, useRef, useSyncExternalStore } from "react";
import { resumeQuery, runPosition, sendBody } from "@inlay/core/chat/conversation";
import { drainingRetryFetch } from "@inlay/core/chat/draining-fetch";
import type { ChatError, ChatMessage } from "@inlay/core/chat/types";
import { useInlay } from "./provider";
import { chatStorageKey, clearChatStorage, loadConversation, saveConversation } from "./storage";
import { useChatActions, type ChatActionsApi } from "./use-chat-actions";

export interface UseInlayChatOptions {
  /** The agent: its name (created for the member on first use) or its platform id. */
  agent: string;
  /** Keeps conversations apart (default: one per agent). */
  chatId?: string;
  permissionMode?: "autonomous" | "approval" | "plan";
  /**
   * "session" (default) keeps the conversation across reloads in sessionStorage, under the provider's
   * storageScope; without a storageScope nothing is kept. "none" keeps nothing.
   */
  persist?: "session" | "none";
  /** Called when a turn's request ends (answered, waiting for the person, stopped or refused). */
  onTurnEnd?: () => void;
}

export interface InlayChatController {
  messages: ChatMessage[];
  /** useChat's status: "submitted" and "streaming" while a turn is on its way. */
  status: "submitted" | "streaming" | "ready" | "error";
  busy: boolean;
  /** False until the browser has the session and the saved conversation: do not send before. */
  ready: boolean;
  /** The run waits for the person: an approval, a question or an app to connect. */
  waitingForPerson: boolean;
  /** Busy with nothing of the answer shown yet (where a typing indicator goes). */
  thinking: boolean;
  /** Why the last request failed (unauthorized, rate_limited, connection …), if it did. */
  error: ChatError | undefined;
  send(text: string, files?: File[]): Promise<void>;
  /** Cancels the run (its stream then ends "Stopped"), or drops a request that has no run yet. */
  stop(): Promise<void>;
  /** Reattaches to the run after a connection failure; undefined when there is nothing to reattach to. */
  retry: (() => void) | undefined;
  /** Starts over: a new run, a clean context. */
  newConversation(): void;
  /** Shows a past conversation (from the history) and replies on its run. */
  openConversation(past: ChatMessage[]): void;
  /** Allow or deny a tool call, answer a question, connect an app (what the default cards call). */
  actions: ChatActionsApi;
}

const noSubscription = () => () => {};

function readFile(file: File): Promise<FileUIPart> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve({ type: "file", mediaType: file.type || "text/plain", filename: file.name, url: String(reader.result) });
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

/** A transport failure (401, 503 …) carries the bridge's JSON error as its message. */
function transportError(error: Error | undefined): ChatError | undefined {
  if (!error) return undefined;
  try {
    const parsed = JSON.parse(error.message) as { error?: ChatError };
    if (parsed.error?.kind) return parsed.error;
  } catch {
    // not JSON: a network failure
  }
  return { kind: "connection", message: "The chat could not reach the server." };
}

export function useInlayChat({ agent, chatId, permissionMode, persist: wanted, onTurnEnd }: UseInlayChatOptions): InlayChatController {
  const config = useInlay();
  const id = chatId ?? `agent-${agent}`;
  // The saved conversation is read in the browser only (no sessionStorage while rendering on the
  // server), and a vendor's session (which names where conversations are kept) comes first.
  const ready = useSyncExternalStore(noSubscription, () => true, () => false) && !config.sessionPending;
  const scope = config.storageScope;
  const storageKey = scope ? chatStorageKey(scope, id) : "";
  const persist = storageKey ? (wanted ?? "session") : "none";
  const initial = useMemo(() => {
    if (!ready || persist !== "session") return [];
    clearChatStorage(scope); // another person's conversations, left in this tab
    return loadConversation(storageKey);
  }, [ready, persist, scope, storageKey]);
  // A conversation saved mid-run reattaches to it: useChat's resume replays the request from the
  // cursor it started after (GET /api/chat), replacing the partial message.
  const resumeFrom = useMemo(() => resumeQuery(initial), [initial]);
  const transport = useMemo(
    () =>
      new DefaultChatTransport<ChatMessage>({
        api: config.api,
        credentials: config.credentials,
        headers: () => config.headers?.() ?? {},
        // A restarting instance refuses new turns and reattachments: sent again, they reach another.
        fetch: drainingRetryFetch(config.fetch),
        prepareSendMessagesRequest: ({ messages }) => ({ body: sendBody(messages, { agent, permissionMode }) }),
        // The retry button passes { body: { resume } }; a mount resumes from the saved position.
        prepareReconnectToStreamRequest: ({ body }) => ({ api: `${config.api}?${String(body?.resume ?? resumeFrom ?? "")}` }),
      }),
    [config, agent, permissionMode, resumeFrom],
  );
  // A new chat (a fresh useChat state) whenever the conversation it starts from changes: once the
  // browser has read it, or under another person's storage scope. useChat calls the callbacks of its
  // latest render, so onFinish sees this render's onTurnEnd and resumeStream.
  const { messages, sendMessage, status, stop, error, setMessages, resumeStream, clearError } = useChat<ChatMessage>({
    id: `${storageKey || id}:${ready}`,
    transport,
    messages: initial,
    resume: resumeFrom !== undefined,
    throttle: 40,
    // Called at the end of every request, a failed or stopped one too; a stream the server ended
    // because it drains is not an end: the chat reattaches (on another instance) and replays it.
    onFinish: ({ message, messages: now }) => {
      if (message.metadata?.interrupted) {
        const resume = resumeQuery(now);
        if (resume) {
          // After useChat has settled this request: the reattachment is the next one.
          setTimeout(() => void resumeStream({ body: { resume } }), 0);
          return;
        }
      }
      onTurnEnd?.();
      config.turns?.dispatchEvent(new Event("turn-end"));
    },
  });
  const busy = status === "submitted" || status === "streaming";
  const position = runPosition(messages);
  // Once an app is connected the platform resumes the run by itself. The stream is normally still
  // open (a paused run's stream waits) and simply goes on; if it was cut while the person was in the
  // app's sign-in, the chat reattaches to the run, as after a reload.
  const latest = useRef({ busy: false, messages });
  useEffect(() => {
    latest.current = { busy, messages };
  }, [busy, messages]);
  const onConnected = useCallback(() => {
    const { busy: following, messages: now } = latest.current;
    const resume = resumeQuery(now);
    if (!following && resume) void resumeStream({ body: { resume } });
  }, [resumeStream]);
  const actions = useChatActions(config, position?.runId, onConnected);

  useEffect(() => {
    if (ready && persist === "session") saveConversation(storageKey, messages);
  }, [ready, persist, storageKey, messages]);

  const send = useCallback(
    async (text: string, files: File[] = []) => {
      clearError();
      const parts = await Promise.all(files.map(readFile));
      await sendMessage(parts.length ? { text, files: parts } : { text });
    },
    [sendMessage, clearError],
  );

  const stopRun = useCallback(async () => {
    const current = runPosition(messages);
    if (current && !current.finished && (await actions.cancel(current.runId))) return;
    await stop();
  }, [actions, stop, messages]);

  const newConversation = useCallback(() => {
    clearError();
    setMessages([]);
    if (persist === "session") saveConversation(storageKey, []);
  }, [clearError, setMessages, persist, storageKey]);

  // One still going ends with its current request unread: the chat reattaches to it, as after a reload.
  const openConversation = useCallback(
    (past: ChatMessage[]) => {
      clearError();
      setMessages(past);
      if (persist === "session") saveConversation(storageKey, past);
      const resume = resumeQuery(past);
      if (resume) void resumeStream({ body: { resume } });
    },
    [clearError, setMessages, persist, storageKey, resumeStream],
  );

  const last = messages.at(-1);
  const failure = transportError(error);
  const resumable = failure?.kind === "connection" && position && !position.finished ? resumeQuery(messages) : undefined;
  return {
    messages,
    status,
    busy,
    ready,
    waitingForPerson: last?.metadata?.status === "awaiting_approval",
    thinking: busy && (last?.role !== "assistant" || last.parts.every((part) => part.type === "step-start" || (part.type === "text" && !part.text))),
    error: failure,
    send,
    stop: stopRun,
    retry: resumable ? () => void resumeStream({ body: { resume: resumable } }) : undefined,
    newConversation,
    openConversation,
    actions,
  };
}
