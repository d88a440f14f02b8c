// One HTTP call to the platform, the way every resource method makes it: URL and the end-user scope,
// the key, timeouts and aborts, the spec's retry rules, the Idempotency-Key of run-creating POSTs,
// and the error envelope. Web APIs only (fetch, AbortController, crypto): it runs in browsers and
// edge runtimes as well as Node.
import {
  ConnectionError,
  ConnectionTimeoutError,
  PlatformApiError,
  UserAbortError,
  errorFromResponse,
  parseRetryAfterMs,
} from "./errors";
import { operationName } from "./operation-name";

export interface ClientOptions {
  /** The platform's base URL, ending in /api/v2 (e.g. http://localhost:3000/api/v2). */
  baseUrl: string;
  /** An API key (`sk_inlay_…`). Keys are for server-side use only. */
  apiKey: string;
  /** Retries of a retryable call after 429, 5xx or a connection failure. Default 2. */
  maxRetries?: number;
  /** Per attempt: until the whole answer for JSON calls, until the headers for streams. Default 60 s. */
  timeoutMs?: number;
  /** A fetch to use instead of the global one (tests, proxies, instrumentation). */
  fetch?: typeof fetch;
  /**
   * Told of each call once it is over (retries included; a stream once its headers are in): metrics
   * without the client knowing where they go. What it throws is ignored.
   */
  onCall?: (call: CallReport) => void;
}

export interface CallReport {
  /** Method and path template: `POST /runs/{id}/reply` (operation-name.ts). */
  operation: string;
  /** The platform's final status; "error" when no answer came (a connection failure, a timeout); "aborted" by the caller. */
  status: number | "error" | "aborted";
  seconds: number;
  /** How many attempts it took, when it succeeded. */
  attempts?: number;
}

/** Options every method takes as its last argument. */
export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
  /** Run-creating calls only: the key to send; one is generated (crypto.randomUUID) when omitted. */
  idempotencyKey?: string;
  headers?: Record<string, string>;
}

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One operation of the API, as a resource method describes it. */
export interface Operation {
  method: HttpMethod;
  /** Relative to baseUrl, path parameters already encoded. */
  path: string;
  query?: object;
  /** JSON, or multipart as FormData, sent as it is. */
  body?: object | FormData;
  /**
   * The with-files endpoints' multipart form: `payload` (the JSON, where `userId: "body"` puts user_id)
   * and one `files` field per file. A new FormData is built for every attempt, so a retry sends the
   * same form again (Blobs can be read any number of times).
   */
  form?: { payload: object; files: readonly Blob[] };
  /** Where this operation takes `user_id` (the spec says per endpoint); absent = it takes none. */
  userId?: "query" | "body";
  /** A run-creating POST: always sends an Idempotency-Key, and so may be retried like a GET. */
  createsRun?: boolean;
  /** The answer is a text/event-stream: return once the headers are in, leave the body unread. */
  stream?: boolean;
}

export interface Answer {
  response: Response;
  /** The body as text (JSON calls); undefined for streams. */
  text?: string;
  /** How many attempts the call took (1 = no retry). */
  attempts: number;
  /** The Idempotency-Key sent (run-creating calls). */
  idempotencyKey?: string;
  /** The platform answered with an earlier call's run (Idempotent-Replay: true). */
  replay: boolean;
  /** Stream calls: aborts this connection (the body) only. */
  connection?: AbortController;
}

const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_TIMEOUT_MS = 60_000;
const INITIAL_RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 8_000;
/** A Retry-After longer than this is not waited out in-process; the error goes to the caller. */
const MAX_RETRY_AFTER_MS = 60_000;

/** Where the spec allows retries: GET, PUT, DELETE, and POSTs that create a run (they carry a key). */
function retryableMethod(operation: Operation): boolean {
  return operation.method === "GET" || operation.method === "PUT" || operation.method === "DELETE" || !!operation.createsRun;
}

function retryableAnswer(error: PlatformApiError, operation: Operation): boolean {
  if (error.status === 429 || (error.status !== undefined && error.status >= 500)) return true;
  // Inlay's answer while the first request with this key is still creating its run: it asks for a
  // retry (Retry-After: 1), and the key makes one safe.
  return !!operation.createsRun && error.errorCode === "idempotency_key_in_progress";
}

/** Exponential backoff with jitter (up to a quarter shorter), or the platform's Retry-After. */
export function retryDelayMs(attempt: number, headers?: Headers): number {
  const retryAfter = parseRetryAfterMs(headers);
  if (retryAfter !== undefined && retryAfter <= MAX_RETRY_AFTER_MS) return retryAfter;
  const base = Math.min(INITIAL_RETRY_DELAY_MS * 2 ** attempt, MAX_RETRY_DELAY_MS);
  return base * (1 - Math.random() * 0.25);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new UserAbortError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new UserAbortError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Aborts `controller` when `signal` aborts; returns the unlink. */
function link(signal: AbortSignal | undefined, controller: AbortController): () => void {
  if (!signal) return () => {};
  if (signal.aborted) {
    controller.abort();
    return () => {};
  }
  const onAbort = () => controller.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

function queryString(query: object | undefined): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    params.set(name, String(value));
  }
  return params;
}

export class Transport {
  private readonly fetchImpl: typeof fetch;
  private readonly baseUrl: string;

  constructor(
    readonly options: ClientOptions,
    /** The end-user every call is scoped to (forUser); undefined = the account view. */
    readonly userId?: string,
  ) {
    // Bound late so a test or polyfill that replaces globalThis.fetch is seen.
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
  }

  withUser(userId: string): Transport {
    return new Transport(this.options, userId);
  }

