"use client";
// <InlayChat agent="…" />: a complete chat with one agent, on useChat and the typed ChatMessage. Drop
// it inside an <InlayProvider> (packages/react/src/provider.tsx) on any page; slots for the header and
// the avatar, theming through CSS variables (chat.css). The conversation is kept in sessionStorage
// (when the browser allows it and the provider names whose it is: storage.ts), so a reload shows it
// again and reattaches to a run still going.
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, type FileUIPart } from "ai";
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore, type CSSProperties, type ReactNode } from "react";
import { messageUsage, resumeQuery, runPosition, sendBody } from "@inlay/core/chat/conversation";
import { drainingRetryFetch } from "@inlay/core/chat/draining-fetch";
import { formatMicros, formatMicrosExact, usdToMicros } from "@inlay/core/money";
import type { ChatError, ChatMessage, ChatPart } from "@inlay/core/chat/types";
import { useChatCommands } from "./command-picker";
import { Composer } from "./composer";
import { chatStorageKey, clearChatStorage, loadConversation, saveConversation } from "./storage";
import { ChatHistory } from "./history";
import { Markdown, preloadMarkdown } from "./markdown";
import { ApprovalCard, ConnectionCard, ErrorBanner, Icon, OutputView, PlanCard, QuestionCard, ToolCall, icons, type CardActions } from "./parts";
import { themeStyle, useInlay, type InlayTheme } from "./provider";
import { useChatActions } from "./use-chat-actions";
import { approvalProps, toolPartProps, type ToolRenderers } from "./tool-renderers";

