// Remote MCP servers (mcp_http: streamable HTTP; mcp_sse: the older HTTP+SSE transport), through
// @ai-sdk/mcp, every request through the outbound guard (guardedStreamingFetch). Connected clients are
// kept a minute per (url, kind, credentials, outbound rules) so a run's successive calls share one MCP
// session; a client that failed is dropped, never reused.
import { createHash } from "node:crypto";
import type * as McpSdk from "@ai-sdk/mcp";
import type { MCPClient, MCPClientError } from "@ai-sdk/mcp";
import { bareHost } from "../outbound/address-guard";
import { checkOutboundUrl, guardedStreamingFetch, OutboundError, type OutboundOptions } from "../outbound/guarded-fetch";
import { ToolServerError, type RemoteTool, type ToolCallOutcome } from "./types";

export interface McpEndpoint {
  url: string;
  kind: "mcp_http" | "mcp_sse";
  /** Static headers from the server's auth type (bearer, header API key, basic). */
  headers: Record<string, string>;
  /** The end-user's OAuth access token, when the server uses OAuth (sent as a bearer). */
  accessToken?: string;
  outbound: OutboundOptions;
}

export const mcpLimits = {
  /** One MCP request (initialize, tools/list, tools/call) when outbound.timeoutMs does not say. */
  requestTimeoutMs: 30_000,
  /** A tool result's JSON kept for the model; the rest is cut and the outcome marked truncated. */
  maxResultBytes: 64 * 1024,
  /** One HTTP response body (a tools/list of a large server fits) when outbound.maxResponseBytes does not say. */
  maxResponseBytes: 4 * 1024 * 1024,
  /** Pages of tools/list followed. */
  maxToolPages: 20,
  /** An idle connected client is closed after this. */
  idleCloseMs: 60_000,
  /** Connected clients kept at most; the idle ones go first. */
  maxClients: 64,
} as const;

/** The server's tools. Throws ToolServerError (auth_required on a 401 asking for OAuth). */
export async function listMcpTools(endpoint: McpEndpoint): Promise<RemoteTool[]> {
  return withClient(endpoint, async (client, timeout) => {
    const tools: RemoteTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < mcpLimits.maxToolPages; page++) {
      const listed = await client.listTools({ params: cursor ? { cursor } : undefined, options: { timeout } });
      for (const tool of listed.tools) {
        if (typeof tool.name !== "string" || tool.name === "") continue;
        tools.push({ name: tool.name, description: tool.description ?? tool.title ?? "", inputSchema: objectSchemaOf(tool.inputSchema) });
      }
      cursor = listed.nextCursor;
      if (!cursor) break;
    }
    return tools;
  });
}

/** Calls one tool; a tool's own error (isError) and a transport failure are both an outcome, not a throw. */
export async function callMcpTool(endpoint: McpEndpoint, tool: string, args: Record<string, unknown>): Promise<ToolCallOutcome> {
  try {
    return await withClient(endpoint, async (client, timeout) => outcomeOf(await client.callTool({ name: tool, arguments: args, options: { timeout } })));
  } catch (error) {
    if (error instanceof ToolServerError) return { ok: false, error: error.message };
    throw error;
  }
}

/** Closes every kept client (tests, shutdown). */
export async function closeMcpClients(): Promise<void> {
  const all = [...clients.entries()];
  clients.clear();
  await Promise.all(all.map(([, entry]) => closeEntry(entry)));
}

// ---------------------------------------------------------------------------------------------------
// Connected clients

interface Entry {
  client: Promise<MCPClient>;
  users: number;
  idle?: NodeJS.Timeout;
  /** Set by the fetch when the server answered 401, so a JSON-RPC error body cannot hide the status. */
  unauthorized: boolean;
}

const clients = new Map<string, Entry>();
const resolverIds = new WeakMap<object, number>();
let resolverCount = 0;

function keyOf(endpoint: McpEndpoint): string {
  const { lookup, ...rules } = endpoint.outbound;
  let resolver = 0;
  if (lookup) {
    if (!resolverIds.has(lookup)) resolverIds.set(lookup, ++resolverCount);
    resolver = resolverIds.get(lookup)!;
  }
  const headers = Object.entries(endpoint.headers)
    .map(([name, value]) => [name.toLowerCase(), value])
    .sort(([a], [b]) => a!.localeCompare(b!));
  // Hashed, so the map holds no credential in plain text.
  return createHash("sha256")
    .update(JSON.stringify([endpoint.url, endpoint.kind, headers, endpoint.accessToken ?? null, rules, resolver]))
    .digest("hex");
}

