// Every HTTP request the platform makes to a URL a user gave it goes through guardedFetch. The address
// is judged where the socket is opened, on the addresses actually dialled, so neither a DNS answer
// (rebinding included) nor a redirect can steer a request into our own network.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { type LookupFunction } from "node:net";
import type * as Undici from "undici";
import type { Agent, buildConnector, Dispatcher } from "undici";
import { outboundRefusals } from "../observability/metrics";
import { inSpan, SpanKind } from "../observability/tracing";
import { bareHost, classifyAddress, isIpLiteral } from "./address-guard";

export type OutboundErrorReason =
  | "blocked_address"
  | "invalid_url"
  | "scheme_not_allowed"
  | "timeout"
  | "connection_failed"
  | "too_many_redirects"
  | "response_too_large"
  /** A user-supplied URL names a port the platform does not call (outbound/user-url.ts). */
  | "port_not_allowed";

/** Reasons that are the guard's refusal, not the network's failure. */
const REFUSALS = new Set<OutboundErrorReason>(["blocked_address", "invalid_url", "scheme_not_allowed", "too_many_redirects", "response_too_large", "port_not_allowed"]);

/** A refused or failed outbound request. `message` names the host and the reason and is safe to show users. */
export class OutboundError extends Error {
  override name = "OutboundError";
  readonly reason: OutboundErrorReason;

  constructor(reason: OutboundErrorReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
    // Every refusal is built here, in the one guard: counted once, whichever caller meets it.
    if (REFUSALS.has(reason)) outboundRefusals.inc({ reason });
  }
}

export interface OutboundOptions {
  /** Development and tests only: admits 127.0.0.0/8 and ::1, and nothing else that is not public. */
  allowLoopback?: boolean;
  /** Admits plain http:// URLs; otherwise only https://. */
  allowHttp?: boolean;
  /** Budget for the whole exchange: connect, redirects and reading the body. */
  timeoutMs?: number;
  /** Body bytes kept; the rest is dropped and the response marked truncated. */
  maxResponseBytes?: number;
  /** 0 returns a 3xx as the response; above 0, each hop is checked like the first URL. */
  maxRedirects?: number;
  /** Tests only: a resolver in place of dns.lookup, so they need no real DNS. */
  lookup?: LookupFunction;
}

export interface OutboundRequest {
  method: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  /** UTF-8, cut at maxResponseBytes when `truncated`. */
  body: string;
  truncated: boolean;
  durationMs: number;
}

export const outboundDefaults = { timeoutMs: 15_000, maxResponseBytes: 64 * 1024, maxRedirects: 0 } as const;

const blocked = (host: string, address: string, why: string) =>
  new OutboundError("blocked_address", host === address ? `${address} is ${why}` : `${host} resolves to ${address}, ${why}`);

/**
 * Checks a URL without connecting (e.g. when a user registers it): the scheme, and the address when
 * the host is an IP literal. DNS names are judged at connect time, when their addresses are known.
 */
export function checkOutboundUrl(url: string, options: Pick<OutboundOptions, "allowHttp" | "allowLoopback"> = {}): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OutboundError("invalid_url", "The URL is not valid.");
  }
  if (parsed.protocol !== "https:" && !(options.allowHttp && parsed.protocol === "http:")) {
    const allowed = options.allowHttp ? "http or https" : "https";
    throw new OutboundError("scheme_not_allowed", `${parsed.protocol.replace(/:$/, "")} URLs are not allowed; use ${allowed}.`);
  }
  // The URL parser has already turned 2130706433, 0x7f000001 and 0177.0.0.1 into 127.0.0.1.
  if (isIpLiteral(parsed.hostname)) {
    const verdict = classifyAddress(parsed.hostname, options);
    if (!verdict.allowed) throw blocked(verdict.address, verdict.address, verdict.why);
  }
  return parsed;
}

