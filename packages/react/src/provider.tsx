"use client";
// <InlayProvider>: where the chat's bridge is and how requests are authenticated, plus the theme, for
// every <InlayChat> below it. In a vendor's page: `url` (Inlay's origin) and `session` (a function that
// asks the vendor's backend for a session: session.ts). Inlay's own console needs no props
// (same-origin cookies); its embed page passes `headers` with its in-memory embed token.
import { createContext, useContext, useEffect, useMemo, useRef, useState, type CSSProperties, type ReactNode } from "react";
import { createSessionFetcher, type GetSession } from "./session";
import type { ToolRenderers } from "./tool-renderers";

export interface InlayTheme {
  /** Any CSS colour. */
  accent?: string;
  accentText?: string;
  background?: string;
  surface?: string;
  text?: string;
  muted?: string;
  border?: string;
  danger?: string;
  /** Corner radius, e.g. "12px" or "0.5rem". */
  radius?: string;
  font?: string;
  /** 1 is comfortable (default), 0.8 compact, 1.15 roomy. */
  density?: number;
}

export interface InlayConfig {
  /** The bridge (default "/api/chat"); actions go to `${api}/actions`. */
  api: string;
  /** Extra request headers, read before every request (the embed token lives here). */
  headers?: () => Record<string, string>;
  /** Sends every chat request (the embed page's renews an expired token); the global fetch by default. */
  fetch?: typeof fetch;
  /** "include" when the bridge is on another origin and cookies should go with it. */
  credentials?: RequestCredentials;
  /**
   * Whose conversations the chats below keep in sessionStorage: an opaque id of the signed-in person
   * in their workspace (server/framework/chat/storage-scope.ts). Unset: conversations are not kept in the browser.
   */
  storageScope?: string;
  theme?: InlayTheme;
  /** How tool calls are drawn, by tool name, for every chat below (a chat's own prop wins). */
  toolRenderers?: ToolRenderers;
  /** Hears "turn-end" from every chat below (the quota refreshes on it). */
  turns?: EventTarget;
  /** The first session is on its way: the chats below wait for it (and its storage scope) before they take input. */
  sessionPending?: boolean;
}

const InlayContext = createContext<InlayConfig>({ api: "/api/chat" });

export function useInlay(): InlayConfig {
  return useContext(InlayContext);
}

/**
 * White or near-black, whichever reads better on a hex colour (WCAG relative luminance); undefined for
 * any other CSS colour. A vendor's accent (the embed's `data-accent`) then stays legible whether the
 * default accent text is light or, in dark mode, dark.
 */
export function readableTextOn(colour: string): string | undefined {
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(colour.trim())?.[1];
  if (!hex) return undefined;
  const full = hex.length === 3 ? [...hex].map((digit) => digit + digit).join("") : hex;
  const linear = [0, 2, 4].map((at) => {
    const value = parseInt(full.slice(at, at + 2), 16) / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * linear[0]! + 0.7152 * linear[1]! + 0.0722 * linear[2]!;
  // About where white and #0e0e13 give the same contrast.
  return luminance > 0.19 ? "#0e0e13" : "#ffffff";
}

/** The theme as the CSS variables chat.css reads. */
export function themeStyle(theme: InlayTheme | undefined): CSSProperties {
  if (!theme) return {};
  const vars: Record<string, string | undefined> = {
    "--inlay-chat-accent": theme.accent,
    "--inlay-chat-accent-text": theme.accentText ?? (theme.accent ? readableTextOn(theme.accent) : undefined),
    "--inlay-chat-bg": theme.background,
    "--inlay-chat-surface": theme.surface,
    "--inlay-chat-text": theme.text,
    "--inlay-chat-muted": theme.muted,
    "--inlay-chat-border": theme.border,
    "--inlay-chat-danger": theme.danger,
    "--inlay-chat-radius": theme.radius,
    "--inlay-chat-font": theme.font,
    "--inlay-chat-density": theme.density === undefined ? undefined : String(theme.density),
  };
  return Object.fromEntries(Object.entries(vars).filter(([, value]) => value !== undefined)) as CSSProperties;
}

export interface InlayProviderProps extends Partial<InlayConfig> {
  /** Inlay's origin (e.g. https://inlay.example.com) when it is not this page's: the bridge is `${url}/api/chat`. */
  url?: string;
  /**
   * Asks your backend for a chat session (your route calls @inlay/server's sessions.create for the
   * signed-in user and answers its JSON). Called before the first request and again before each
   * session expires. Without it, requests go with this origin's cookies (Inlay's own pages).
   */
  session?: GetSession;
  children: ReactNode;
}

export function InlayProvider({ url, session, api, headers, fetch, credentials, storageScope, theme, toolRenderers, children }: Omit<InlayProviderProps, "turns" | "sessionPending">) {
  // The latest `session` function is called, so an inline arrow does not start a new session each render.
  const latest = useRef(session);
  useEffect(() => {
    latest.current = session;
  });
  const withSession = session !== undefined;
  // The session's storage scope, once the first session is here: the chats below then keep their
  // conversations, so a reload shows them again and reattaches to a run still going.
  const [first, setFirst] = useState<{ settled: boolean; scope?: string }>({ settled: false });
  const fetcher = useMemo(
    // eslint-disable-next-line react-hooks/refs -- read when a request is sent, never while rendering
    () => (withSession ? createSessionFetcher(() => latest.current!(), fetch, (minted) => setFirst({ settled: true, scope: minted.storage_scope })) : undefined),
    [withSession, fetch],
  );
  useEffect(() => {
    // A session right away (not at the first request), for its storage scope. A failure lets the chat
    // take input anyway: its first request asks again and says what failed.
    fetcher?.start().catch(() => setFirst((current) => ({ ...current, settled: true })));
    return () => fetcher?.close();
  }, [fetcher]);
  const sessionPending = withSession && !first.settled;
  const [turns] = useState(() => new EventTarget());
  const bridge = api ?? `${url?.replace(/\/+$/, "") ?? ""}/api/chat`;
  const value = useMemo(
    () => ({
      api: bridge,
      headers,
      fetch: fetcher?.fetch ?? fetch,
      credentials,
      storageScope: storageScope ?? first.scope,
      theme,
      toolRenderers,
      turns,
      sessionPending,
    }),
    [bridge, headers, fetcher, fetch, credentials, storageScope, first.scope, theme, toolRenderers, turns, sessionPending],
  );
  return <InlayContext.Provider value={value}>{children}</InlayContext.Provider>;
}