// @ai-sdk/mcp is loaded at the first connection: a process that never calls a tool server does not hold it.
let mcpSdk: typeof McpSdk | undefined;

/** An MCPClientError. None exists before the SDK is loaded, since only a client it made can throw one. */
const isMcpClientError = (error: unknown): error is MCPClientError => mcpSdk?.MCPClientError.isInstance(error) ?? false;

async function connect(endpoint: McpEndpoint, entry: Entry): Promise<MCPClient> {
  const { createMCPClient } = (mcpSdk ??= await import("@ai-sdk/mcp"));
  const headers: Record<string, string> = { ...endpoint.headers };
  if (endpoint.accessToken) {
    for (const name of Object.keys(headers)) if (name.toLowerCase() === "authorization") delete headers[name];
    headers.Authorization = `Bearer ${endpoint.accessToken}`;
  }
  const guarded = guardedStreamingFetch({
    ...endpoint.outbound,
    timeoutMs: endpoint.outbound.timeoutMs ?? mcpLimits.requestTimeoutMs,
    maxResponseBytes: endpoint.outbound.maxResponseBytes ?? mcpLimits.maxResponseBytes,
  });
  const fetcher = (async (input: string | URL | Request, init?: RequestInit) => {
    const response = await guarded(input, init);
    if (response.status === 401) entry.unauthorized = true;
    return response;
  }) as typeof fetch;
  return createMCPClient({
    transport: { type: endpoint.kind === "mcp_http" ? "http" : "sse", url: endpoint.url, headers, fetch: fetcher, redirect: "error" },
    clientName: "inlay",
    initializationOptions: { timeout: timeoutOf(endpoint) },
    // A background stream's failure (a dropped SSE connection) shows on the next request instead.
    onUncaughtError: () => {},
  });
}

const timeoutOf = (endpoint: McpEndpoint) => endpoint.outbound.timeoutMs ?? mcpLimits.requestTimeoutMs;

async function withClient<T>(endpoint: McpEndpoint, work: (client: MCPClient, timeout: number) => Promise<T>, retried = false): Promise<T> {
  let parsed: URL;
  try {
    parsed = checkOutboundUrl(endpoint.url, endpoint.outbound);
  } catch (error) {
    throw toToolServerError(error, endpoint.url, false);
  }
  const key = keyOf(endpoint);
  let entry = clients.get(key);
  const reused = entry !== undefined;
  if (!entry) {
    const fresh: Entry = { client: Promise.resolve(undefined as unknown as MCPClient), users: 0, unauthorized: false };
    fresh.client = connect(endpoint, fresh);
    entry = fresh;
    clients.set(key, entry);
    trimClients();
  }
  entry.users++;
  clearTimeout(entry.idle);
  entry.unauthorized = false;
  try {
    return await work(await entry.client, timeoutOf(endpoint));
  } catch (error) {
    // A JSON-RPC error means the session works; anything else and the client is not trusted again.
    const sessionWorks = isMcpClientError(error) && error.code !== undefined && !entry.unauthorized;
    if (!sessionWorks) drop(key, entry);
    if (reused && !retried && isStale(error)) return withClient(endpoint, work, true);
    throw toToolServerError(error, parsed.hostname, entry.unauthorized);
  } finally {
    entry.users--;
    if (entry.users === 0 && clients.get(key) === entry) {
      entry.idle = setTimeout(() => drop(key, entry), mcpLimits.idleCloseMs);
      entry.idle.unref();
    }
  }
}

// A kept client whose session ended on the server's side, or whose connection went away, failed before
// the server ran anything: a fresh client may try once more.
function isStale(error: unknown): boolean {
  if (isMcpClientError(error)) {
    if (error.statusCode === 404) return true;
    if (/^(Connection closed|Attempted to send a request from a closed client|MCP SSE Transport Error: Not connected)/.test(error.message)) return true;
  }
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if ((e as { code?: unknown }).code === "UND_ERR_SOCKET") return true;
  }
  return false;
}