// Resolves every address and refuses the connection if any one is not allowed: a name with one public
// and one private address could otherwise be dialled on the private one.
function guardedLookup(resolve: LookupFunction, allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, result, family) => {
      if (err) return callback(err, "");
      const addresses: LookupAddress[] = typeof result === "string" ? [{ address: result, family: family ?? 4 }] : result;
      if (addresses.length === 0) {
        return callback(Object.assign(new Error(`${hostname} has no addresses`), { code: "ENOTFOUND" }), "");
      }
      for (const { address } of addresses) {
        const verdict = classifyAddress(address, { allowLoopback });
        if (!verdict.allowed) return callback(blocked(hostname, verdict.address, verdict.why), "");
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

// undici is loaded at the first outbound request: a process that sends none does not hold it.
let undiciModule: Promise<typeof Undici> | undefined;
const loadUndici = () => (undiciModule ??= import("undici"));

function guardedConnector(undici: typeof Undici, resolve: LookupFunction, allowLoopback: boolean): buildConnector.connector {
  const connect = undici.buildConnector({ lookup: guardedLookup(resolve, allowLoopback) });
  return (options, callback) => {
    // net.connect never calls lookup for an IP literal, so literals are judged here.
    if (isIpLiteral(options.hostname)) {
      const verdict = classifyAddress(options.hostname, { allowLoopback });
      if (!verdict.allowed) return callback(blocked(verdict.address, verdict.address, verdict.why), null);
    }
    connect(options, callback);
  };
}

// One Agent per (resolver, allowLoopback), so keep-alive connections are shared but never across rules.
const agents = new Map<LookupFunction, Map<boolean, Agent>>();

function agentFor(undici: typeof Undici, options: OutboundOptions): Agent {
  const resolve = options.lookup ?? (dnsLookup as LookupFunction);
  const allowLoopback = options.allowLoopback ?? false;
  let byLoopback = agents.get(resolve);
  if (!byLoopback) agents.set(resolve, (byLoopback = new Map()));
  let agent = byLoopback.get(allowLoopback);
  if (!agent) byLoopback.set(allowLoopback, (agent = new undici.Agent({ connect: guardedConnector(undici, resolve, allowLoopback) })));
  return agent;
}

/** Closes the cached Agents (tests, shutdown). Requests in flight finish first, within their timeout. */
export async function closeOutboundAgents(): Promise<void> {
  const all = [...agents.values()].flatMap((byLoopback) => [...byLoopback.values()]);
  agents.clear();
  await Promise.all(all.map((agent) => agent.close()));
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);
// Credentials meant for one origin must not travel to another (the fetch standard drops these too).
const originBoundHeaders = new Set(["authorization", "cookie", "proxy-authorization"]);
const bodyHeaders = new Set(["content-type", "content-length", "content-encoding", "content-language", "content-location"]);

export async function guardedFetch(url: string, init: OutboundRequest, options: OutboundOptions = {}): Promise<OutboundResponse> {
  const timeoutMs = options.timeoutMs ?? outboundDefaults.timeoutMs;
  const maxResponseBytes = options.maxResponseBytes ?? outboundDefaults.maxResponseBytes;
  const started = performance.now();
  let target = checkOutboundUrl(url, options);

  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  try {
    const sent = await dispatch(target, init, options, { signal: deadline.signal, redirect: "follow" }, (hop) => (target = hop));
    const { text, truncated } = await readCapped(sent.response.body, maxResponseBytes);
    return {
      status: sent.response.statusCode,
      headers: flattenHeaders(sent.response.headers),
      body: text,
      truncated,
      durationMs: Math.round(performance.now() - started),
    };
  } catch (err) {
    throw toOutboundError(err, target, deadline.signal.aborted, timeoutMs);
  } finally {
    clearTimeout(timer);
  }
}

type Dispatch = {
  signal: AbortSignal;
  redirect: "follow" | "manual" | "error";
  headersTimeout?: number;
  bodyTimeout?: number;
};

/**
 * Sends one request through the guarded Agent, following up to maxRedirects hops (each checked like
 * the first URL) unless `redirect` says otherwise. Returns the final response with its body unread.
 * While tracing is on, a client span covers it up to the response's headers; it names the host, never
 * the URL (a path or query may carry a token).
 */
function dispatch(first: URL, init: OutboundRequest, options: OutboundOptions, how: Dispatch, onHop: (target: URL) => void) {
  const method = init.method.toUpperCase();
  return inSpan(
    method,
    { kind: SpanKind.CLIENT, attributes: { "http.request.method": method, "server.address": bareHost(first.hostname), "url.scheme": first.protocol.slice(0, -1) } },
    async (span) => {
      const sent = await dispatchHops(first, init, options, how, onHop);
      span?.setAttribute("http.response.status_code", sent.response.statusCode);
      return sent;
    },
  );
}

async function dispatchHops(
  first: URL,
  init: OutboundRequest,
  options: OutboundOptions,
  how: Dispatch,
  onHop: (target: URL) => void,
): Promise<{ response: Dispatcher.ResponseData; target: URL }> {
  const maxRedirects = how.redirect === "follow" ? (options.maxRedirects ?? outboundDefaults.maxRedirects) : 0;
  let target = first;
  let method = init.method.toUpperCase();
  let headers = { ...init.headers };
  let body = init.body;
  const undici = await loadUndici();
  for (let redirects = 0; ; redirects++) {
    const response = await undici.request(target, {
      method: method as Dispatcher.HttpMethod,
      headers,
      body,
      dispatcher: agentFor(undici, options),
      signal: how.signal,
      ...(how.headersTimeout !== undefined ? { headersTimeout: how.headersTimeout } : {}),
      ...(how.bodyTimeout !== undefined ? { bodyTimeout: how.bodyTimeout } : {}),
    });
    const location = headerValue(response.headers.location);
    const isRedirect = redirectStatuses.has(response.statusCode) && location !== undefined;
    if (isRedirect && how.redirect === "error") {
      await response.body.dump();
      throw new OutboundError("too_many_redirects", `${target.hostname} redirected, and this request follows no redirects.`);
    }
    if (!isRedirect || maxRedirects === 0) return { response, target };
    await response.body.dump();
    if (redirects >= maxRedirects) {
      throw new OutboundError("too_many_redirects", `${target.hostname} redirected more than ${maxRedirects} times.`);
    }
    let next: URL;
    try {
      next = new URL(location, target);
    } catch {
      throw new OutboundError("invalid_url", `${target.hostname} redirected to an invalid URL.`);
    }
    next = checkOutboundUrl(next.href, options);
    // As fetch does: 303, and 301/302 after a POST, continue as a GET without the body.
    if (response.statusCode === 303 ? method !== "HEAD" : (response.statusCode === 301 || response.statusCode === 302) && method === "POST") {
      method = "GET";
      body = undefined;
      headers = withoutHeaders(headers, bodyHeaders);
    }
    if (next.origin !== target.origin) headers = withoutHeaders(headers, originBoundHeaders);
    target = next;
    onHop(target);
  }
}

/** What guardedStreamingFetch adds to the outbound options. */
export interface StreamingOutboundOptions extends OutboundOptions {
  /** Longest silence while a body is read (an event stream's included); default 5 minutes. */
  idleTimeoutMs?: number;
  /** Cap of an event stream's bytes; default 16 MB. (maxResponseBytes caps every other body.) */
  maxStreamBytes?: number;
}

export const streamingDefaults = { idleTimeoutMs: 300_000, maxStreamBytes: 16 * 1024 * 1024 } as const;

// Statuses whose Response must have a null body.
const nullBodyStatuses = new Set([101, 103, 204, 205, 304]);

/**
 * A WHATWG fetch through the same guarded Agent, for libraries that take a fetch (MCP transports,
 * OAuth clients) and may read a response as a stream. `timeoutMs` bounds connecting and the response
 * headers, and reading the whole body unless it is an event stream (text/event-stream), which may stay
 * open as long as it is never silent for `idleTimeoutMs`. A body past its cap fails with
 * response_too_large rather than being cut, since a library would misread a cut body. Redirects follow
 * `maxRedirects` (0: the 3xx is the response); `redirect: "error"` refuses any.
 */
export function guardedStreamingFetch(options: StreamingOutboundOptions = {}): typeof fetch {
  const timeoutMs = options.timeoutMs ?? outboundDefaults.timeoutMs;
  const idleTimeoutMs = options.idleTimeoutMs ?? streamingDefaults.idleTimeoutMs;
  const fetcher = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const call = await fetchCallOf(input, init);
    let target = checkOutboundUrl(call.url, options);
    const caller = call.signal;
    if (caller?.aborted) throw abortReasonOf(caller);

    const controller = new AbortController();
    const onCallerAbort = () => controller.abort(abortReasonOf(caller!));
    caller?.addEventListener("abort", onCallerAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const settle = () => {
      clearTimeout(timer);
      caller?.removeEventListener("abort", onCallerAbort);
    };
    const failure = (err: unknown) => {
      if (caller?.aborted) return abortReasonOf(caller);
      const code = (err as { code?: unknown } | null)?.code;
      if (code === "UND_ERR_BODY_TIMEOUT") return new OutboundError("timeout", `${bareHost(target.hostname)} was silent for ${idleTimeoutMs} ms.`, { cause: err });
      return toOutboundError(err, target, timedOut, timeoutMs);
    };

    try {
      const { response } = await dispatch(
        target,
        call,
        options,
        { signal: controller.signal, redirect: call.redirect, headersTimeout: timeoutMs, bodyTimeout: idleTimeoutMs },
        (hop) => (target = hop),
      );
      const headers = new Headers();
      for (const [name, value] of Object.entries(response.headers)) {
        for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
      }
      const status = response.statusCode;
      if (status < 200 || status > 599) {
        await response.body.dump();
        throw new OutboundError("connection_failed", `${bareHost(target.hostname)} answered with status ${status}.`);
      }
      let body: ReadableStream<Uint8Array> | null = null;
      if (nullBodyStatuses.has(status) || call.method.toUpperCase() === "HEAD") {
        await response.body.dump();
        settle();
      } else {
        const isEventStream = (headers.get("content-type") ?? "").toLowerCase().startsWith("text/event-stream");
        // An event stream outlives the exchange's budget; the idle timeout and the caller's signal end it.
        if (isEventStream) clearTimeout(timer);
        const cap = isEventStream ? (options.maxStreamBytes ?? streamingDefaults.maxStreamBytes) : (options.maxResponseBytes ?? outboundDefaults.maxResponseBytes);
        body = cappedWebStream(response.body, cap, bareHost(target.hostname), settle, failure);
      }
      const answer = new Response(body, { status, headers });
      Object.defineProperty(answer, "url", { value: target.href });
      return answer;
    } catch (err) {
      settle();
      throw failure(err);
    }
  };
  return fetcher as typeof fetch;
}

interface FetchCall extends OutboundRequest {
  url: string;
  signal?: AbortSignal;
  redirect: "follow" | "manual" | "error";
}

async function fetchCallOf(input: string | URL | Request, init: RequestInit | undefined): Promise<FetchCall> {
  const request = input instanceof Request ? input : undefined;
  const headers = new Headers(request?.headers);
  new Headers(init?.headers).forEach((value, name) => headers.set(name, value));
  let body: string | Uint8Array | undefined;
  const given = init?.body ?? (request?.body ? request.body : undefined);
  if (typeof given === "string" || given instanceof Uint8Array) body = given;
  else if (given !== undefined && given !== null) {
    // Any other BodyInit (form data, blobs, streams, buffers) serialized the way fetch would.
    const serialized = new Response(given);
    const type = serialized.headers.get("content-type");
    if (type && !headers.has("content-type")) headers.set("content-type", type);
    body = new Uint8Array(await serialized.arrayBuffer());
  }
  const record: Record<string, string> = {};
  headers.forEach((value, name) => (record[name] = value));
  return {
    url: request ? request.url : input instanceof URL ? input.href : String(input),
    method: init?.method ?? request?.method ?? "GET",
    headers: record,
    body,
    signal: init?.signal ?? request?.signal ?? undefined,
    redirect: init?.redirect ?? request?.redirect ?? "follow",
  };
}

const abortReasonOf = (signal: AbortSignal): unknown => signal.reason ?? new DOMException("This operation was aborted", "AbortError");

function cappedWebStream(
  body: Dispatcher.ResponseData["body"],
  cap: number,
  host: string,
  settle: () => void,
  failure: (err: unknown) => unknown,
): ReadableStream<Uint8Array> {
  const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let size = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) {
          settle();
          controller.close();
          return;
        }
        size += next.value.length;
        if (size > cap) {
          body.destroy();
          settle();
          controller.error(new OutboundError("response_too_large", `${host} sent more than ${cap} bytes.`));
          return;
        }
        controller.enqueue(new Uint8Array(next.value.buffer, next.value.byteOffset, next.value.length));
      } catch (err) {
        settle();
        controller.error(failure(err));
      }
    },
    cancel() {
      body.destroy();
      settle();
    },
  });
}

async function readCapped(body: AsyncIterable<Buffer>, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of body) {
    const room = maxBytes - size;
    if (chunk.length > room) {
      // Leaving the loop destroys the stream: nothing past the cap is read or buffered.
      chunks.push(chunk.subarray(0, room));
      truncated = true;
      break;
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { text: Buffer.concat(chunks).toString("utf8"), truncated };
}

function toOutboundError(err: unknown, target: URL, timedOut: boolean, timeoutMs: number): OutboundError {
  // The connector's refusal may arrive as the cause of an undici error.
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof OutboundError) return e;
  }
  const host = bareHost(target.hostname);
  if (timedOut) return new OutboundError("timeout", `${host} did not answer within ${timeoutMs} ms.`, { cause: err });
  const code = (err as { code?: unknown } | null)?.code;
  const detail = code === "ENOTFOUND" || code === "EAI_AGAIN" ? "the name does not resolve" : typeof code === "string" ? code : "the connection failed";
  return new OutboundError("connection_failed", `Could not reach ${host}: ${detail}.`, { cause: err });
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return flat;
}

function withoutHeaders(headers: Record<string, string>, drop: Set<string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !drop.has(name.toLowerCase())));
}
