// The tools a run gets from apps: every tool of each app the run may use, named `<app>__<tool>`
// so none can shadow a built-in. A run may use an app when the end-user connected it (and the
// connection is granted to the run's agent), or when the agent's or the run's `tools` name the app
// or one of its tools. Calling a tool of an app with no usable connection pauses the run for a
// person to connect it (a permission request of kind connection); once a connection completes in
// the scope the run goes on by itself (services/app-run-pauses.ts), and a declined request fails the
// call cleanly.
import { jsonSchema, tool, type ToolSet } from "ai";
import type { PrismaClient } from "@/server/generated/prisma/client";
import { logger } from "@/lib/logger";
import { AppToolInputError, buildAppRequest, OutboundError, sendAppRequest } from "../apps/app-http";
import { appCatalogOf } from "../apps/catalog";
import type { AppDefinition, AppToolDefinition } from "../apps/definition";
import type { PlatformConfig } from "../context";
import { authorizationFor, connectionsForRun, refreshAfterUnauthorized } from "../services/app-credentials";

const SEPARATOR = "__";

export const appToolName = (app: string, toolName: string) => `${app}${SEPARATOR}${toolName}`;

/** The app and tool a run's tool name stands for, or null for a name that is not an app tool. */
export function parseAppToolName(name: string): { app: string; tool: string } | null {
  const at = name.indexOf(SEPARATOR);
  if (at <= 0) return null;
  return { app: name.slice(0, at), tool: name.slice(at + SEPARATOR.length) };
}

export interface AppToolContext {
  prisma: PrismaClient;
  config: PlatformConfig;
  accountId: number;
  endUserId: number | null;
  agentId: number;
  /** The agent's and the run's `tools`: app slugs or app tool names among them bring those apps in. */
  named: readonly string[];
  /** A person can answer while the run waits: a call with no connection pauses (else it fails). */
  interactive: boolean;
  /** Whether a call of this tool needs a person's approval besides a connection (approval mode). */
  needsApproval(name: string): boolean;
}

/** Why a call paused for a connection, by the call's id: the executor turns it into the request. */
export interface ConnectionNeeded {
  app: string;
  appName: string;
  status: "missing" | "expired";
}

export interface AppTools {
  tools: ToolSet;
  /** Filled while the run streams: the calls whose approval stands for "connect the app first". */
  connectionNeeded: Map<string, ConnectionNeeded>;
}

/** The apps a run may use: connected ones granted to its agent, and those its tools name. */
async function appsForRun(ctx: AppToolContext): Promise<AppDefinition[]> {
  const catalog = appCatalogOf(ctx.config);
  const slugs = new Set<string>();
  for (const name of ctx.named) {
    const slug = parseAppToolName(name)?.app ?? name;
    if (catalog.get(slug)) slugs.add(slug);
  }
  const connections = await connectionsForRun(ctx, { accountId: ctx.accountId, endUserId: ctx.endUserId }, ctx.agentId);
  for (const connection of connections) slugs.add(connection.app);
  return [...slugs].flatMap((slug) => {
    const app = catalog.get(slug);
    return app && catalog.configured(slug) ? [app] : [];
  });
}

/** The connection a call uses: the newest active one of the app granted to the agent. */
async function currentConnection(ctx: AppToolContext, app: string) {
  const rows = await connectionsForRun(ctx, { accountId: ctx.accountId, endUserId: ctx.endUserId }, ctx.agentId);
  const ofApp = rows.filter((row) => row.app === app);
  return { active: ofApp.find((row) => row.status === "active"), expired: ofApp.some((row) => row.status === "expired") };
}

const bearerOf = (headers: Record<string, string>) => {
  const value = Object.entries(headers).find(([name]) => name.toLowerCase() === "authorization")?.[1] ?? "";
  return value.replace(/^Bearer\s+/i, "");
};

async function callTool(ctx: AppToolContext, app: AppDefinition, definition: AppToolDefinition, input: Record<string, unknown>) {
  const { active } = await currentConnection(ctx, app.slug);
  if (!active) return { error: `${app.name} is not connected for this person; ask them to connect it.` };
  const credentials = { prisma: ctx.prisma, config: ctx.config };
  let auth = await authorizationFor(credentials, active.id);
  if (!auth.ok) return { error: `${app.name} connection is ${auth.status}: ${auth.message}` };
  const options = { allowLoopback: ctx.config.outboundAllowLoopback === true };
  try {
    const request = buildAppRequest(auth.baseUrl, definition, input);
    let result = await sendAppRequest(request, auth.headers, options);
    if (result.status === 401) {
      // The app refused the token before its expiry (revoked, rotated): refresh once and try again.
      auth = await refreshAfterUnauthorized(credentials, active.id, bearerOf(auth.headers));
      if (!auth.ok) return { error: `${app.name} connection is ${auth.status}: ${auth.message}` };
      result = await sendAppRequest(request, auth.headers, options);
    }
    if (result.status >= 400) return { error: `${app.name} answered HTTP ${result.status}`, status: result.status, body: result.body };
    return { status: result.status, data: result.body, ...(result.truncated ? { truncated: true } : {}) };
  } catch (error) {
    if (error instanceof AppToolInputError || error instanceof OutboundError) return { error: error.message };
    logger.warn({ err: error, app: app.slug, tool: definition.name }, "app tool call failed");
    return { error: `${app.name} could not be reached` };
  }
}

export async function appToolSet(ctx: AppToolContext): Promise<AppTools> {
  const connectionNeeded = new Map<string, ConnectionNeeded>();
  const tools: ToolSet = {};
  for (const app of await appsForRun(ctx)) {
    for (const definition of app.tools) {
      const name = appToolName(app.slug, definition.name);
      tools[name] = tool({
        description: `${app.name}: ${definition.description}`,
        // The catalogue validated the schema when it loaded (apps/catalog.ts).
        inputSchema: jsonSchema<Record<string, unknown>>(definition.input as Parameters<typeof jsonSchema>[0]),
        // A call with no usable connection waits for a person to connect the app (an approval the
        // executor records as kind connection); otherwise only approval mode asks.
        needsApproval: async (_input, { toolCallId }) => {
          const { active, expired } = await currentConnection(ctx, app.slug);
          if (!active && ctx.interactive) {
            connectionNeeded.set(toolCallId, { app: app.slug, appName: app.name, status: expired ? "expired" : "missing" });
            return true;
          }
          return active ? ctx.needsApproval(name) : false;
        },
        execute: (input) => callTool(ctx, app, definition, input),
      });
    }
  }
  return { tools, connectionNeeded };
}
