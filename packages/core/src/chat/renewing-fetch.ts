// The embed iframe's fetch: a chat request refused because its embed token expired (401, kind
// token_expired: a laptop that slept past the refresh timer) gets a new token from the host page and
// is sent once more with it. Any other answer, and the second one, goes back to the caller as is.

/** The header the embed token rides in (server/framework/chat/framework-context.ts reads it). */
export const EMBED_TOKEN_HEADER_NAME = "x-inlay-embed-token";

export function renewingFetch(options: {
  /** The current token, read after a renewal. */
  token: () => string;
  /** Gets a new token (resolves once it is in place); rejects when none came. */
  renew: () => Promise<void>;
  fetch?: typeof fetch;
}): typeof fetch {
  const send = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  return async (input, init) => {
    const response = await send(input, init);
    if (response.status !== 401) return response;
    const body = (await response
      .clone()
      .json()
      .catch(() => null)) as { error?: { kind?: unknown } } | null;
    if (body?.error?.kind !== "token_expired") return response;
    try {
      await options.renew();
    } catch {
      return response;
    }
    const headers = new Headers(init?.headers);
    headers.set(EMBED_TOKEN_HEADER_NAME, options.token());
    return send(input, { ...init, headers });
  };
}
