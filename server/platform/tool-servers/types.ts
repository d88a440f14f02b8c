// Shapes shared by the kinds of custom tool server (rest_api, mcp_http, mcp_sse, script).

/** A tool a server offers, as the model sees it (before the run namespaces its name). */
export interface RemoteTool {
  name: string;
  description: string;
  /** JSON Schema of the tool's arguments (an object schema). */
  inputSchema: Record<string, unknown>;
}

/** What one call of a server's tool came to. The model reads `error` as a tool error; a run never fails on it. */
export type ToolCallOutcome = { ok: true; result: unknown; truncated?: boolean } | { ok: false; error: string };

/** A server that could not be reached or spoke wrongly; `message` is safe to show the account. */
export class ToolServerError extends Error {
  override name = "ToolServerError";
  constructor(
    readonly reason: "unreachable" | "auth_required" | "protocol" | "invalid_script" | "not_built",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
