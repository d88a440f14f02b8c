// The chat's requests to the bridge across a rolling restart: an instance that drains answers a new
// turn or a reattachment 503 with `x-inlay-draining` before it starts anything (server/framework/
// lifecycle.ts), so sending it again reaches another instance. The first retry goes at once (after
// FIRST_RETRY_MS): the answer says this instance is going away, not that the service is busy, and the
// load balancer sends the retry elsewhere; later ones wait the answer's Retry-After. Other answers go
// back to the caller as they are.

export const DRAINING_HEADER = "x-inlay-draining";
const MAX_ATTEMPTS = 10;
const FIRST_RETRY_MS = 100;

export function drainingRetryFetch(send: typeof fetch = (input, init) => globalThis.fetch(input, init), wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))): typeof fetch {
  return async (input, init) => {
    for (let attempt = 1; ; attempt++) {
      const response = await send(input, init);
      if (response.status !== 503 || !response.headers.get(DRAINING_HEADER) || attempt >= MAX_ATTEMPTS || init?.signal?.aborted) return response;
      const seconds = Number(response.headers.get("retry-after") ?? "1");
      await response.body?.cancel().catch(() => {});
      await wait(attempt === 1 ? FIRST_RETRY_MS : Math.min(Number.isFinite(seconds) ? seconds : 1, 5) * 1000);
    }
  };
}
