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
   * in their workspace (server/framework/chat/storage-scope.ts). Unset: conversations are not kept in the browser.
   */
  storageScope?: string;
  theme?: InlayTheme;
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
