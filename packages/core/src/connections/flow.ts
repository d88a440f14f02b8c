// The browser side of connecting an app: where the flow may send the person back to, and the message
// the callback page posts to the window that opened it. Pure and isomorphic (console, chat, server);
// no zod, since the embed widget's bundle imports it.

/** Where the console's Connections page lives: the default place to come back to. */
export const CONNECTIONS_PATH = "/connections";

/** The callback page posts this to window.opener (target origin: the app's own). */
export const CONNECTION_MESSAGE_TYPE = "inlay:connection";

/**
 * connected: the callback completed it (the browser's session is the member who started). authorized:
 * the app granted access, and the window that opened the popup completes it with its own credentials
 * (the embed's token), `connectionId` naming it. error: `message` says why.
 */
export interface ConnectionMessage {
  type: typeof CONNECTION_MESSAGE_TYPE;
  app: string;
  status: "connected" | "authorized" | "error";
  connectionId?: string;
  message?: string;
}

const PLACEHOLDER_ORIGIN = "http://return-to.invalid";

/**
 * A same-origin path to come back to, or `fallback`. Only "/x…" paths are kept: "//host", "/\host",
 * schemes, control characters and anything that resolves to another origin are refused, so the
 * callback can never be used as an open redirect.
 */
export function safeReturnTo(value: unknown, fallback = CONNECTIONS_PATH): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 2_000) return fallback;
  if (!value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return fallback;
  // Browsers drop tabs and newlines inside URLs ("/\t/evil.com" is "//evil.com") and read "\" as "/".
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return fallback;
  let url: URL;
  try {
    url = new URL(value, PLACEHOLDER_ORIGIN);
  } catch {
    return fallback;
  }
  if (url.origin !== PLACEHOLDER_ORIGIN) return fallback;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** The return path with the outcome on it, for the redirect fallback (no opener to post to). */
export function returnUrlWithOutcome(returnTo: string, outcome: { app: string; status: "connected" | "error" }): string {
  const url = new URL(safeReturnTo(returnTo), PLACEHOLDER_ORIGIN);
  url.searchParams.set("connected", outcome.app);
  url.searchParams.set("connection_status", outcome.status);
  return `${url.pathname}${url.search}${url.hash}`;
}

/** Whether a window message is a connection outcome from our own origin. */
export function connectionMessageFrom(event: { origin: string; data: unknown }, ownOrigin: string): ConnectionMessage | undefined {
  if (event.origin !== ownOrigin) return undefined;
  const data = event.data as Partial<ConnectionMessage> | null;
  if (typeof data !== "object" || data === null || data.type !== CONNECTION_MESSAGE_TYPE || typeof data.app !== "string") return undefined;
  if (data.status !== "connected" && data.status !== "authorized" && data.status !== "error") return undefined;
  if (data.status === "authorized" && typeof data.connectionId !== "string") return undefined;
  return {
    type: data.type,
    app: data.app,
    status: data.status,
    ...(typeof data.connectionId === "string" ? { connectionId: data.connectionId } : {}),
    ...(typeof data.message === "string" ? { message: data.message } : {}),
  };
}
