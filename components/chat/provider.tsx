"use client";
// <InlayProvider>: where the chat's bridge is and how requests are authenticated, plus the theme, for
// every <InlayChat> below it. A signed-in console page needs no props (same-origin cookies); the
// embed page passes `headers` that return its in-memory embed token.
import { createContext, useContext, useMemo, type CSSProperties, type ReactNode } from "react";

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
   * in their workspace (server/chat/storage-scope.ts). Unset: conversations are not kept in the browser.
   */
  storageScope?: string;
  theme?: InlayTheme;
}

const InlayContext = createContext<InlayConfig>({ api: "/api/chat" });

export function useInlay(): InlayConfig {
  return useContext(InlayContext);
}

/** The theme as the CSS variables chat.css reads. */
export function themeStyle(theme: InlayTheme | undefined): CSSProperties {
  if (!theme) return {};
  const vars: Record<string, string | undefined> = {
    "--inlay-chat-accent": theme.accent,
    "--inlay-chat-accent-text": theme.accentText,
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

export function InlayProvider({
  api = "/api/chat",
  headers,
  fetch,
  credentials,
  storageScope,
  theme,
  children,
}: Partial<InlayConfig> & { children: ReactNode }) {
  const value = useMemo(
    () => ({ api, headers, fetch, credentials, storageScope, theme }),
    [api, headers, fetch, credentials, storageScope, theme],
  );
  return <InlayContext.Provider value={value}>{children}</InlayContext.Provider>;
}
