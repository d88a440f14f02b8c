// fetch wrappers that put a fault between the platform client and a real platform: a throttling
// answer, a connection that drops after the server got the request, a stream cut after N frames.
// Each records what went through it.

export interface Recorded {
  method: string;
  url: URL;
  headers: Headers;
  /** ms since the wrapper was made */
  at: number;
}

export interface FaultyFetch {
  fetch: typeof fetch;
  calls: Recorded[];
}

type Fault = (input: Request, real: () => Promise<Response>, call: Recorded, index: number) => Promise<Response>;

export function faultyFetch(fault: Fault): FaultyFetch {
  const calls: Recorded[] = [];
  const started = performance.now();
  const wrapped: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const call: Recorded = {
      method: request.method,
      url: new URL(request.url),
      headers: new Headers(request.headers),
      at: performance.now() - started,
    };
    calls.push(call);
    // Each attempt may read its body once; clone before handing it on.
    return fault(request, () => fetch(request.clone()), call, calls.length - 1);
  };
  return { fetch: wrapped, calls };
}

/** The body of an error envelope the way the platform writes it. */
export function envelope(status: number, type: string, message: string, headers: Record<string, string> = {}) {
  return new Response(
    JSON.stringify({ error: { type, message, code: status, request_id: "req_injected", doc_url: "http://127.0.0.1/docs" } }),
    { status, headers: { "content-type": "application/json", "x-request-id": "req_injected", ...headers } },
  );
}

/** A connection failure the way fetch reports one (undici: TypeError "fetch failed"). */
export const connectionFailure = () => new TypeError("fetch failed", { cause: new Error("socket hang up") });

/**
 * The response with its body cut after `frames` complete SSE frames: the stream errors the way a
 * dropped connection does, and the rest of the real body is discarded.
 */
export function cutAfterFrames(response: Response, frames: number): Response {
  const body = response.body;
  if (!body) return response;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending = "";
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      // Cut on the pull after the last frame, so the frames before the cut reach the reader first
      // (erroring a stream drops whatever is still queued in it).
      if (sent >= frames) {
        await reader.cancel().catch(() => {});
        controller.error(new TypeError("terminated", { cause: new Error("other side closed") }));
        return;
      }
      const { value, done } = await reader.read();
      if (done) return controller.close();
      pending += decoder.decode(value, { stream: true });
      let boundary: number;
      while ((boundary = pending.indexOf("\n\n")) !== -1) {
        const block = pending.slice(0, boundary + 2);
        pending = pending.slice(boundary + 2);
        // Comments (keep-alive) are not frames.
        if (block.split("\n").some((line) => line.startsWith("data:"))) sent++;
        controller.enqueue(encoder.encode(block));
        if (sent >= frames) return;
      }
    },
    cancel: () => reader.cancel(),
  });
  return new Response(stream, { status: response.status, headers: response.headers });
}
