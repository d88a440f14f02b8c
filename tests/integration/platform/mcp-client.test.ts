// The remote MCP client (server/platform/tool-servers/mcp-client.ts) against a real MCP server on
// loopback (tests/helpers/mcp-server.ts), over streamable HTTP and the legacy HTTP+SSE transport. Only
// 127.0.0.0/8 is ever connected to: other names resolve through a fake resolver.
import { createServer } from "node:http";
import type { AddressInfo, LookupFunction } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { closeOutboundAgents, type OutboundOptions } from "@/server/platform/outbound/guarded-fetch";
import { callMcpTool, closeMcpClients, listMcpTools, mcpLimits, type McpEndpoint } from "@/server/platform/tool-servers/mcp-client";
import { ToolServerError } from "@/server/platform/tool-servers/types";
import { MCP_TOOL_NAMES, startMcpServer, type McpTestServer } from "../../helpers/mcp-server";

const records: Record<string, string> = { "internal.example.test": "10.0.0.5", "mcp.example.test": "127.0.0.1" };
const fakeLookup: LookupFunction = (hostname, options, callback) => {
  const address = records[hostname];
  if (!address) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), "");
  if (options.all) return callback(null, [{ address, family: 4 }]);
  callback(null, address, 4);
};
const dev: OutboundOptions = { allowLoopback: true, allowHttp: true, lookup: fakeLookup };

let mcp: McpTestServer;
const http = (overrides: Partial<McpEndpoint> = {}): McpEndpoint => ({ url: mcp.url, kind: "mcp_http", headers: {}, outbound: dev, ...overrides });
const sse = (overrides: Partial<McpEndpoint> = {}): McpEndpoint => ({ url: mcp.sseUrl, kind: "mcp_sse", headers: {}, outbound: dev, ...overrides });

async function failure(promise: Promise<unknown>): Promise<ToolServerError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolServerError) return error;
    throw error;
  }
  throw new Error("expected a ToolServerError");
}

beforeAll(async () => {
  mcp = await startMcpServer();
});

afterEach(async () => {
  await closeMcpClients();
  mcp.protect(null);
  mcp.requests.length = 0;
});

afterAll(async () => {
  await closeMcpClients();
  await mcp.close();
  await closeOutboundAgents();
});

describe.each([
  ["mcp_http", http],
  ["mcp_sse", sse],
] as const)("%s", (_kind, endpoint) => {
  it("lists the server's tools with their descriptions and object input schemas", async () => {
    const tools = await listMcpTools(endpoint());
    expect(tools.map((tool) => tool.name).sort()).toEqual([...MCP_TOOL_NAMES].sort());
    const echo = tools.find((tool) => tool.name === "echo")!;
    expect(echo.description).toBe("Echoes the text back.");
    expect(echo.inputSchema).toMatchObject({ type: "object", properties: { text: { type: "string" } }, required: ["text"] });
    // A tool without arguments still has an object schema.
    expect(tools.find((tool) => tool.name === "fail")!.inputSchema).toMatchObject({ type: "object" });
  });

  it("calls tools: text joined, structuredContent preferred, isError an outcome", async () => {
    const before = { echo: mcp.calls.echo ?? 0, add: mcp.calls.add ?? 0, fail: mcp.calls.fail ?? 0 };
    expect(await callMcpTool(endpoint(), "echo", { text: "hello" })).toEqual({ ok: true, result: "hello" });
    expect(await callMcpTool(endpoint(), "add", { a: 2, b: 3 })).toEqual({ ok: true, result: { sum: 5 } });
    expect(await callMcpTool(endpoint(), "fail", {})).toEqual({ ok: false, error: "the tool failed on purpose" });
    expect(mcp.calls).toMatchObject({ echo: before.echo + 1, add: before.add + 1, fail: before.fail + 1 });
  });
});

