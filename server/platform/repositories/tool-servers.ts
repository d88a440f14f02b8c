// Custom tool servers (platform_tool_servers), end-users' OAuth grants for them and OAuth flows in
// progress. Every server query names the account and the end-user scope, so a foreign id is not found.
import type { Prisma, PrismaClient } from "@/server/generated/prisma/client";
import { type PlainJson, toDbJson } from "./db";

export interface ToolServerScope {
  accountId: number;
  endUserId: number | null;
}

const SERVER_JSON = ["authConfig", "toolDefs", "discoveredTools"] as const;
type ServerJson = (typeof SERVER_JSON)[number];
export type ToolServerData = PlainJson<Omit<Prisma.PlatformToolServerUncheckedCreateInput, "accountId" | "endUserId">, ServerJson>;
export type ToolServerUpdate = PlainJson<Prisma.PlatformToolServerUncheckedUpdateInput, ServerJson>;

const withUserId = { endUser: { select: { externalId: true } } } as const;
const scoped = (scope: ToolServerScope) => ({ accountId: scope.accountId, endUserId: scope.endUserId });

export type ToolServerRow = Awaited<ReturnType<typeof insertToolServer>>;

export const insertToolServer = (prisma: PrismaClient, scope: ToolServerScope, data: ToolServerData) =>
  prisma.platformToolServer.create({
    data: { ...toDbJson<Prisma.PlatformToolServerUncheckedCreateInput>(data, SERVER_JSON), ...scoped(scope) },
    include: withUserId,
  });

/** The scope's own server (exactly this scope: an end-user's, or account-level). */
export const findToolServer = (prisma: PrismaClient, scope: ToolServerScope, id: number) =>
  prisma.platformToolServer.findFirst({ where: { ...scoped(scope), id }, include: withUserId });

/** A server the scope's runs may use: account-level, or the scope's end-user's own. */
export const findUsableToolServer = (prisma: PrismaClient, scope: ToolServerScope, id: number) =>
  prisma.platformToolServer.findFirst({ where: { id, ...usableBy(scope) }, include: withUserId });

const usableBy = (scope: ToolServerScope) => ({
  accountId: scope.accountId,
  OR: [{ endUserId: null }, ...(scope.endUserId !== null ? [{ endUserId: scope.endUserId }] : [])],
});

export const listToolServers = (prisma: PrismaClient, scope: ToolServerScope) =>
  prisma.platformToolServer.findMany({ where: scoped(scope), orderBy: { id: "asc" }, include: withUserId });

/** Approved servers a run of the scope is offered: account-level ones and the end-user's own. */
export const approvedServersForRun = (prisma: PrismaClient, scope: ToolServerScope) =>
  prisma.platformToolServer.findMany({
    where: { ...usableBy(scope), status: "approved" },
    orderBy: { id: "asc" },
    include: withUserId,
  });

export const updateToolServer = (prisma: PrismaClient, id: number, data: ToolServerUpdate) =>
  prisma.platformToolServer.update({ where: { id }, data: toDbJson<Prisma.PlatformToolServerUncheckedUpdateInput>(data, SERVER_JSON), include: withUserId });

/** False when the scope holds no server with this id. Its grants and flows go with it. */
export async function deleteToolServer(prisma: PrismaClient, scope: ToolServerScope, id: number): Promise<boolean> {
  const { count } = await prisma.platformToolServer.deleteMany({ where: { ...scoped(scope), id } });
  return count > 0;
}

// --- OAuth grants and flows ------------------------------------------------------------------------

export type ToolServerGrantRow = NonNullable<Awaited<ReturnType<typeof findGrant>>>;

export const findGrant = (prisma: PrismaClient, serverId: number, endUserId: number | null) =>
  prisma.platformToolServerGrant.findFirst({ where: { serverId, endUserId } });

/** One grant per (server, end-user): a new authorization replaces the previous one. */
export async function saveGrant(
  prisma: PrismaClient,
  key: { serverId: number; accountId: number; endUserId: number | null },
  data: { tokensSealed: string; clientSealed: string; expiresAt: Date | null },
) {
  // Not an upsert: a unique key with a NULL column never conflicts in PostgreSQL.
  return prisma.$transaction(async (tx) => {
    await tx.platformToolServerGrant.deleteMany({ where: { serverId: key.serverId, endUserId: key.endUserId } });
    return tx.platformToolServerGrant.create({ data: { ...key, ...data } });
  });
}

export const updateGrant = (prisma: PrismaClient, id: number, data: { tokensSealed: string; expiresAt: Date | null }) =>
  prisma.platformToolServerGrant.update({ where: { id }, data });

export const deleteGrantsOfServer = (prisma: PrismaClient, serverId: number) =>
  prisma.platformToolServerGrant.deleteMany({ where: { serverId } });

export const insertFlow = (prisma: PrismaClient, data: Prisma.PlatformToolServerOAuthFlowUncheckedCreateInput) =>
  prisma.platformToolServerOAuthFlow.create({ data });

/** The pending flow of this state, whoever started it (the caller checks it is theirs before taking it). */
export const findFlowByState = (prisma: PrismaClient, stateHash: string) =>
  prisma.platformToolServerOAuthFlow.findUnique({ where: { stateHash } });

export type ToolServerFlowRow = NonNullable<Awaited<ReturnType<typeof consumeFlow>>>;

/** Takes the flow of a state once: it is deleted as it is read, and an expired one is not returned. */
export async function consumeFlow(prisma: PrismaClient, stateHash: string) {
  const flow = await prisma.platformToolServerOAuthFlow.findUnique({ where: { stateHash } });
  if (!flow) return null;
  const { count } = await prisma.platformToolServerOAuthFlow.deleteMany({ where: { stateHash } });
  if (count === 0 || flow.expiresAt <= new Date()) return null;
  return flow;
}

/** Flows of the server that nobody completed in time. */
export const deleteExpiredFlows = (prisma: PrismaClient, serverId: number) =>
  prisma.platformToolServerOAuthFlow.deleteMany({ where: { serverId, expiresAt: { lte: new Date() } } });
