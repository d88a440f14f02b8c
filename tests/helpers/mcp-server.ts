// A real MCP server on loopback, for tests of remote MCP tool servers: the SDK's McpServer behind its
// web-standard streamable HTTP transport on Hono (/mcp, with sessions), and behind the legacy HTTP+SSE
// transport (/sse and /messages; SSEServerTransport speaks node:http, so those two paths bypass Hono).
// Optionally protected by bearer tokens the way the MCP authorization spec asks: a 401 with
// WWW-Authenticate pointing at RFC 9728 protected-resource metadata that names the authorization server.
// It counts tool calls and records every HTTP request so tests can assert what reached it.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import { z } from "zod";

export interface McpRequestSeen {
  method: string;
  /** Path and query. */
  path: string;
  /** Lower-cased names. */
  headers: Record<string, string>;
}

export interface McpBearerAuth {
  /** The issuer of the authorization server the protected-resource metadata names. */
  authorizationServer: string;
  /** Whether a bearer token is good (e.g. the tests' OAuth server's validAccessToken). */
  verify(token: string): Promise<boolean> | boolean;
  scopes?: string[];
}

export interface McpTestServer {
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  /** The streamable HTTP endpoint (mcp_http). */
  url: string;
  /** The legacy HTTP+SSE endpoint (mcp_sse). */
  sseUrl: string;
  /** Where a 401 from /mcp points (RFC 9728, the path-inserted form). */
  resourceMetadataUrl: string;
  /** The resource its metadata names (RFC 8707 indicator): the origin. */
  resource: string;
  /** Tool calls that ran, by tool name. */
  calls: Record<string, number>;
  /** Every HTTP request, in order. */
  requests: McpRequestSeen[];
  /** Open streamable HTTP sessions. */
  sessionCount(): number;
  /** The ids of the open streamable HTTP sessions. */
  sessionIds(): string[];
  /** Forgets every streamable HTTP session, as a restarted server would. */
  dropSessions(): Promise<void>;
  /** Turns bearer protection on (or off with null). */
  protect(auth: McpBearerAuth | null): void;
  close(): Promise<void>;
}

export const MCP_TOOL_NAMES = ["echo", "add", "fail", "big", "picture"] as const;

