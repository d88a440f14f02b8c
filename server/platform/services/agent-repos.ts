// Repositories bound to an agent (/agents/{id}/repos and their env). Account-scoped: only agents of
// the account level have them (an end-user's agent is 404 here, as another account's is). Binding needs
// an active account-level connection of the code-host app (services/apps.ts); the env's values are
// sealed with the platform's secret box and never returned. No run is given them (the platform makes no
// checkout and has no shell), so no run output can show them; whatever hands them to a run one day must
// redact them from its output, which the 8-character minimum keeps possible. No HTTP here.
import type { z } from "zod";
import type { AgentRepo, AgentRepoCreate, AgentRepoEnv, AgentRepoEnvPut } from "@/lib/schemas/agent-repos";
import type { PlatformConfig } from "../platform-config";
import { PlatformError } from "../errors";
import * as repos from "../repositories/agent-repos";
import type { AgentRepoRow } from "../repositories/agent-repos";
import { listConnections } from "../repositories/app-connections";
import type { DataContext } from "../runtime/hot-cache";
import { loadAgent } from "./agents";
import { openSecret, sealSecret } from "./app-credentials";
import { toPage } from "./pagination";
import type { AuthContext } from "./auth";
import type { Scope } from "./scope";

export type AgentRepoContext = DataContext & { config: PlatformConfig };

/** The app whose account-level connection a binding needs (server/platform/apps/definitions/codehost.ts). */
export const CODEHOST_APP = "codehost";

const toAgentRepo = (row: AgentRepoRow): z.infer<typeof AgentRepo> => ({
  id: row.id,
  agent_id: row.agentId,
  repo_full_name: row.repoFullName,
  mode: row.mode,
  connection_id: row.connectionId,
  env_keys: row.envKeys,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

const toAgentRepoEnv = (row: AgentRepoRow): z.infer<typeof AgentRepoEnv> => ({
  repo_id: row.id,
  keys: row.envKeys,
  updated_at: row.updatedAt.toISOString(),
});

const accountScope = (auth: AuthContext): Scope => ({ accountId: auth.accountId, endUserId: null, userId: null });

async function loadRepo(ctx: AgentRepoContext, auth: AuthContext, agentId: number, repoId: number) {
  await loadAgent(ctx, accountScope(auth), agentId);
  const row = await repos.findAgentRepo(ctx.prisma, auth.accountId, agentId, repoId);
  if (!row) throw new PlatformError({ type: "not_found", message: `agent ${agentId} has no repository ${repoId}` });
  return row;
}

/** POST /agents/{id}/repos: 201 for a new binding, 200 for a re-bind of the same repository. */
export async function bindRepo(ctx: AgentRepoContext, auth: AuthContext, agentId: number, input: z.infer<typeof AgentRepoCreate>) {
  const agent = await loadAgent(ctx, accountScope(auth), agentId);
  const connection = (await listConnections(ctx.prisma, { accountId: auth.accountId, endUserId: null }, { app: CODEHOST_APP })).find(
    (row) => row.status === "active",
  );
  if (!connection) {
    throw new PlatformError({
      type: "validation_error",
      errorCode: "app_not_connected",
      message: `repo_full_name: binding a repository needs the code-hosting app connected at the account level: connect ${CODEHOST_APP} (POST /apps/${CODEHOST_APP}/connect without user_id) first`,
      details: { field: "repo_full_name" },
    });
  }
  const { row, created } = await repos.upsertAgentRepo(ctx.prisma, {
    accountId: auth.accountId,
    agentId: agent.id,
    repoFullName: input.repo_full_name,
    connectionId: connection.id,
    mode: input.mode,
  });
  return { repo: toAgentRepo(row), created };
}

/** GET /agents/{id}/repos: the bindings, oldest first, paged. */
export async function listRepos(ctx: AgentRepoContext, auth: AuthContext, agentId: number, query: { limit: number; starting_after?: number }) {
  await loadAgent(ctx, accountScope(auth), agentId);
  const rows = await repos.listAgentRepos(ctx.prisma, auth.accountId, agentId, { take: query.limit + 1, startingAfter: query.starting_after });
  return toPage(rows, query.limit, toAgentRepo);
}

export async function unbindRepo(ctx: AgentRepoContext, auth: AuthContext, agentId: number, repoId: number) {
  await repos.deleteAgentRepo(ctx.prisma, (await loadRepo(ctx, auth, agentId, repoId)).id);
}

/**
 * approve-commands and DELETE …/commands: a repository's own commands (what a checkout would run) need
 * a checkout, which this platform does not make, so there is nothing to approve or clear: after the
 * usual 404s, a clear 422.
 */
export async function repoCommandsNotAvailable(ctx: AgentRepoContext, auth: AuthContext, agentId: number, repoId: number): Promise<never> {
  await loadRepo(ctx, auth, agentId, repoId);
  throw new PlatformError({
    type: "validation_error",
    errorCode: "feature_not_available",
    message: "commands: running a repository's commands is not available on this platform (it does not check repositories out), so there are none to approve or clear",
    details: { field: "commands" },
  });
}

export async function getRepoEnv(ctx: AgentRepoContext, auth: AuthContext, agentId: number, repoId: number) {
  return toAgentRepoEnv(await loadRepo(ctx, auth, agentId, repoId));
}

const sealEnv = (config: PlatformConfig, env: Record<string, string>) => {
  const keys = Object.keys(env).sort();
  return { envSealed: keys.length === 0 ? null : sealSecret(config, JSON.stringify(env)), envKeys: keys };
};

const openEnv = (config: PlatformConfig, sealed: string | null): Record<string, string> =>
  sealed === null ? {} : (JSON.parse(openSecret(config, sealed).value) as Record<string, string>);

/** PUT …/env: replaces the set (keys left out are removed). Limits are the contract's (lib/schemas/agent-repos.ts). */
export async function putRepoEnv(ctx: AgentRepoContext, auth: AuthContext, agentId: number, repoId: number, input: z.infer<typeof AgentRepoEnvPut>) {
  const row = await loadRepo(ctx, auth, agentId, repoId);
  return toAgentRepoEnv(await repos.setAgentRepoEnv(ctx.prisma, row.id, sealEnv(ctx.config, input.env)));
}

export async function deleteRepoEnvKey(ctx: AgentRepoContext, auth: AuthContext, agentId: number, repoId: number, key: string) {
  const row = await loadRepo(ctx, auth, agentId, repoId);
  const env = openEnv(ctx.config, row.envSealed);
  if (!(key in env)) throw new PlatformError({ type: "not_found", message: `repository ${repoId} has no env variable ${key}` });
  delete env[key];
  await repos.setAgentRepoEnv(ctx.prisma, row.id, sealEnv(ctx.config, env));
}
