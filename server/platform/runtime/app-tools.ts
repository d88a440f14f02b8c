// The tools a run gets from apps: every tool of each app the run may use, named `<app>__<tool>`
// so none can shadow a built-in. A run may use an app when the end-user connected it (and the
// connection is granted to the run's agent), or when the agent's or the run's `tools` name the app
// or one of its tools. Calling a tool of an app with no usable connection pauses the run for a
// person to connect it (a permission request of kind connection); once a connection completes in
// the scope the run goes on by itself (services/apps/app-run-pauses.ts), and a declined request fails the
// call cleanly.
import { jsonSchema, tool, type ToolSet } from "ai";
import type { Db } from "../repositories/db";
import { appCatalogOf } from "../apps/catalog";
import type { AppDefinition, AppToolDefinition } from "../apps/definition";
import type { PlatformConfig } from "../platform-config";
import { callAppTool } from "../services/apps/app-calls";
import { appForAccount, appUsable, connectionsForRun } from "../services/apps/app-credentials";

const SEPARATOR = "__";

export const appToolName = (app: string, toolName: string) => `${app}${SEPARATOR}${toolName}`;

/** The app and tool a run's tool name stands for, or null for a name that is not an app tool. */
export function parseAppToolName(name: string): { app: string; tool: string } | null {
  const at = name.indexOf(SEPARATOR);
  if (at <= 0) return null;
  return { app: name.slice(0, at), tool: name.slice(at + SEPARATOR.length) };
}

export interface AppToolContext {
  prisma: Db;
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
  /** False when the scope is known to have no usable connection (runToolSources): none is read. */
  connected?: boolean;
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
  const connections = ctx.connected === false ? [] : await connectionsForRun(ctx, { accountId: ctx.accountId, endUserId: ctx.endUserId }, ctx.agentId);
  for (const connection of connections) slugs.add(connection.app);
  // Configured for this account: by the operator, or by the account's own identity of the app.
  const usable = await Promise.all([...slugs].map(async (slug) => ((await appForAccount(ctx, ctx.accountId, slug)) ?? null)));
  return usable.flatMap((app) => (app && appUsable(app) ? [catalog.get(app.slug)!] : []));
}

/** The connection a call uses: the newest active one of the app granted to the agent. */
async function currentConnection(ctx: AppToolContext, app: string) {
  const rows = await connectionsForRun(ctx, { accountId: ctx.accountId, endUserId: ctx.endUserId }, ctx.agentId);
  const ofApp = rows.filter((row) => row.app === app);
  return { active: ofApp.find((row) => row.status === "active"), expired: ofApp.some((row) => row.status === "expired") };
}

async function callTool(ctx: AppToolContext, app: AppDefinition, definition: AppToolDefinition, input: Record<string, unknown>) {
  const { active } = await currentConnection(ctx, app.slug);
  if (!active) return { error: `${app.name} is not connected for this person; ask them to connect it.` };
  const outcome = await callAppTool(ctx, app, definition, input, active.id);
  if (!outcome.ok) return { error: outcome.error, ...(outcome.status !== undefined ? { status: outcome.status, body: outcome.body } : {}) };
  return { status: outcome.status, data: outcome.body, ...(outcome.truncated ? { truncated: true } : {}) };
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
