// App connections (platform_app_connections) and their OAuth connect flows (platform_app_connect_flows).
// Queries a caller makes name the account and the end-user scope, so a foreign id is simply not found;
// the by-id reads without a scope serve the run runtime, which got the id from a scoped list.
import type { Prisma, PrismaClient } from "@/server/generated/prisma/client";

export interface ConnectionScope {
  accountId: number;
  endUserId: number | null;
}

const withUserId = { endUser: { select: { externalId: true } } } as const;
const scoped = (scope: ConnectionScope) => ({ accountId: scope.accountId, endUserId: scope.endUserId });

export type ConnectionRow = Awaited<ReturnType<typeof findConnectionById>> & {};
export type FlowRow = NonNullable<Awaited<ReturnType<typeof findFlow>>>;

export const findConnectionById = (prisma: PrismaClient, id: string) =>
  prisma.platformAppConnection.findUnique({ where: { id }, include: withUserId });

export const findConnection = (prisma: PrismaClient, scope: ConnectionScope, id: string, app?: string) =>
  prisma.platformAppConnection.findFirst({ where: { ...scoped(scope), id, ...(app ? { app } : {}) }, include: withUserId });

/** The scope's connections (of one app when given), newest first; pending ones only when asked. */
export const listConnections = (prisma: PrismaClient, scope: ConnectionScope, options: { app?: string; includePending?: boolean } = {}) =>
  prisma.platformAppConnection.findMany({
    where: { ...scoped(scope), ...(options.app ? { app: options.app } : {}), ...(options.includePending ? {} : { status: { not: "pending" } }) },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    include: withUserId,
  });

/**
 * The scope's connections a run of `agentId` may use: active or expired (an expired one tells the run
 * to ask for a reconnect), granted to every agent or to this one; newest first. Credentials stay sealed.
 */
export const findUsableConnections = (prisma: PrismaClient, scope: ConnectionScope, agentId: number | null) =>
  prisma.platformAppConnection.findMany({
    where: {
      ...scoped(scope),
      status: { in: ["active", "expired"] },
      ...(agentId === null ? { agentIds: { isEmpty: true } } : { OR: [{ agentIds: { isEmpty: true } }, { agentIds: { has: agentId } }] }),
    },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    include: withUserId,
  });

/** A pending connection and the flow that will complete it, together. */
export const insertPendingConnection = (
  prisma: PrismaClient,
  scope: ConnectionScope,
  connection: { id: string; app: string; scopes: string[] },
  flow: Omit<Prisma.PlatformAppConnectFlowUncheckedCreateInput, "connectionId" | "accountId" | "endUserId" | "app">,
) =>
  prisma.platformAppConnection.create({
    data: {
      ...scoped(scope),
      id: connection.id,
      app: connection.app,
      authKind: "oauth2",
      status: "pending",
      scopes: connection.scopes,
      flows: { create: { ...flow, accountId: scope.accountId, endUserId: scope.endUserId, app: connection.app } },
    },
  });

export const insertConnection = (prisma: PrismaClient, data: Prisma.PlatformAppConnectionUncheckedCreateInput) =>
  prisma.platformAppConnection.create({ data, include: withUserId });

/** Connect attempts of the scope and app never completed, whose flows have expired. */
export const deleteAbandonedConnections = (prisma: PrismaClient, scope: ConnectionScope, app: string, before: Date) =>
  prisma.platformAppConnection.deleteMany({ where: { ...scoped(scope), app, status: "pending", createdAt: { lt: before } } });

export const findFlow = (prisma: PrismaClient, stateHash: string) => prisma.platformAppConnectFlow.findUnique({ where: { stateHash } });

/**
 * Uses the flow whose state hashes to `stateHash`, once: null when there is none, it was used, or it
 * expired. The conditional UPDATE is the gate, so two callbacks with one state cannot both pass.
 */
export async function consumeFlow(prisma: PrismaClient, stateHash: string): Promise<FlowRow | null> {
  const { count } = await prisma.platformAppConnectFlow.updateMany({
    where: { stateHash, usedAt: null, expiresAt: { gt: new Date() } },
    data: { usedAt: new Date() },
  });
  return count === 1 ? findFlow(prisma, stateHash) : null;
}

/** The native path: the connection's started flow, used once, unexpired. */
export async function consumeFlowOfConnection(prisma: PrismaClient, connectionId: string): Promise<FlowRow | null> {
  const flow = await prisma.platformAppConnectFlow.findFirst({ where: { connectionId, status: "started" }, orderBy: { createdAt: "desc" } });
  return flow ? consumeFlow(prisma, flow.stateHash) : null;
}

export const updateFlow = (prisma: PrismaClient, stateHash: string, data: Prisma.PlatformAppConnectFlowUncheckedUpdateInput) =>
  prisma.platformAppConnectFlow.update({ where: { stateHash }, data });

/**
 * Moves an authorized flow to completed, once; null when no authorized flow matches. End-user flows
 * are found by connection, account-level ones by the hash of their claim ticket.
 */
export async function completeAuthorizedFlow(
  prisma: PrismaClient,
  where: { connectionId: string } | { claimTicketHash: string; accountId: number; app: string },
): Promise<FlowRow | null> {
  const match: Prisma.PlatformAppConnectFlowWhereInput =
    "connectionId" in where
      ? { connectionId: where.connectionId, status: "authorized" }
      : { claimTicketHash: where.claimTicketHash, accountId: where.accountId, endUserId: null, app: where.app, status: "authorized" };
  const flow = await prisma.platformAppConnectFlow.findFirst({ where: match });
  if (!flow) return null;
  const { count } = await prisma.platformAppConnectFlow.updateMany({ where: { stateHash: flow.stateHash, status: "authorized" }, data: { status: "completed" } });
  return count === 1 ? { ...flow, status: "completed" } : null;
}

export const updateConnection = (prisma: PrismaClient, id: string, data: Prisma.PlatformAppConnectionUncheckedUpdateInput) =>
  prisma.platformAppConnection.update({ where: { id }, data, include: withUserId });

/** Writes only while the stored credentials are still `sealed` (nobody refreshed meanwhile); false otherwise. */
export async function updateConnectionIfSealed(prisma: PrismaClient, id: string, sealed: string | null, data: Prisma.PlatformAppConnectionUncheckedUpdateInput) {
  const { count } = await prisma.platformAppConnection.updateMany({ where: { id, credentialsSealed: sealed }, data });
  return count === 1;
}

/**
 * Claims the connection's refresh for `ms`: true for the one caller (across instances) whose
 * conditional UPDATE found no claim in force.
 */
export async function claimRefresh(prisma: PrismaClient, id: string, ms: number): Promise<boolean> {
  const now = new Date();
  const { count } = await prisma.platformAppConnection.updateMany({
    where: { id, OR: [{ refreshingUntil: null }, { refreshingUntil: { lt: now } }] },
    data: { refreshingUntil: new Date(now.getTime() + ms) },
  });
  return count === 1;
}

export const deleteConnection = (prisma: PrismaClient, id: string) => prisma.platformAppConnection.deleteMany({ where: { id } });

/** The scope's other connections of `app` (add_account false replaces them). */
export const otherConnections = (prisma: PrismaClient, scope: ConnectionScope, app: string, keepId: string) =>
  prisma.platformAppConnection.findMany({ where: { ...scoped(scope), app, id: { not: keepId }, status: { not: "pending" } }, include: withUserId });
