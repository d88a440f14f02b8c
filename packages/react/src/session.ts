// A chat session minted by the vendor's backend (@inlay/server's sessions.create), held in memory in
// the page: every request to Inlay carries its token and the page's origin; a new one is asked for
// shortly before it expires, and once more when Inlay answers that it expired anyway (a laptop that
// slept past the timer). Nothing is stored: a reload asks the vendor's backend again.
import { EMBED_TOKEN_HEADER_NAME, renewingFetch } from "@inlay/core/chat/renewing-fetch";

/** What the vendor's session route answers (POST /api/embed/sessions's body, passed on as it is). */
export interface InlaySessionToken {
  token: string;
  /** ISO 8601. */
  expires_at: string;
  /** Whose conversations this browser keeps: with it, a reload shows the conversation again and reattaches. */
  storage_scope?: string;
}

export type GetSession = () => Promise<InlaySessionToken>;

/** Seconds before expiry to ask for a new token. */
const REFRESH_MARGIN_S = 60;

export interface SessionFetcher {
  /** fetch with the session's token and origin (waits for the first token). */
  fetch: typeof fetch;
  /** Asks for the first session now (not at the first request), e.g. to learn its storage scope; undoes close(). */
  start(): Promise<InlaySessionToken>;
  /** Stops the refresh timer. */
  close(): void;
}

export function createSessionFetcher(
  getSession: GetSession,
  base: typeof fetch = (input, init) => globalThis.fetch(input, init),
  /** Hears each new session. */
  onSession?: (session: InlaySessionToken) => void,
): SessionFetcher {
  let current: InlaySessionToken | undefined;
  let pending: Promise<InlaySessionToken> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  const renew = (): Promise<InlaySessionToken> =>
    (pending ??= getSession()
      .then((session) => {
        if (typeof session?.token !== "string" || Number.isNaN(Date.parse(session.expires_at))) {
          throw new Error("the session route answered no {token, expires_at}");
        }
        current = session;
        onSession?.(session);
        clearTimeout(timer);
        const wait = Math.max(5, (Date.parse(session.expires_at) - Date.now()) / 1000 - REFRESH_MARGIN_S) * 1000;
        if (!closed) timer = setTimeout(() => void renew().catch(() => {}), wait);
        return session;
      })
      .finally(() => {
        pending = undefined;
      }));

  const withToken = async (input: RequestInfo | URL, init?: RequestInit) => {
    const session = current && Date.parse(current.expires_at) > Date.now() ? current : await renew();
    const headers = new Headers(init?.headers);
    headers.set(EMBED_TOKEN_HEADER_NAME, session.token);
    headers.set("x-inlay-embed-origin", globalThis.location?.origin ?? "");
    return base(input, { ...init, headers, credentials: "omit" });
  };
  return {
    start() {
      // Open again after a close (React's development mode runs an effect's cleanup, then the effect).
      closed = false;
      return current ? Promise.resolve(current) : renew();
    },
    fetch: renewingFetch({
      token: () => current?.token ?? "",
      renew: async () => {
        current = undefined;
        await renew();
      },
      fetch: withToken,
    }),
    close() {
      closed = true;
      clearTimeout(timer);
    },
  };
}