  /** The caller's explicit user_id must agree with the client's scope: a scoped client never leaks. */
  private scoped(explicit: unknown): string | undefined {
    if (this.userId !== undefined && explicit !== undefined && explicit !== this.userId) {
      throw new TypeError(`this client is scoped to user_id ${JSON.stringify(this.userId)}; got ${JSON.stringify(explicit)}`);
    }
    return (explicit as string | undefined) ?? this.userId;
  }

  private url(operation: Operation): string {
    const params = queryString(operation.query);
    if (operation.userId === "query") {
      const userId = this.scoped(params.get("user_id") ?? undefined);
      if (userId !== undefined) params.set("user_id", userId);
    }
    const search = params.toString();
    return `${this.baseUrl}${operation.path}${search ? `?${search}` : ""}`;
  }

  private body(operation: Operation): string | FormData | undefined {
    if (operation.form) {
      const form = new FormData();
      form.append("payload", JSON.stringify(this.bodyWithUser(operation, operation.form.payload)));
      // A File keeps its name; FormData names a plain Blob "blob".
      for (const file of operation.form.files) form.append("files", file);
      return form;
    }
    if (operation.body === undefined) return undefined;
    if (typeof FormData !== "undefined" && operation.body instanceof FormData) return operation.body;
    return JSON.stringify(this.bodyWithUser(operation, operation.body));
  }

  /** A JSON body with the scope's user_id where the operation takes it in the body. */
  private bodyWithUser(operation: Operation, body: object): object {
    if (operation.userId !== "body") return body;
    const userId = this.scoped((body as { user_id?: unknown }).user_id);
    return userId === undefined ? body : { ...body, user_id: userId };
  }

  /** Sends `operation`, retrying where the spec allows; throws a PlatformApiError on failure. */
  async send(operation: Operation, options: RequestOptions = {}): Promise<Answer> {
    const { onCall } = this.options;
    if (!onCall) return this.sendUnobserved(operation, options);
    const started = performance.now();
    const report = (status: CallReport["status"], attempts?: number) => {
      try {
        onCall({ operation: operationName(operation.method, operation.path), status, seconds: (performance.now() - started) / 1000, attempts });
      } catch {
        // The caller's observer must not fail the call.
      }
    };
    try {
      const answer = await this.sendUnobserved(operation, options);
      report(answer.response.status, answer.attempts);
      return answer;
    } catch (error) {
      if (error instanceof PlatformApiError && error.status !== undefined) report(error.status);
      else report(error instanceof UserAbortError ? "aborted" : "error");
      throw error;
    }
  }

  private async sendUnobserved(operation: Operation, options: RequestOptions): Promise<Answer> {
    const url = this.url(operation);
    // Built once here so a scope mismatch throws before any request; forms again per attempt.
    let body = this.body(operation);
    const idempotencyKey = operation.createsRun ? (options.idempotencyKey ?? crypto.randomUUID()) : undefined;
    const headers: Record<string, string> = {
      accept: operation.stream ? "text/event-stream" : "application/json",
      authorization: `Bearer ${this.options.apiKey}`,
      ...(typeof body === "string" ? { "content-type": "application/json" } : {}),
      ...(idempotencyKey !== undefined ? { "idempotency-key": idempotencyKey } : {}),
      ...options.headers,
    };
    if (!this.options.apiKey) delete headers.authorization;
    const maxRetries = options.maxRetries ?? this.options.maxRetries ?? DEFAULT_MAX_RETRIES;
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const retryable = retryableMethod(operation);

    for (let attempt = 0; ; attempt++) {
      if (options.signal?.aborted) throw new UserAbortError();
      const controller = new AbortController();
      const unlink = link(options.signal, controller);
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
      let keepLinked = false;
      if (attempt > 0 && operation.form) body = this.body(operation);
      try {
        const response = await this.fetchImpl(url, { method: operation.method, headers, body, signal: controller.signal });
        const replay = response.headers.get("idempotent-replay") === "true";
        if (!response.ok) {
          const error = errorFromResponse(response.status, response.headers, await response.text());
          if (retryable && attempt < maxRetries && retryableAnswer(error, operation)) {
            await sleep(retryDelayMs(attempt, response.headers), options.signal);
            continue;
          }
          throw error;
        }
        const isStream = operation.stream && (response.headers.get("content-type") ?? "").includes("text/event-stream");
        if (isStream) {
          // The body outlives this function: the caller's signal must still reach it.
          keepLinked = true;
          return { response, attempts: attempt + 1, idempotencyKey, replay, connection: controller };
        }
        const text = response.status === 204 ? "" : await response.text();
        return { response, text, attempts: attempt + 1, idempotencyKey, replay };
      } catch (error) {
        if (error instanceof PlatformApiError) throw error;
        if (options.signal?.aborted) throw new UserAbortError();
        const failure = timedOut ? new ConnectionTimeoutError(timeoutMs) : new ConnectionError({ cause: error });
        if (retryable && attempt < maxRetries) {
          await sleep(retryDelayMs(attempt), options.signal);
          continue;
        }
        throw failure;
      } finally {
        clearTimeout(timer);
        if (!keepLinked) unlink();
      }
    }
  }

  /** A JSON call: the parsed body (undefined for 204). */
  async json<T>(operation: Operation, options?: RequestOptions): Promise<T> {
    const answer = await this.send(operation, options);
    return parseJson<T>(answer);
  }
}

export function parseJson<T>(answer: Answer): T {
  if (!answer.text) return undefined as T;
  try {
    return JSON.parse(answer.text) as T;
  } catch (error) {
    throw new PlatformApiError({
      message: "the platform answered with a body that is not JSON",
      status: answer.response.status,
      requestId: answer.response.headers.get("x-request-id"),
      headers: answer.response.headers,
      cause: error,
    });
  }
}
