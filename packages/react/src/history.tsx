"use client";
// The chat header's History: the member's past conversations with the agent (GET /api/chat/history),
// newest first, each by the person's first message; choosing one loads it (GET /api/chat/conversation)
// so the composer continues it. A disclosure button and a list of buttons: Tab and the arrow keys
// move, Escape closes and returns focus.
import { useCallback, useEffect, useId, useRef, useState } from "react";
import type { ChatHistoryItem } from "@inlay/core/chat/contract";
import type { ChatError, ChatMessage } from "@inlay/core/chat/types";
import type { InlayConfig } from "./provider";

async function getJson<T>(config: InlayConfig, path: string): Promise<{ ok: true; body: T } | { ok: false; error: ChatError }> {
  try {
    const response = await (config.fetch ?? fetch)(`${config.api}/${path}`, {
      credentials: config.credentials ?? "same-origin",
      headers: { ...config.headers?.() },
      cache: "no-store",
    });
    const body = (await response.json().catch(() => null)) as (T & { error?: ChatError }) | null;
    if (response.ok && body) return { ok: true, body };
    return { ok: false, error: body?.error ?? { kind: "unknown", message: `The history could not be read (${response.status}).` } };
  } catch {
    return { ok: false, error: { kind: "connection", message: "The history could not be read. Check your connection." } };
  }
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
const STEPS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 31_536_000],
  ["month", 2_592_000],
  ["week", 604_800],
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
];

/** "5 minutes ago", "yesterday" … */
export function relativeTime(iso: string, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  for (const [unit, size] of STEPS) if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  return relative.format(0, "minute");
}

const statusLabel: Record<string, string> = {
  completed: "Done",
  failed: "Failed",
  cancelled: "Stopped",
  running: "Running",
  awaiting_approval: "Waiting for you",
  paused: "Paused",
};

export function ChatHistory({
  config,
  agent,
  disabled,
  onOpen,
}: {
  config: InlayConfig;
  agent: string;
  disabled?: boolean;
  onOpen: (messages: ChatMessage[]) => void;
}) {
  const [open, setOpen] = useState(false);
  const [items, setItems] = useState<ChatHistoryItem[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [loading, setLoading] = useState<number | undefined>();
  const button = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const panelId = useId();

  const close = useCallback((refocus = true) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  }, []);

  const show = useCallback(async () => {
    setOpen(true);
    setItems(undefined);
    setError(undefined);
    const result = await getJson<{ conversations: ChatHistoryItem[] }>(config, `history?${new URLSearchParams({ agent })}`);
    if (result.ok) setItems(result.body.conversations);
    else setError(result.error.message);
  }, [config, agent]);

  // Focus the first conversation once the list is there.
  useEffect(() => {
    if (open && items) list.current?.querySelector<HTMLButtonElement>("button")?.focus();
  }, [open, items]);

  const choose = async (runId: number) => {
    setLoading(runId);
    setError(undefined);
    const result = await getJson<{ messages: ChatMessage[] }>(config, `conversation?${new URLSearchParams({ agent, runId: String(runId) })}`);
    setLoading(undefined);
    if (!result.ok) return setError(result.error.message);
    onOpen(result.body.messages);
    close();
  };

  return (
    <div
      className="ic-history"
      onKeyDown={(event) => {
        if (!open) return;
        if (event.key === "Escape") {
          event.preventDefault();
          event.stopPropagation();
          close();
        } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
          const buttons = [...(list.current?.querySelectorAll<HTMLButtonElement>("button") ?? [])];
          const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
          const next = buttons[(at + (event.key === "ArrowDown" ? 1 : buttons.length - 1)) % buttons.length];
          if (next) {
            event.preventDefault();
            next.focus();
          }
        }
      }}
      onBlur={(event) => {
        if (open && !event.currentTarget.contains(event.relatedTarget as Node | null)) close(false);
      }}
    >
      <button
        ref={button}
        type="button"
        className="ic-btn"
        aria-expanded={open}
        aria-controls={panelId}
        disabled={disabled}
        onClick={() => (open ? close() : void show())}
      >
        History
      </button>
      {open && (
        <div id={panelId} className="ic-history-panel" role="region" aria-label="Past conversations">
          {error && (
            <div className="ic-history-note" role="alert">
              {error}
            </div>
          )}
          {!items && !error && <div className="ic-history-note">Loading…</div>}
          {items?.length === 0 && <div className="ic-history-note">No past conversations yet.</div>}
          {items && items.length > 0 && (
            <div ref={list} className="ic-history-list" role="list">
              {items.map((item) => (
                <div key={item.runId} role="listitem">
                  <button type="button" className="ic-history-item" aria-busy={loading === item.runId} onClick={() => void choose(item.runId)}>
                    {/* The person's first message; the agent's answer only stands in when there is none, and says so. */}
                    <span className="ic-history-preview">
                      {item.previewFrom === "agent" ? <span className="ic-history-from">Agent: </span> : null}
                      {item.preview?.trim() || "(no text)"}
                    </span>
                    <span className="ic-history-meta">
                      {relativeTime(item.createdAt)} · {statusLabel[item.status] ?? item.status}
                    </span>
                  </button>
                </div>
              ))}
            </div>
          )}
        </div>
      )}
    </div>
  );
}
