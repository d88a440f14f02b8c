// The tools a run gets from custom tool servers: every tool of each approved server of the account
// level and of the run's own end-user, named `srv<server_id>__<tool>` so none can shadow a built-in or
// an app's tool. Calls honour the run's approval mode and the end-user's allow-list like any tool,
// except those of an auto_approve server. A call's failure (the server's error, a missing OAuth grant)
// is the tool's error, which the model reads; it never fails the run.
import { jsonSchema, tool, type ToolSet } from "ai";
import type { Db } from "../repositories/db";
import type { PlatformConfig } from "../platform-config";
import { approvedServersForRun, type ToolServerRow } from "../repositories/tool-servers";
import { openSecret } from "../services/sealed-secrets";
import { callRestTool, mcpEndpointFor } from "../services/tool-servers/tool-server-calls";
import { serverToolName, toolsOf } from "../services/tool-servers/tool-servers";
import { callMcpTool } from "../tool-servers/mcp-client";
import { sandboxScope, type ScriptSandbox } from "../tool-servers/script-sandbox";
import type { ToolCallOutcome } from "../tool-servers/types";

export interface ServerToolContext {
  prisma: Db;
  config: PlatformConfig;
  accountId: number;
  endUserId: number | null;
  scriptSandbox(): ScriptSandbox;
  /** Whether a call of this tool needs a person's approval (approval mode, not on the allow-list). */
  needsApproval(name: string): boolean;
}

type Descriptor = ReturnType<typeof toolsOf>[number];

/** Room a REST error's body gets in the message the model reads. */
const ERROR_BODY_CHARS = 2_000;

/**
 * A failed call reaches the model as the tool's error (a tool-error result, flagged as an error to
 * providers that have the flag), never as the run's end.
 */
function failed(message: string): never {
  throw new Error(message);
}

async function callServerTool(ctx: ServerToolContext, row: ToolServerRow, descriptor: Descriptor, input: Record<string, unknown>) {
  if (row.kind === "rest_api") {
    const outcome = await callRestTool(ctx, row, { name: descriptor.name, method: descriptor.method!, path: descriptor.path! }, input, ctx.endUserId);
    if (!outcome.ok) {
      const body = outcome.body === undefined || outcome.body === null ? "" : typeof outcome.body === "string" ? outcome.body : JSON.stringify(outcome.body);
      return failed(body ? `${outcome.error}: ${body.length > ERROR_BODY_CHARS ? `${body.slice(0, ERROR_BODY_CHARS)}…` : body}` : outcome.error);
    }
    return { status: outcome.status, data: outcome.data, ...(outcome.truncated ? { truncated: true } : {}) };
  }
  let outcome: ToolCallOutcome;
  if (row.kind === "script") {
    const allowedOrigins = [new URL(row.url).origin, ...row.scriptAllowlist];
    const source = openSecret(ctx.config, row.scriptSourceSealed!).value;
    outcome = await ctx.scriptSandbox().call({ source, tool: descriptor.name, args: input, allowedOrigins, scope: sandboxScope(ctx.accountId, ctx.endUserId) });
  } else {
    const endpoint = await mcpEndpointFor(ctx, row, ctx.endUserId);
    if (!endpoint.ok) return failed(endpoint.error);
    outcome = await callMcpTool(endpoint.endpoint, descriptor.name, input);
  }
  if (!outcome.ok) return failed(outcome.error);
  return { data: outcome.result, ...(outcome.truncated ? { truncated: true } : {}) };
}

export async function serverToolSet(ctx: ServerToolContext): Promise<ToolSet> {
  const tools: ToolSet = {};
  for (const row of await approvedServersForRun(ctx.prisma, { accountId: ctx.accountId, endUserId: ctx.endUserId })) {
    for (const descriptor of toolsOf(row)) {
      const name = serverToolName(row.id, descriptor.name);
      tools[name] = tool({
        description: `${row.name}: ${descriptor.description}`,
        // rest_api and script schemas were checked when written; an MCP server's are as it listed them.
        inputSchema: jsonSchema<Record<string, unknown>>(descriptor.inputSchema as Parameters<typeof jsonSchema>[0]),
        needsApproval: row.autoApprove ? false : ctx.needsApproval(name),
        execute: (input) => callServerTool(ctx, row, descriptor, input ?? {}),
      });
    }
  }
  return tools;
}
