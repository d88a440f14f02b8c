// Repositories bound to an agent (/agents/{id}/repos and their env). Account-scoped: only agents of
// the account level have them (an end-user's agent is 404 here, as another account's is). Binding needs
// an active account-level connection of the code-host app (services/apps/apps.ts); the env's values are
// sealed with the platform's secret box and never returned. No run is given them (the platform makes no
// checkout and has no shell), but a run can still meet one (pasted, read by a tool), so every run of
// the agent redacts them from all it outputs (agentEnvValues, read once a pass by runtime/run-pass.ts;
// infrastructure/secret-redactor.ts). A binding also records the digest of its commands a person approved
// (approve-commands), for a future runtime that checks repositories out. No HTTP here.
import type { z } from "zod";
import type { AgentRepo, AgentRepoCreate, AgentRepoEnv, AgentRepoEnvPut, ApproveCommands } from "@inlay/core/schemas/agent-repos";
import type { Db } from "../../repositories/db";
import type { PlatformConfig } from "../../platform-config";
import { PlatformError } from "../../errors";
import * as repos from "../../repositories/agent-repos";
import type { AgentRepoRow } from "../../repositories/agent-repos";
import { listConnections } from "../../repositories/app-connections";
import type { DataContext } from "../../infrastructure/hot-cache";
import { loadAgent } from "./agents";
import { openSecret, sealSecret } from "../sealed-secrets";
import { toPage } from "../pagination";
import type { AuthContext } from "../account/auth";
import type { Scope } from "../scope";

export type AgentRepoContext = DataContext & { config: PlatformConfig };

/** The app whose account-level connection a binding needs (server/platform/apps/definitions/codehost.ts). */
export const CODEHOST_APP = "codehost";

export const toAgentRepo = (row: AgentRepoRow): z.infer<typeof AgentRepo> => ({
  id: row.id,
  agent_id: row.agentId,
  repo_full_name: row.repoFullName,
  mode: row.mode,
  connection_id: row.connectionId,
  env_keys: row.envKeys,
  commands_digest: row.commandsDigest,
  commands_approved_at: row.commandsApprovedAt?.toISOString() ?? null,
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
 * POST …/approve-commands: records the digest of the repository's commands a person approved (a new
 * approval replaces the last). The runtime may run a checkout's commands only while their digest is
 * the approved one; this platform makes no checkout yet, so no run executes them (docs/platform-api.md).
 */
export async function approveRepoCommands(ctx: AgentRepoContext, auth: AuthContext, agentId: number, repoId: number, input: z.infer<typeof ApproveCommands>) {
  const row = await loadRepo(ctx, auth, agentId, repoId);
  return toAgentRepo(await repos.setAgentRepoCommands(ctx.prisma, row.id, input.commands_digest, new Date()));
}

/** DELETE …/commands: forgets the approval (204, also when none was recorded). */
export async function clearRepoCommands(ctx: AgentRepoContext, auth: AuthContext, agentId: number, repoId: number) {
  const row = await loadRepo(ctx, auth, agentId, repoId);
  if (row.commandsDigest !== null) await repos.setAgentRepoCommands(ctx.prisma, row.id, null, null);
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

/**
 * Every env value of the repositories bound to the agent: what its runs must never output. Read when
 * a pass starts (runtime/run-pass.ts), so a value put or deleted counts from the next pass on.
 */
export async function agentEnvValues(prisma: Db, config: PlatformConfig, accountId: number, agentId: number): Promise<string[]> {
  return envValuesOf(config, await repos.sealedEnvOfAgent(prisma, accountId, agentId));
}

/** The values of sealed env sets read already (the worker's claim reads them with the run). */
export const envValuesOf = (config: PlatformConfig, sealed: string[]): string[] => sealed.flatMap((one) => Object.values(openEnv(config, one)));

/** PUT …/env: replaces the set (keys left out are removed). Limits are the contract's (packages/core/src/schemas/agent-repos.ts). */
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
