// The tools one pass of a run offers the model: the built-in ones the agent and run enable, the
// connected apps' and the approved custom tool servers', each marked as needing a person's approval
// where the run's permission mode asks for one (services/runs/tool-approval.ts).
import type { ToolSet } from "ai";
import type { Db } from "../repositories/db";
import type { JobQueue } from "../infrastructure/job-queue";
import type { PlatformConfig } from "../platform-config";
import { findAccount } from "../repositories/accounts";
import type { AgentRow } from "../repositories/agents";
import { rememberedTools } from "../repositories/permission-requests";
import { runToolSources } from "../repositories/run-tool-sources";
import { listPermissionsForEndUser } from "../repositories/permissions";
import type { PassReads } from "../repositories/run-leases";
import type { RunRow } from "../repositories/runs";
import { resolveBuiltInTools } from "../services/agents/built-in-tools";
import { appToolSet, type ConnectionNeeded } from "./app-tools";
import type { HotCache } from "../infrastructure/hot-cache";
import type { Mailer } from "../services/messaging/mailer";
import type { ScriptSandbox } from "../tool-servers/script-sandbox";
import { serverToolSet } from "./server-tools";
import { builtInToolSet } from "./tools";
import { approvalsApply, needsApproval, refuseUnapproved } from "../services/runs/tool-approval";

/** What the tools reach: the executor's dependencies (runtime/run-pass.ts ExecutorDeps) meet it. */
export interface RunToolsDeps {
  prisma: Db;
  config: PlatformConfig;
  mailer: Mailer;
  cache: HotCache;
  jobs: JobQueue;
  scriptSandbox(): ScriptSandbox;
}

export interface RunTools {
  tools: ToolSet;
  /** The built-in tools enabled (the system prompt describes them). */
  enabled: Set<string>;
  /** App tool calls that wait for a connection, by tool call id (app-tools.ts). */
  connectionNeeded: Map<string, ConnectionNeeded>;
}

/** `known`: what the claim (or the admission that leased the run here) read with the run; not read again. */
export async function runTools(deps: RunToolsDeps, run: RunRow, agent: AgentRow, known?: Pick<PassReads, "toolSources" | "rememberedTools">): Promise<RunTools> {
  const { prisma } = deps;
  // The agent's toggles and disabled_builtin_tools, then the run's (services/agents/built-in-tools.ts).
  const enabled = new Set(resolveBuiltInTools(agent, run));
  const tools: ToolSet = builtInToolSet(
    {
      prisma,
      mailer: deps.mailer,
      accountId: run.accountId,
      // Only report_issue needs it: read when it runs, not for every run.
      accountEmail: async () => (await findAccount(prisma, run.accountId))?.email ?? "",
      endUserId: run.endUserId,
      agentId: agent.id,
      runId: run.id,
      userId: agent.endUser?.externalId ?? null,
      taskId: run.taskId,
      services: { prisma, cache: deps.cache, jobs: deps.jobs },
    },
    enabled,
  );
  // Which calls ask a person first, and what a request nobody can answer does with them (services/runs/tool-approval.ts).
  const reads = approvalsApply(run);
  const allowList = reads && run.endUserId !== null ? await listPermissionsForEndUser(prisma, run.accountId, run.endUserId) : new Set<string>();
  const remembered = !reads ? new Set<string>() : known ? new Set(known.rememberedTools) : await rememberedTools(prisma, run.id);
  const asksApproval = (name: string) => needsApproval(run, { allowList, remembered }, name);
  for (const [name, definition] of Object.entries(tools)) {
    if (asksApproval(name)) tools[name] = { ...definition, needsApproval: true };
  }
  // Apps' tools decide for themselves: a call with no usable connection waits for one (interactive runs).
  // Custom tool servers' tools (srv<id>__<tool>): approved servers of the account level and the run's
  // end-user. Read together: both come before the run's first token.
  const sources = known?.toolSources ?? (await runToolSources(prisma, run.accountId, run.endUserId));
  const [apps, servers] = await Promise.all([
    appToolSet({
      connected: sources.connections,
      prisma,
      config: deps.config,
      accountId: run.accountId,
      endUserId: run.endUserId,
      agentId: agent.id,
      named: [...agent.tools, ...run.tools],
      interactive: run.interactive,
      needsApproval: asksApproval,
    }),
    sources.servers
      ? serverToolSet({
          prisma,
          config: deps.config,
          accountId: run.accountId,
          endUserId: run.endUserId,
          scriptSandbox: deps.scriptSandbox,
          needsApproval: asksApproval,
        })
      : {},
  ]);
  Object.assign(tools, apps.tools, servers);
  // A reply cannot ask: what would need approval is refused, never run.
  return { tools: run.interactive ? tools : refuseUnapproved(tools), enabled, connectionNeeded: apps.connectionNeeded };
}
