// One call of an app's tool: the tool's definition says the method and path, the model's input
// fills the path's placeholders and the rest goes to the query string or a JSON body, and the
// connection's authorization headers go with it. Every call leaves through guardedFetch (timeouts,
// size cap, no private addresses unless loopback is allowed for tests).
import { guardedFetch, OutboundError, type OutboundResponse } from "../outbound/guarded-fetch";
import type { AppToolDefinition } from "./definition";

export interface AppRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export class AppToolInputError extends Error {
  override name = "AppToolInputError";
}

const BODYLESS = new Set(["GET", "DELETE"]);

const queryValue = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/** The HTTP request a tool call makes, without credentials. Throws AppToolInputError for a missing path value. */
export function buildAppRequest(baseUrl: string, tool: AppToolDefinition, input: Record<string, unknown>): AppRequest {
  const rest: Record<string, unknown> = { ...input };
  const path = tool.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
    const value = rest[name];
    if (value === undefined || value === null || value === "") throw new AppToolInputError(`${name}: is required`);
    // A dot segment, even encoded, would move the request up the app's API path.
    if (/^(\.|%2e){1,2}$/i.test(String(value))) throw new AppToolInputError(`${name}: is not a valid path value`);
    delete rest[name];
    return encodeURIComponent(String(value));
  });
  const url = new URL(baseUrl.replace(/\/+$/, "") + path);
  const inQuery = new Set(tool.query ?? []);
  const bodyless = BODYLESS.has(tool.method);
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(rest)) {
    if (value === undefined) continue;
    if (bodyless || inQuery.has(name)) url.searchParams.set(name, queryValue(value));
    else body[name] = value;
  }
  // Some APIs (the code host's) refuse requests without a User-Agent.
  const headers: Record<string, string> = { accept: "application/json", "user-agent": "inlay-platform" };
  if (bodyless) return { method: tool.method, url: url.toString(), headers };
  headers["content-type"] = "application/json";
  return { method: tool.method, url: url.toString(), headers, body: JSON.stringify(body) };
}

export interface AppCallResult {
  status: number;
  /** The response's JSON when it is JSON, else its text; cut at the size cap. */
  body: unknown;
  truncated: boolean;
}

const parseBody = (response: OutboundResponse): unknown => {
  const type = response.headers["content-type"] ?? "";
  if (!response.truncated && /json/i.test(type)) {
    try {
      return JSON.parse(response.body) as unknown;
    } catch {
      return response.body;
    }
  }
  return response.body;
};

export interface AppCallOptions {
  allowLoopback: boolean;
  timeoutMs?: number;
  maxResponseBytes?: number;
}

/** Sends the request with the connection's headers. Outbound refusals (blocked address, timeout) throw OutboundError. */
export async function sendAppRequest(request: AppRequest, authorization: Record<string, string>, options: AppCallOptions): Promise<AppCallResult> {
  const response = await guardedFetch(
    request.url,
    { method: request.method, headers: { ...request.headers, ...authorization }, ...(request.body !== undefined ? { body: request.body } : {}) },
    {
      allowLoopback: options.allowLoopback,
      allowHttp: options.allowLoopback,
      timeoutMs: options.timeoutMs ?? 20_000,
      maxResponseBytes: options.maxResponseBytes ?? 256 * 1024,
    },
  );
  return { status: response.status, body: parseBody(response), truncated: response.truncated };
}

export { OutboundError };