export interface InlayChatProps {
  /** The agent: its name (created for the member on first use) or its platform id. */
  agent: string;
  /** Keeps conversations apart (default: one per agent). */
  chatId?: string;
  permissionMode?: "autonomous" | "approval" | "plan";
  title?: string;
  subtitle?: string;
  /** Replaces the header entirely. */
  header?: ReactNode;
  /** The agent's avatar (default: its initial). */
  avatar?: ReactNode;
  /** Shown on an empty conversation; clicking one sends it. */
  suggestions?: string[];
  welcome?: ReactNode;
  placeholder?: string;
  /**
   * "session" (default) keeps the conversation across reloads in sessionStorage, under the provider's
   * storageScope; without a storageScope nothing is kept. "none" keeps nothing.
   */
  persist?: "session" | "none";
  theme?: InlayTheme;
  className?: string;
  style?: CSSProperties;
  /** Your own components for some tools' calls, by tool name (over the provider's); the rest are drawn as usual. */
  toolRenderers?: ToolRenderers;
  /** Called when a turn's request ends (answered, waiting for the person, stopped or refused): e.g. to refresh a quota display. */
  onTurnEnd?: () => void;
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

function AssistantParts({ message, actions, renderers }: { message: ChatMessage; actions: CardActions; renderers: ToolRenderers }) {
  const parts = message.parts;
  return (
    <>
      {parts.map((part: ChatPart, index) => {
        const key = `${message.id}-${index}`;
        switch (part.type) {
          case "text":
            // The plan's text is shown inside its card.
            if (parts[index + 1]?.type === "data-plan") return null;
            return part.text ? <Markdown key={key} text={part.text} /> : null;
          case "dynamic-tool": {
            const Renderer = renderers[part.toolName];
            const awaiting = awaitsApproval(parts, part.toolCallId);
            // While it waits for approval, the renderer draws it from the approval part (with its buttons).
            if (Renderer && awaiting && parts.some((other) => other.type === "data-approval" && other.data.toolCallId === part.toolCallId)) return null;
            return Renderer ? <Renderer key={key} {...toolPartProps(part)} /> : <ToolCall key={key} part={part} awaitingApproval={awaiting} />;
          }
          case "data-approval": {
            const Renderer = renderers[part.data.toolName];
            // Once answered, the tool call part draws the call (running, then its output).
            if (Renderer) return part.data.state === "pending" ? <Renderer key={key} {...approvalProps(part.data, actions)} /> : null;
            return <ApprovalCard key={key} data={part.data} actions={actions} />;
          }
          case "data-connection":
            return <ConnectionCard key={key} data={part.data} actions={actions} />;
          case "data-question":
            return <QuestionCard key={key} data={part.data} actions={actions} />;
          case "data-plan":
            return <PlanCard key={key} data={part.data} actions={actions} />;
          case "data-output":
            return <OutputView key={key} data={part.data} />;
          case "data-error":
            return <ErrorBanner key={key} error={part.data} />;
          default:
            return null;
        }
      })}
    </>
  );
}

/** Whether the person is still to allow or deny this tool call, or connect its app (its card is pending). */
const awaitsApproval = (parts: ChatPart[], toolCallId: string) =>
  parts.some(
    (part) =>
      (part.type === "data-approval" || part.type === "data-connection") && part.data.state === "pending" && part.data.toolCallId === toolCallId,
  );

/**
 * The message's footer: what this message (its request on the run) used, so a conversation's footers
 * add up to its run's cost; rounded on screen, exact on hover. Where only the run's total is known (a
 * conversation of several requests reopened from history) it says it is the conversation's.
 */
function MessageMeta({ messages, index }: { messages: readonly ChatMessage[]; index: number }) {
  const meta = messages[index]?.metadata;
  if (!meta) return null;
  const shown = messageUsage(messages, index);
  const usage = shown?.usage;
  const micros = usage ? usdToMicros(usage.cost_usd) : null;
  const whole = shown?.scope === "run";
  const tokens = usage ? `${usage.input_tokens.toLocaleString()} in · ${usage.output_tokens.toLocaleString()} out` : "";
  return (
    <div className="ic-meta">
      {meta.status === "cancelled" && <span>Stopped</span>}
      {usage && usage.input_tokens + usage.output_tokens > 0 && (
        <span
          data-usage={whole ? "conversation" : "message"}
          title={`${whole ? "The whole conversation up to here" : "This message"}: ${tokens}${micros === null ? "" : `, exactly ${formatMicrosExact(micros)}`}`}
        >
          {whole ? "Conversation: " : ""}
          {tokens}
          {micros === null ? "" : ` · ${formatMicros(micros)}`}
        </span>
      )}
    </div>
  );
}

export function InlayChat(props: InlayChatProps) {
  const id = props.chatId ?? `agent-${props.agent}`;
  // The saved conversation is read in the browser only (no sessionStorage while rendering on the
  // server), so the session mounts again, with it, once hydrated.
  // A vendor's session (and with it where conversations are kept) comes first: no input before it.
  const config = useInlay();
  const hydrated = useSyncExternalStore(noSubscription, () => true, () => false) && !config.sessionPending;
  const scope = config.storageScope;
  const storageKey = scope ? chatStorageKey(scope, id) : "";
  const persist = storageKey ? (props.persist ?? "session") : "none";
  const initial = useMemo(() => {
    if (!hydrated || persist !== "session") return [];
    clearChatStorage(scope); // another person's conversations, left in this tab
    return loadConversation(storageKey);
  }, [hydrated, persist, scope, storageKey]);
  return <ChatSession key={`${storageKey || id}:${hydrated}`} {...props} persist={persist} id={id} storageKey={storageKey} initial={initial} hydrated={hydrated} />;
}

function ChatSession({
  agent,
  id,
  storageKey,
  initial,
  hydrated,
  permissionMode,
  title,
  subtitle,
  header,
  avatar,
  suggestions = [],
  welcome,
  placeholder = "Message the agent…",
  persist = "session",
  theme,
  className = "",
  style,
  onTurnEnd,
  toolRenderers,
}: InlayChatProps & { id: string; storageKey: string; initial: ChatMessage[]; hydrated: boolean }) {
  const config = useInlay();
  const renderers = useMemo(() => ({ ...config.toolRenderers, ...toolRenderers }), [config.toolRenderers, toolRenderers]);
  const commands = useChatCommands(config, agent, hydrated);
  // useChat keeps the callbacks it was created with; this one follows the prop.
  const turnEnded = useRef(onTurnEnd);
  useEffect(() => {
    turnEnded.current = onTurnEnd;
  }, [onTurnEnd]);
  // A conversation saved mid-run reattaches to it: useChat's resume replays the request from the
  // cursor it started after (GET /api/chat), replacing the partial message.
  const [resumeFrom] = useState(() => resumeQuery(initial));
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
  const { messages, sendMessage, status, stop, error, setMessages, resumeStream, clearError } = useChat<ChatMessage>({
    id,
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
          setTimeout(() => void reattach.current({ body: { resume } }), 0);
          return;
        }
      }
      turnEnded.current?.();
      config.turns?.dispatchEvent(new Event("turn-end"));
    },
  });
  const reattach = useRef(resumeStream);
  useEffect(() => {
    reattach.current = resumeStream;
  }, [resumeStream]);
  const busy = status === "submitted" || status === "streaming";
  const position = runPosition(messages);
  // Once an app is connected the platform resumes the run by itself. The stream is normally still
  // open (a paused run's stream waits) and simply goes on; if it was cut while the person was in the
  // app's sign-in, the chat reattaches to the run, as after a reload.
  const latest = useRef({ busy: false, messages });
  useEffect(() => {
    latest.current = { busy: status === "submitted" || status === "streaming", messages };
  }, [status, messages]);
  const onConnected = useCallback(() => {
    const { busy: following, messages: now } = latest.current;
    const resume = resumeQuery(now);
    if (!following && resume) void resumeStream({ body: { resume } });
  }, [resumeStream]);
  const actions = useChatActions(config, position?.runId, onConnected);

  useEffect(() => {
    if (hydrated && persist === "session") saveConversation(storageKey, messages);
  }, [hydrated, persist, storageKey, messages]);

  // The markdown renderer is loaded once there is something to show (a sent or restored message),
  // while the answer is on its way.
  const hasMessages = messages.length > 0;
  useEffect(() => {
    if (hasMessages) void preloadMarkdown().catch(() => {});
  }, [hasMessages]);

  // Follow the conversation while the reader is at the bottom.
  const log = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  useEffect(() => {
    const element = log.current;
    if (element && pinned.current) element.scrollTop = element.scrollHeight;
  }, [messages]);

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
    // Stop cancels the run (its stream then ends "Stopped"); without a run, drop the request.
    if (current && !current.finished && (await actions.cancel(current.runId))) return;
    await stop();
  }, [actions, stop, messages]);

  // A fresh conversation is how a person starts over (a new run, a clean context).
  const newConversation = useCallback(() => {
    clearError();
    setMessages([]);
    if (persist === "session") saveConversation(storageKey, []);
  }, [clearError, setMessages, persist, storageKey]);

  // A past conversation from History: shown as it was, and the next message replies on its run. One
  // still going ends with its current request unread: the chat reattaches to it, as after a reload.
  const openConversation = useCallback(
    (past: ChatMessage[]) => {
      clearError();
      setMessages(past);
      pinned.current = true;
      if (persist === "session") saveConversation(storageKey, past);
      const resume = resumeQuery(past);
      if (resume) void resumeStream({ body: { resume } });
    },
    [clearError, setMessages, persist, storageKey, resumeStream],
  );

  const last = messages.at(-1);
  const waitingForPerson = last?.metadata?.status === "awaiting_approval";
  const thinking = busy && (last?.role !== "assistant" || last.parts.every((part) => part.type === "step-start" || (part.type === "text" && !part.text)));
  const failure = transportError(error);
  const initialLetter = (title ?? agent).trim().charAt(0).toUpperCase() || "A";
  const avatarNode = avatar ?? <span className="ic-avatar" aria-hidden>{initialLetter}</span>;

  return (
    <div
      className={`inlay-chat ${className}`}
      style={{ ...themeStyle(config.theme), ...themeStyle(theme), ...style }}
      onKeyDown={(event) => {
        if (event.key === "Escape" && busy && !event.defaultPrevented) {
          event.preventDefault();
          void stopRun();
        }
      }}
    >
      {header ?? (
        <header className="ic-header">
          {avatarNode}
          <div className="ic-header-text">
            <div className="ic-header-title">{title ?? agent}</div>
            <div className="ic-header-sub">
              <span className="ic-status-dot" data-busy={busy} aria-hidden />
              {waitingForPerson ? "Waiting for you" : busy ? "Working…" : (subtitle ?? "Online")}
            </div>
          </div>
          <div className="ic-header-actions">
            <ChatHistory config={config} agent={agent} disabled={busy || !hydrated} onOpen={openConversation} />
            {messages.length > 0 && (
              <button type="button" className="ic-btn" disabled={busy} onClick={newConversation}>
                New chat
              </button>
            )}
          </div>
        </header>
      )}

      <div
        ref={log}
        className="ic-log"
        role="log"
        aria-live="polite"
        aria-relevant="additions text"
        aria-label="Conversation"
        aria-busy={busy}
        onScroll={(event) => {
          const element = event.currentTarget;
          pinned.current = element.scrollHeight - element.scrollTop - element.clientHeight < 48;
        }}
      >
        {messages.length === 0 && (
          <div className="ic-empty">
            {welcome ?? (
              <>
                <div className="ic-empty-title">Chat with {title ?? agent}</div>
                <div>Ask a question or describe what you need. The agent may ask before it acts.</div>
              </>
            )}
            {suggestions.length > 0 && (
              <div className="ic-suggestions">
                {suggestions.map((suggestion) => (
                  <button key={suggestion} type="button" className="ic-chip" onClick={() => void send(suggestion)}>
                    {suggestion}
                  </button>
                ))}
              </div>
            )}
          </div>
        )}
        {messages.map((message, index) =>
          // An assistant message with nothing yet (a request just reattached to): the typing dots stand in.
          message.role === "assistant" && message.parts.length === 0 ? null : message.role === "user" ? (
            <div key={message.id} className="ic-row" data-role="user">
              <div className="ic-bubble">
                {message.parts.map((part, index) =>
                  part.type === "text" ? (
                    <div key={index} className="ic-user-text">
                      {part.text}
                    </div>
                  ) : part.type === "file" ? (
                    <span key={index} className="ic-attachment">
                      {/* A reopened conversation's files come back by name only, without a URL. */}
                      {part.mediaType.startsWith("image/") && part.url ? (
                        // A data: URL preview of the person's own upload; next/image has nothing to optimise.
                        // eslint-disable-next-line @next/next/no-img-element
                        <img src={part.url} alt="" />
                      ) : (
                        <Icon path={icons.file} />
                      )}
                      {part.filename ?? "attachment"}
                    </span>
                  ) : null,
                )}
              </div>
            </div>
          ) : (
            <article key={message.id} className="ic-row" data-role="assistant" aria-label={`${title ?? agent} says`}>
              {avatarNode}
              <div className="ic-bubble">
                <AssistantParts message={message} actions={actions} renderers={renderers} />
                <MessageMeta messages={messages} index={index} />
              </div>
            </article>
          ),
        )}
        {thinking && (
          <div className="ic-row" data-role="assistant">
            {avatarNode}
            <div className="ic-typing" role="status" aria-label="The agent is working">
              <span />
              <span />
              <span />
            </div>
          </div>
        )}
        {failure && <ErrorBanner error={failure} onRetry={failure.kind === "connection" && position && !position.finished ? () => void resumeStream({ body: { resume: resumeQuery(messages) } }) : undefined} />}
      </div>
      <div className="ic-sr-only" role="status" aria-live="assertive">
        {waitingForPerson ? "The agent is waiting for your answer." : ""}
      </div>

      <Composer busy={busy} disabled={!hydrated} placeholder={placeholder} commands={commands} onSend={(text, files) => void send(text, files)} onStop={() => void stopRun()} />
    </div>
  );
}
