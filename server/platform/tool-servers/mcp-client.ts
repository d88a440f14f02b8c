// Remote MCP servers (mcp_http: streamable HTTP; mcp_sse: the older HTTP+SSE transport), through
// @ai-sdk/mcp, every request through the outbound guard. INTERFACE STUB: the MCP helper builds it.
import type { OutboundOptions } from "../outbound/guarded-fetch";
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

/** The server's tools. Throws ToolServerError (auth_required on a 401 asking for OAuth). */
export async function listMcpTools(_endpoint: McpEndpoint): Promise<RemoteTool[]> {
  throw new ToolServerError("not_built", "remote MCP servers are not built yet");
}

/** Calls one tool; a tool's own error (isError) and a transport failure are both an outcome, not a throw. */
export async function callMcpTool(_endpoint: McpEndpoint, _tool: string, _args: Record<string, unknown>): Promise<ToolCallOutcome> {
  return { ok: false, error: "remote MCP servers are not built yet" };
}