export async function startMcpServer(options: { auth?: McpBearerAuth } = {}): Promise<McpTestServer> {
  const calls: Record<string, number> = {};
  const requests: McpRequestSeen[] = [];
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const sseSessions = new Map<string, SSEServerTransport>();
  let auth = options.auth ?? null;
  let baseUrl = "";

  const counted = (name: string) => {
    calls[name] = (calls[name] ?? 0) + 1;
  };

  function buildServer(): McpServer {
    const server = new McpServer({ name: "inlay-test-mcp", version: "1.0.0" });
    server.registerTool("echo", { description: "Echoes the text back.", inputSchema: { text: z.string() } }, ({ text }) => {
      counted("echo");
      return { content: [{ type: "text", text }] };
    });
    server.registerTool(
      "add",
      { description: "Adds two numbers.", inputSchema: { a: z.number(), b: z.number() }, outputSchema: { sum: z.number() } },
      ({ a, b }) => {
        counted("add");
        return { content: [{ type: "text", text: String(a + b) }], structuredContent: { sum: a + b } };
      },
    );
    server.registerTool("fail", { description: "Always fails (isError)." }, () => {
      counted("fail");
      return { isError: true, content: [{ type: "text", text: "the tool failed on purpose" }] };
    });
    server.registerTool("big", { description: "Returns `kb` kilobytes of text.", inputSchema: { kb: z.number().int().min(1).max(4096) } }, ({ kb }) => {
      counted("big");
      return { content: [{ type: "text", text: "x".repeat(kb * 1024) }] };
    });
    server.registerTool("picture", { description: "A caption and a 1x1 PNG." }, () => {
      counted("picture");
      return {
        content: [
          { type: "text", text: "a red dot" },
          { type: "image", mimeType: "image/png", data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==" },
        ],
      };
    });
    return server;
  }

  const resourcePath = "/mcp";
  const metadataPath = `/.well-known/oauth-protected-resource${resourcePath}`;
  // The resource is the server's origin, so one set of tokens serves /mcp and the legacy /sse alike.
  const metadata = () => ({
    resource: baseUrl,
    authorization_servers: [auth!.authorizationServer],
    scopes_supported: auth!.scopes ?? [],
    bearer_methods_supported: ["header"],
  });
  const challenge = (path: string) =>
    `Bearer resource_metadata="${baseUrl}${path === resourcePath ? metadataPath : "/.well-known/oauth-protected-resource"}"${auth?.scopes?.length ? `, scope="${auth.scopes.join(" ")}"` : ""}`;

  /** null when the request may pass; else the 401 to answer. */
  async function refusal(authorization: string | undefined, path: string): Promise<{ status: 401; headers: Record<string, string>; body: string } | null> {
    if (!auth) return null;
    const token = authorization?.match(/^Bearer (.+)$/i)?.[1];
    if (token && (await auth.verify(token))) return null;
    return {
      status: 401,
      headers: { "www-authenticate": challenge(path), "content-type": "application/json" },
      body: JSON.stringify({ error: "invalid_token", error_description: "a valid bearer token is required" }),
    };
  }

  const app = new Hono();
  for (const path of ["", resourcePath, "/sse"]) app.get(`/.well-known/oauth-protected-resource${path}`, (c) => (auth ? c.json(metadata()) : c.notFound()));
  app.all(resourcePath, async (c) => {
    const refused = await refusal(c.req.header("authorization"), resourcePath);
    if (refused) return c.body(refused.body, refused.status, refused.headers);
    const sessionId = c.req.header("mcp-session-id");
    if (sessionId) {
      const transport = sessions.get(sessionId);
      if (!transport) return c.json({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }, 404);
      return transport.handleRequest(c.req.raw);
    }
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    await buildServer().connect(transport);
    const response = await transport.handleRequest(c.req.raw);
    // Anything but an initialize (a newer client's probe, say) got its answer and left no session.
    if (!transport.sessionId) await transport.close();
    return response;
  });
  const viaHono = getRequestListener(app.fetch);

  async function legacy(req: IncomingMessage, res: ServerResponse, path: string) {
    const refused = await refusal(req.headers.authorization, path);
    if (refused) return void res.writeHead(refused.status, refused.headers).end(refused.body);
    if (req.method === "GET" && path === "/sse") {
      const transport = new SSEServerTransport("/messages", res);
      sseSessions.set(transport.sessionId, transport);
      res.on("close", () => sseSessions.delete(transport.sessionId));
      await buildServer().connect(transport);
      return;
    }
    if (req.method === "POST" && path === "/messages") {
      const id = new URL(req.url ?? "/", baseUrl).searchParams.get("sessionId") ?? "";
      const transport = sseSessions.get(id);
      if (!transport) return void res.writeHead(404).end("unknown session");
      await transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(405).end();
  }

  const server: Server = createServer((req, res) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
    requests.push({ method: req.method ?? "", path: req.url ?? "/", headers });
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/sse" || path === "/messages") {
      legacy(req, res, path).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(error));
      });
      return;
    }
    void viaHono(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    baseUrl,
    url: `${baseUrl}${resourcePath}`,
    sseUrl: `${baseUrl}/sse`,
    resourceMetadataUrl: `${baseUrl}${metadataPath}`,
    resource: baseUrl,
    calls,
    requests,
    sessionCount: () => sessions.size,
    sessionIds: () => [...sessions.keys()],
    async dropSessions() {
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.all(all.map((transport) => transport.close()));
    },
    protect(next) {
      auth = next;
    },
    async close() {
      await Promise.all([...sessions.values(), ...sseSessions.values()].map((transport) => transport.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