describe("tool calls", () => {
  it("cuts a result past the cap and marks it truncated", async () => {
    const outcome = await callMcpTool(http(), "big", { kb: 200 });
    expect(outcome).toMatchObject({ ok: true, truncated: true });
    expect((outcome as { result: string }).result).toBe("x".repeat(mcpLimits.maxResultBytes));
  });

  it("keeps text and drops the bytes of binary parts", async () => {
    expect(await callMcpTool(http(), "picture", {})).toEqual({
      ok: true,
      result: [
        { type: "text", text: "a red dot" },
        { type: "image", mimeType: "image/png", omitted: "binary content" },
      ],
    });
  });

  it("answers an unknown tool and bad arguments as outcomes, not throws", async () => {
    const unknown = await callMcpTool(http(), "nope", {});
    expect(unknown.ok).toBe(false);
    expect((unknown as { error: string }).error).toMatch(/nope/);
    const bad = await callMcpTool(http(), "add", { a: "two" });
    expect(bad.ok).toBe(false);
  });

  it("sends the static headers of the server's auth type", async () => {
    await callMcpTool(http({ headers: { "X-Api-Key": "key-0123" } }), "echo", { text: "x" });
    const posts = mcp.requests.filter((request) => request.method === "POST");
    expect(posts.length).toBeGreaterThan(0);
    for (const post of posts) expect(post.headers["x-api-key"]).toBe("key-0123");
  });

  it("keeps one session for successive calls and ends it when clients are closed", async () => {
    const sessionsBefore = mcp.sessionCount();
    for (let i = 0; i < 3; i++) expect(await callMcpTool(http(), "echo", { text: `call ${i}` })).toEqual({ ok: true, result: `call ${i}` });
    const initializes = mcp.requests.filter((request) => request.method === "POST" && !request.headers["mcp-session-id"]);
    // The client probes for the newest protocol, then initializes: both before the first call only.
    expect(initializes.length).toBeLessThanOrEqual(2);
    expect(mcp.sessionCount()).toBe(sessionsBefore + 1);
    await closeMcpClients();
    expect(mcp.requests.some((request) => request.method === "DELETE")).toBe(true);
    expect(mcp.sessionCount()).toBe(sessionsBefore);
  });

  it("starts a new session when the server forgot the kept one", async () => {
    expect(await callMcpTool(http(), "echo", { text: "one" })).toEqual({ ok: true, result: "one" });
    // The server restarts its sessions (as after a deploy): the kept client's session id is now unknown.
    await mcp.dropSessions();
    expect(await callMcpTool(http(), "echo", { text: "two" })).toEqual({ ok: true, result: "two" });
  });
});

describe("failures", () => {
  it("an unreachable server: listMcpTools throws unreachable, callMcpTool answers an error outcome", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/mcp`;
    await new Promise((resolve) => closed.close(resolve));

    const error = await failure(listMcpTools(http({ url })));
    expect(error.reason).toBe("unreachable");
    expect(error.message).toBe("Could not reach 127.0.0.1: ECONNREFUSED.");
    expect(await callMcpTool(http({ url }), "echo", { text: "x" })).toEqual({ ok: false, error: "Could not reach 127.0.0.1: ECONNREFUSED." });
  });

  it("a URL that is not an MCP endpoint is a protocol error", async () => {
    const error = await failure(listMcpTools(http({ url: `${mcp.baseUrl}/not-mcp` })));
    expect(error.reason).toBe("protocol");
    expect(error.message).toBe("127.0.0.1 answered HTTP 404.");
  });

  it("the guard refuses loopback without allowLoopback and a name resolving to a private address; nothing reaches the server", async () => {
    const loopback = await failure(listMcpTools(http({ outbound: { allowHttp: true } })));
    expect(loopback).toMatchObject({ reason: "unreachable", message: "127.0.0.1 is a loopback address" });
    const privateName = await failure(listMcpTools(http({ url: "http://internal.example.test/mcp" })));
    expect(privateName).toMatchObject({ reason: "unreachable", message: "internal.example.test resolves to 10.0.0.5, a private address" });
    expect(await callMcpTool(sse({ url: "http://internal.example.test/sse" }), "echo", { text: "x" })).toEqual({
      ok: false,
      error: "internal.example.test resolves to 10.0.0.5, a private address",
    });
    const plainHttp = await failure(listMcpTools(http({ outbound: { allowLoopback: true } })));
    expect(plainHttp.message).toBe("http URLs are not allowed; use https.");
    expect(mcp.requests).toEqual([]);
  });

  it("connects by name through the resolver when its address is allowed", async () => {
    const port = new URL(mcp.url).port;
    const tools = await listMcpTools(http({ url: `http://mcp.example.test:${port}/mcp` }));
    expect(tools.length).toBe(MCP_TOOL_NAMES.length);
  });
});

describe("a server asking for authorization", () => {
  it("a 401 is auth_required for listMcpTools and an error outcome for callMcpTool; the right bearer gets through", async () => {
    mcp.protect({ authorizationServer: "http://127.0.0.1:1", verify: (token) => token === "good-token" });
    for (const endpoint of [http, sse]) {
      const error = await failure(listMcpTools(endpoint()));
      expect(error.reason).toBe("auth_required");
      expect(error.message).toBe("127.0.0.1 asks for authorization (HTTP 401): connect the server again.");
      const outcome = await callMcpTool(endpoint({ accessToken: "wrong-token" }), "echo", { text: "x" });
      expect(outcome).toEqual({ ok: false, error: "127.0.0.1 asks for authorization (HTTP 401): connect the server again." });
      expect((await listMcpTools(endpoint({ accessToken: "good-token" }))).length).toBe(MCP_TOOL_NAMES.length);
      expect(await callMcpTool(endpoint({ accessToken: "good-token" }), "echo", { text: "in" })).toEqual({ ok: true, result: "in" });
    }
    const unauthorized = mcp.requests.filter((request) => request.headers.authorization !== "Bearer good-token");
    expect(unauthorized.length).toBeGreaterThan(0);
  });
});