function drop(key: string, entry: Entry): void {
  if (clients.get(key) === entry) clients.delete(key);
  clearTimeout(entry.idle);
  void closeEntry(entry);
}

async function closeEntry(entry: Entry): Promise<void> {
  clearTimeout(entry.idle);
  try {
    await (await entry.client).close();
  } catch {
    // It never connected, or the server is gone: nothing to close.
  }
}

function trimClients(): void {
  for (const [key, entry] of clients) {
    if (clients.size <= mcpLimits.maxClients) return;
    if (entry.users === 0) drop(key, entry);
  }
}

// ---------------------------------------------------------------------------------------------------
// Results and errors

function toToolServerError(error: unknown, host: string, unauthorized: boolean): ToolServerError {
  if (error instanceof ToolServerError) return error;
  const name = bareHost(host);
  if (unauthorized) return new ToolServerError("auth_required", `${name} asks for authorization (HTTP 401): connect the server again.`, { cause: error });
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e instanceof OutboundError) return new ToolServerError("unreachable", e.message, { cause: error });
  }
  if (isMcpClientError(error)) {
    if (error.statusCode === 401) return new ToolServerError("auth_required", `${name} asks for authorization (HTTP 401): connect the server again.`, { cause: error });
    // The server's body is not repeated: it may echo anything.
    if (error.statusCode !== undefined) return new ToolServerError("protocol", `${name} answered HTTP ${error.statusCode}.`, { cause: error });
    if (error.code !== undefined) return new ToolServerError("protocol", `${name} answered MCP error ${error.code}: ${clip(error.message, 300)}`, { cause: error });
    return new ToolServerError("protocol", `${name}: ${clip(error.message.replace(/^MCP (HTTP|SSE) Transport Error: /, ""), 300)}`, { cause: error });
  }
  if (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError")) {
    return new ToolServerError("unreachable", `${name} did not answer in time.`, { cause: error });
  }
  // Schema failures and the like: the server answered something that is not MCP.
  return new ToolServerError("protocol", `${name} did not answer as an MCP server.`, { cause: error });
}

/** The server's input schema, as an object schema (MCP requires one; a missing type is read as object). */
function objectSchemaOf(schema: unknown): Record<string, unknown> {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return { type: "object", properties: {} };
  const record = schema as Record<string, unknown>;
  return record.type === undefined ? { ...record, type: "object" } : record;
}

type ContentPart = { type: string; text?: unknown; mimeType?: unknown; data?: unknown; resource?: unknown; [key: string]: unknown };

function outcomeOf(result: Record<string, unknown>): ToolCallOutcome {
  if ("toolResult" in result) return capped(result.toolResult);
  const content = (Array.isArray(result.content) ? result.content : []) as ContentPart[];
  const text = content
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text as string)
    .join("\n");
  if (result.isError === true) return { ok: false, error: clip(text || "the tool reported an error", 4_000) };
  if (result.structuredContent !== undefined) return capped(result.structuredContent);
  if (content.every((part) => part.type === "text")) return capped(text);
  return capped(content.map(withoutBinary));
}

// Base64 images, audio and blobs mean nothing to the model as text and would crowd out the rest.
function withoutBinary(part: ContentPart): unknown {
  if (part.type === "image" || part.type === "audio") return { type: part.type, mimeType: part.mimeType, omitted: "binary content" };
  if (part.type === "resource" && part.resource && typeof part.resource === "object" && "blob" in part.resource) {
    const { blob: _blob, ...rest } = part.resource as Record<string, unknown>;
    return { ...part, resource: { ...rest, omitted: "binary content" } };
  }
  return part;
}

function capped(value: unknown): ToolCallOutcome {
  const json = JSON.stringify(value ?? null);
  if (Buffer.byteLength(json) <= mcpLimits.maxResultBytes) return { ok: true, result: value ?? null };
  // A long string stays a string; anything else becomes its JSON, cut.
  return { ok: true, result: cutUtf8(typeof value === "string" ? value : json, mcpLimits.maxResultBytes), truncated: true };
}

function cutUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  // Dropping a partial trailing character: decoding would turn it into U+FFFD.
  return bytes.subarray(0, maxBytes).toString("utf8").replace(/\uFFFD$/, "");
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)}…`);
