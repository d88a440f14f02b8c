"use client";
// <InlayChat agent="…" />: a complete chat with one agent, drawn from useInlayChat (use-inlay-chat.ts:
// streaming, keeping the conversation across reloads, reattaching). Drop it inside an <InlayProvider>
// (packages/react/src/provider.tsx) on any page; slots for the header and the avatar, theming through
// CSS variables (chat.css).
import { useCallback, useEffect, useMemo, useRef, type CSSProperties, type ReactNode } from "react";
import { messageUsage } from "@inlay/core/chat/conversation";
import { formatMicros, formatMicrosExact, usdToMicros } from "@inlay/core/money";
import type { ChatMessage, ChatPart } from "@inlay/core/chat/types";
import { useChatCommands } from "./command-picker";
import { Composer } from "./composer";
import { ChatHistory } from "./history";
import { Markdown, preloadMarkdown } from "./markdown";
import { ApprovalCard, ConnectionCard, ErrorBanner, Icon, OutputView, PlanCard, QuestionCard, ToolCall, icons, type CardActions } from "./parts";
import { themeStyle, useInlay, type InlayTheme } from "./provider";
import { useInlayChat } from "./use-inlay-chat";
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

export function InlayChat({
  agent,
  chatId,
  permissionMode,
  title,
  subtitle,
  header,
  avatar,
  suggestions = [],
  welcome,
  placeholder = "Message the agent…",
  persist,
  theme,
  className = "",
  style,
  onTurnEnd,
  toolRenderers,
}: InlayChatProps) {
  const config = useInlay();
  const chat = useInlayChat({ agent, chatId, permissionMode, persist, onTurnEnd });
  const { messages, busy, ready, waitingForPerson, thinking, error: failure, send, stop: stopRun, retry, newConversation, actions } = chat;
  const renderers = useMemo(() => ({ ...config.toolRenderers, ...toolRenderers }), [config.toolRenderers, toolRenderers]);
  const commands = useChatCommands(config, agent, ready);

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
  const openPast = chat.openConversation;
  const openConversation = useCallback(
    (past: ChatMessage[]) => {
      pinned.current = true;
      openPast(past);
    },
    [openPast],
  );

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
            <ChatHistory config={config} agent={agent} disabled={busy || !ready} onOpen={openConversation} />
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
        {failure && <ErrorBanner error={failure} onRetry={retry} />}
      </div>
      <div className="ic-sr-only" role="status" aria-live="assertive">
        {waitingForPerson ? "The agent is waiting for your answer." : ""}
      </div>

      <Composer busy={busy} disabled={!ready} placeholder={placeholder} commands={commands} onSend={(text, files) => void send(text, files)} onStop={() => void stopRun()} />
    </div>
  );
}
