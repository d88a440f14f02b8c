// Repositories bound to agents (platform_agent_repos). Every read names the account and the agent,
// which its caller found in the account-level scope: another account's binding is never found.
import { type PlatformAgentRepo, Prisma, type PrismaClient } from "@/server/generated/prisma/client";
import { queryRows } from "./direct";

export type AgentRepoRow = PlatformAgentRepo;

/** Oldest binding first, `take` of them after the binding `startingAfter`. */
export const listAgentRepos = (
  prisma: PrismaClient,
  accountId: number,
  agentId: number,
  options: { take: number; startingAfter?: number },
): Promise<AgentRepoRow[]> =>
  prisma.platformAgentRepo.findMany({
    where: { accountId, agentId, ...(options.startingAfter !== undefined ? { id: { gt: options.startingAfter } } : {}) },
    orderBy: { id: "asc" },
    take: options.take,
  });

/** The sealed env sets of the agent's bindings that have one, as a jsonb array (agent and account as SQL). */
const sealedEnvSql = (agentId: Prisma.Sql, accountId: Prisma.Sql) => Prisma.sql`
  (SELECT COALESCE(jsonb_agg(env_sealed ORDER BY id), '[]'::jsonb) FROM platform_agent_repos
   WHERE agent_id = ${agentId} AND account_id = ${accountId} AND env_sealed IS NOT NULL)`;

/**
 * The sealed env sets of the agent's bindings that have one: one query on the agent's index, read
 * before every run's first token (its secret values), so one of the hot statements (direct.ts).
 */
export const sealedEnvOfAgent = async (prisma: PrismaClient, accountId: number, agentId: number): Promise<string[]> =>
  (await queryRows<{ sealed: string[] }>(prisma, Prisma.sql`SELECT ${sealedEnvSql(Prisma.sql`${agentId}::int`, Prisma.sql`${accountId}::int`)} AS sealed`))[0]
    ?.sealed ?? [];

/** The same, as a column of a statement reading a run (the worker's claim); `run` names the run's row. */
export const sealedEnvOfRun = (run: Prisma.Sql) => sealedEnvSql(Prisma.sql`${run}.agent_id`, Prisma.sql`${run}.account_id`);

export const findAgentRepo = (prisma: PrismaClient, accountId: number, agentId: number, id: number): Promise<AgentRepoRow | null> =>
  prisma.platformAgentRepo.findFirst({ where: { id, accountId, agentId } });

/** Binds the repository, or re-binds it (its connection, and its mode when one is given). */
export async function upsertAgentRepo(
  prisma: PrismaClient,
  binding: { accountId: number; agentId: number; repoFullName: string; connectionId: string; mode: string | undefined },
): Promise<{ row: AgentRepoRow; created: boolean }> {
  const where = { agentId_repoFullName: { agentId: binding.agentId, repoFullName: binding.repoFullName } };
  const existing = await prisma.platformAgentRepo.findUnique({ where });
  const row = await prisma.platformAgentRepo.upsert({
    where,
    create: { ...binding, mode: binding.mode ?? "trusted" },
    update: { connectionId: binding.connectionId, ...(binding.mode !== undefined ? { mode: binding.mode } : {}) },
  });
  return { row, created: existing === null };
}

export const deleteAgentRepo = (prisma: PrismaClient, id: number) => prisma.platformAgentRepo.delete({ where: { id } });

export const setAgentRepoEnv = (prisma: PrismaClient, id: number, env: { envSealed: string | null; envKeys: string[] }) =>
  prisma.platformAgentRepo.update({ where: { id }, data: env });

/** Records the approved commands' digest (null clears it, with its time). */
export const setAgentRepoCommands = (prisma: PrismaClient, id: number, digest: string | null, at: Date | null) =>
  prisma.platformAgentRepo.update({ where: { id }, data: { commandsDigest: digest, commandsApprovedAt: at } });
