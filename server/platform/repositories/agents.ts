// Agents and their documents. Every query is bound to an account and an end-user scope: a row of
// another account or another end-user is never found.
import type { PlatformAgent, PlatformAgentDocument, PrismaClient } from "@/server/generated/prisma/client";
import { Prisma } from "@/server/generated/prisma/client";
import { fromColumns } from "./raw-rows";
import { queryRows } from "./direct";
import { type PlainJson, toDbJson } from "./db";

/** An agent's own columns, without its end-user. */
export type AgentColumns = PlatformAgent;
export type AgentRow = PlatformAgent & { endUser: { externalId: string } | null };
export type AgentDocumentRow = PlatformAgentDocument;
const AGENT_JSON = ["metadata", "chatChannels"] as const;
type AgentJson = (typeof AGENT_JSON)[number];
export type AgentData = PlainJson<Omit<Prisma.PlatformAgentUncheckedCreateInput, "accountId" | "endUserId">, AgentJson>;
export type AgentRowUpdate = PlainJson<Prisma.PlatformAgentUncheckedUpdateInput, AgentJson>;

interface ScopeKey {
  accountId: number;
  endUserId: number | null;
}

/** A scope that also knows its user_id, so reads can skip joining the end-user row. */
interface ReadScope extends ScopeKey {
  userId: string | null;
}

// Every row a scoped read returns belongs to the scope's end-user, whose user_id the caller gave us.
const withEndUser = (scope: ReadScope, row: PlatformAgent): AgentRow => ({
  ...row,
  endUser: scope.userId === null ? null : { externalId: scope.userId },
});

const include = { endUser: { select: { externalId: true } } } as const;

const scopeWhere = (scope: ScopeKey) => ({ accountId: scope.accountId, endUserId: scope.endUserId });

export const createAgent = (prisma: PrismaClient, scope: ScopeKey, data: AgentData): Promise<AgentRow> =>
  prisma.platformAgent.create({
    data: { ...toDbJson<Prisma.PlatformAgentUncheckedCreateInput>(data, AGENT_JSON), ...scopeWhere(scope) },
    include,
  });

// Agents are read on every run start: raw SQL, which skips Prisma's query compiler (raw-rows.ts).
/** The account's agent `id` in any scope and status (the row services/agents/agents.ts caches); null when none. */
export async function findAgentRow(prisma: PrismaClient, accountId: number, id: number): Promise<PlatformAgent | null> {
  const rows = await queryRows<Record<string, unknown>>(
    prisma,
    Prisma.sql`SELECT * FROM platform_agents WHERE id = ${id} AND account_id = ${accountId}`,
  );
  return rows[0] ? fromColumns<PlatformAgent>(rows[0]) : null;
}

/**
 * The run's agent (not archived) with its end-user's user_id, as one jsonb value: what a statement that
 * reads a run (the worker's claim) returns beside it, so the pass does not read it again. `run` names
 * the run's row in that statement. agentFromJson() reads it back.
 */
export const agentJsonOfRun = (run: Prisma.Sql) => Prisma.sql`
  (SELECT to_jsonb(a) || jsonb_build_object('end_user_external_id', (SELECT e.external_id FROM platform_end_users e WHERE e.id = a.end_user_id))
   FROM platform_agents a WHERE a.id = ${run}.agent_id AND a.account_id = ${run}.account_id AND a.status <> 'archived')`;

/** The row agentJsonOfRun() gave, as findAgentAnyScope() returns it (jsonb has no timestamps: its two are read back). */
export function agentFromJson(json: Record<string, unknown>): AgentRow {
  const { end_user_external_id: externalId, created_at: createdAt, updated_at: updatedAt, ...columns } = json;
  const row = fromColumns<PlatformAgent>({ ...columns, created_at: new Date(createdAt as string), updated_at: new Date(updatedAt as string) });
  return { ...row, endUser: row.endUserId === null ? null : { externalId: externalId as string } };
}

/** The row as the scope sees it: null when it belongs to another scope or (unless asked for) is archived. */
export function agentInScope(
  row: PlatformAgent | null,
  scope: ReadScope,
  options: { includeArchived?: boolean } = {},
): AgentRow | null {
  if (!row || row.accountId !== scope.accountId || row.endUserId !== scope.endUserId) return null;
  if (!options.includeArchived && row.status === "archived") return null;
  return withEndUser(scope, row);
}

export async function findAgent(
  prisma: PrismaClient,
  scope: ReadScope,
  id: number,
  options: { includeArchived?: boolean } = {},
): Promise<AgentRow | null> {
  return agentInScope(await findAgentRow(prisma, scope.accountId, id), scope, options);
}

export const updateAgent = (prisma: PrismaClient, id: number, data: AgentRowUpdate) =>
  prisma.platformAgent.update({ where: { id }, data: toDbJson<Prisma.PlatformAgentUncheckedUpdateInput>(data, AGENT_JSON), include });

/** Does the agent `id` exist in this scope (in any status)? For list cursors. */
export async function agentExistsInScope(prisma: PrismaClient, scope: ScopeKey, id: number): Promise<boolean> {
  return (await prisma.platformAgent.count({ where: { id, ...scopeWhere(scope) } })) > 0;
}

