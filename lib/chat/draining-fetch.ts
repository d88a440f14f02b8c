// The chat's requests to the bridge across a rolling restart: an instance that drains answers a new
// turn or a reattachment 503 with `x-inlay-draining` before it starts anything (server/framework/
// lifecycle.ts), so sending it again after its Retry-After reaches another instance. Other answers
// go back to the caller as they are.

export const DRAINING_HEADER = "x-inlay-draining";
const MAX_ATTEMPTS = 10;

export function drainingRetryFetch(send: typeof fetch = (input, init) => globalThis.fetch(input, init), wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))): typeof fetch {
  return async (input, init) => {
    for (let attempt = 1; ; attempt++) {
      const response = await send(input, init);
      if (response.status !== 503 || !response.headers.get(DRAINING_HEADER) || attempt >= MAX_ATTEMPTS || init?.signal?.aborted) return response;
      const seconds = Number(response.headers.get("retry-after") ?? "1");
      await response.body?.cancel().catch(() => {});
      await wait(Math.min(Number.isFinite(seconds) ? seconds : 1, 5) * 1000);
    }
  };
}