/** The scope's lead agent (services/agents/agents.ts, mate groups): its oldest agent not archived; null when none. */
export async function leadAgentId(prisma: PrismaClient, scope: ScopeKey): Promise<number | null> {
  const row = await prisma.platformAgent.findFirst({ where: { ...scopeWhere(scope), status: { not: "archived" } }, orderBy: { id: "asc" }, select: { id: true } });
  return row?.id ?? null;
}

/** Does the mate group `groupId` have a member (not archived) in this scope? */
export async function mateGroupHasMembers(prisma: PrismaClient, scope: ScopeKey, groupId: number): Promise<boolean> {
  return (await prisma.platformAgent.count({ where: { ...scopeWhere(scope), groupId, status: { not: "archived" } } })) > 0;
}

/**
 * One page of agents, ordered by COALESCE(display_order, id) then id (the spec's order), starting
 * after the agent `startingAfter`. Prisma cannot order by an expression, so the ids come from SQL.
 */
export async function listAgents(
  prisma: PrismaClient,
  scope: ReadScope,
  options: { limit: number; startingAfter?: number; includeArchived: boolean },
): Promise<AgentRow[]> {
  const after = options.startingAfter ?? null;
  const ids = await prisma.$queryRaw<{ id: number }[]>`
    SELECT a.id FROM platform_agents a
    WHERE a.account_id = ${scope.accountId}
      AND a.end_user_id IS NOT DISTINCT FROM ${scope.endUserId}::int
      AND (${options.includeArchived} OR a.status <> 'archived')
      AND (${after}::int IS NULL OR (COALESCE(a.display_order, a.id), a.id) >
           (SELECT COALESCE(c.display_order, c.id), c.id FROM platform_agents c WHERE c.id = ${after}::int))
    ORDER BY COALESCE(a.display_order, a.id), a.id
    LIMIT ${options.limit}`;
  const rows = await prisma.platformAgent.findMany({ where: { id: { in: ids.map((row) => row.id) } } });
  const byId = new Map(rows.map((row) => [row.id, withEndUser(scope, row)]));
  return ids.map((row) => byId.get(row.id)).filter((row): row is AgentRow => row !== undefined);
}

/** Agents of the account (other than `exceptId`, not archived) bound to any of these chat channels. */
export async function agentsBoundToChannels(
  prisma: PrismaClient,
  accountId: number,
  exceptId: number | null,
): Promise<{ id: number; chatChannels: Prisma.JsonValue }[]> {
  return prisma.platformAgent.findMany({
    where: {
      accountId,
      status: { not: "archived" },
      chatChannels: { not: Prisma.AnyNull },
      ...(exceptId !== null ? { id: { not: exceptId } } : {}),
    },
    select: { id: true, chatChannels: true },
  });
}

export const listAgentDocuments = (
  prisma: PrismaClient,
  agentId: number,
  options: { limit: number; startingAfter?: number },
): Promise<AgentDocumentRow[]> =>
  prisma.platformAgentDocument.findMany({
    where: { agentId, ...(options.startingAfter ? { id: { lt: options.startingAfter } } : {}) },
    orderBy: { id: "desc" },
    take: options.limit + 1,
  });

export const findAgentDocument = (prisma: PrismaClient, agentId: number, name: string) =>
  prisma.platformAgentDocument.findUnique({ where: { agentId_name: { agentId, name } } });

export const countAgentDocuments = (prisma: PrismaClient, agentId: number) => prisma.platformAgentDocument.count({ where: { agentId } });

/** Writes the agent's document `name`, replacing its content when it exists. */
export const upsertAgentDocument = (
  prisma: PrismaClient,
  document: { accountId: number; agentId: number; name: string; summary: string; mimeType: string; content: string; sizeBytes: number; source: string; sourceRunId: number | null },
): Promise<AgentDocumentRow> => {
  const { accountId, agentId, name, ...fields } = document;
  return prisma.platformAgentDocument.upsert({
    where: { agentId_name: { agentId, name } },
    create: { accountId, agentId, name, ...fields },
    update: fields,
  });
};

/** An agent anywhere in the account (for a run that inherits its agent's scope), with its user_id. */
export async function findAgentAnyScope(prisma: PrismaClient, accountId: number, id: number): Promise<AgentRow | null> {
  return withOwner(prisma, await findAgentRow(prisma, accountId, id));
}

/** A row read without a scope, not archived, with its end-user's user_id; null otherwise. */
export async function withOwner(prisma: PrismaClient, row: PlatformAgent | null): Promise<AgentRow | null> {
  if (!row || row.status === "archived") return null;
  // The end-user is read only when there is one: Prisma's include costs a query even for none.
  const endUser =
    row.endUserId === null
      ? null
      : await prisma.platformEndUser.findUnique({ where: { id: row.endUserId }, select: { externalId: true } });
  return { ...row, endUser };
}

/** Does the document `id` belong to an agent of this scope? (Value-tracking evidence names documents by id.) */
export async function agentDocumentExistsInScope(prisma: PrismaClient, scope: ScopeKey, id: number): Promise<boolean> {
  return (await prisma.platformAgentDocument.count({ where: { id, accountId: scope.accountId, agent: scopeWhere(scope) } })) > 0;
}
/** The agent whose inbound webhook token hashes to `tokenHash` (any account, any status); null when none. */
export const findAgentByWebhookHash = (prisma: PrismaClient, tokenHash: string) =>
  prisma.platformAgent.findUnique({ where: { webhookTokenHash: tokenHash }, select: { id: true, accountId: true } });
