// iMessage bridges, their linked handles and their message log. Bridges are account-scoped: every
// query by id names the account, so another account's bridge is simply not found.
import type { Prisma, PrismaClient } from "@/server/generated/prisma/client";

export type BridgeRow = NonNullable<Awaited<ReturnType<typeof findBridge>>>;
export type BridgeMessageRow = NonNullable<Awaited<ReturnType<typeof findBridgeMessage>>>;

export const insertBridge = (prisma: PrismaClient, accountId: number, data: Omit<Prisma.PlatformBridgeUncheckedCreateInput, "accountId">) =>
  prisma.platformBridge.create({ data: { ...data, accountId } });

export const findBridge = (prisma: PrismaClient, accountId: number, id: number) => prisma.platformBridge.findFirst({ where: { accountId, id } });

/** By id alone: for the inbound endpoint, which the bridge's own secret authenticates. */
export const findBridgeById = (prisma: PrismaClient, id: number) => prisma.platformBridge.findUnique({ where: { id } });

/** Oldest first, after the cursor; limit + 1 rows so the caller can tell has_more. */
export const listBridges = (prisma: PrismaClient, accountId: number, page: { limit: number; startingAfter?: number }) =>
  prisma.platformBridge.findMany({
    where: { accountId, ...(page.startingAfter !== undefined ? { id: { gt: page.startingAfter } } : {}) },
    orderBy: { id: "asc" },
    take: page.limit + 1,
  });

export const updateBridge = (prisma: PrismaClient, id: number, data: Prisma.PlatformBridgeUncheckedUpdateInput) =>
  prisma.platformBridge.update({ where: { id }, data });

/** Ids of the agents bound to the bridge (their bridge_id is cleared when it goes). */
export const boundAgentIds = async (prisma: PrismaClient, bridgeId: number) =>
  (await prisma.platformAgent.findMany({ where: { bridgeId }, select: { id: true } })).map((row) => row.id);

/** False when the account holds no bridge with this id. Handles and the log go with it. */
export async function deleteBridge(prisma: PrismaClient, accountId: number, id: number): Promise<boolean> {
  const { count } = await prisma.platformBridge.deleteMany({ where: { accountId, id } });
  return count > 0;
}

/**
 * Uses up the bridge's link code when `codeHash` is it and it has not expired: true once, for one
 * caller, however many send it at the same moment.
 */
export async function consumeLinkCode(prisma: PrismaClient, bridgeId: number, codeHash: string, now: Date): Promise<boolean> {
  const { count } = await prisma.platformBridge.updateMany({
    where: { id: bridgeId, linkCodeHash: codeHash, linkCodeExpiresAt: { gt: now } },
    data: { linkCodeHash: null, linkCodeExpiresAt: null },
  });
  return count > 0;
}

// --- Handles ------------------------------------------------------------------------------------------

export const linkHandle = (prisma: PrismaClient, bridgeId: number, handle: string) =>
  prisma.platformBridgeHandle.upsert({ where: { bridgeId_handle: { bridgeId, handle } }, create: { bridgeId, handle }, update: {} });

export const isHandleLinked = async (prisma: PrismaClient, bridgeId: number, handle: string) =>
  (await prisma.platformBridgeHandle.count({ where: { bridgeId, handle } })) > 0;

export const listHandles = (prisma: PrismaClient, bridgeId: number, page: { limit: number; startingAfter?: number }) =>
  prisma.platformBridgeHandle.findMany({
    where: { bridgeId, ...(page.startingAfter !== undefined ? { id: { gt: page.startingAfter } } : {}) },
    orderBy: { id: "asc" },
    take: page.limit + 1,
  });

export async function deleteHandle(prisma: PrismaClient, bridgeId: number, id: number): Promise<boolean> {
  const { count } = await prisma.platformBridgeHandle.deleteMany({ where: { bridgeId, id } });
  return count > 0;
}

// --- Routing ------------------------------------------------------------------------------------------

/** The enabled agents bound to the bridge that take iMessage, oldest first, with their end-user's id. */
export const inboundAgents = (prisma: PrismaClient, accountId: number, bridgeId: number) =>
  prisma.platformAgent.findMany({
    where: { accountId, bridgeId, inboundImessageEnabled: true, status: "enabled" },
    orderBy: { id: "asc" },
    select: { id: true, endUserId: true, imessageChatGuid: true, allowedImessageSenders: true, endUser: { select: { externalId: true } } },
  });

// --- Message log --------------------------------------------------------------------------------------

export const insertBridgeMessage = (prisma: PrismaClient, data: Prisma.PlatformBridgeMessageUncheckedCreateInput) =>
  prisma.platformBridgeMessage.create({ data });

export const findBridgeMessage = (prisma: PrismaClient, id: number) => prisma.platformBridgeMessage.findUnique({ where: { id } });

/** The inbound message the bridge server already delivered under this id, if any. */
export const findDeliveredMessage = (prisma: PrismaClient, bridgeId: number, messageGuid: string) =>
  prisma.platformBridgeMessage.findFirst({ where: { bridgeId, messageGuid, direction: "inbound" }, orderBy: { id: "asc" } });

/**
 * Inserts an inbound message's row before it is acted on; null when a row with its guid exists
 * (another delivery of it got there first, even one still being acted on).
 */
export async function claimInboundMessage(
  prisma: PrismaClient,
  data: Prisma.PlatformBridgeMessageUncheckedCreateInput & { messageGuid: string },
): Promise<BridgeMessageRow | null> {
  const rows = await prisma.platformBridgeMessage.createManyAndReturn({ data: [data], skipDuplicates: true });
  return rows[0] ?? null;
}

/** What acting on an inbound message came to: its status, and the agent and run when there are some. */
export interface InboundOutcome {
  status: string;
  reason?: string;
  agentId?: number;
  runId?: number;
}

export const recordInboundOutcome = (prisma: PrismaClient, id: number, outcome: InboundOutcome) =>
  prisma.platformBridgeMessage.update({ where: { id }, data: outcome });

/** The chat's latest message that started or continued a run of this agent: the thread to continue. */
export const latestRunInChat = (prisma: PrismaClient, bridgeId: number, chatGuid: string, agentId: number) =>
  prisma.platformBridgeMessage.findFirst({
    where: { bridgeId, chatGuid, agentId, direction: "inbound", runId: { not: null }, status: { in: ["started", "continued"] } },
    orderBy: { id: "desc" },
  });

/** Claims the reply to an inbound message (one each); null when another worker has sent it already. */
export async function claimReply(
  prisma: PrismaClient,
  data: { accountId: number; bridgeId: number; agentId: number | null; runId: number | null; handle: string; chatGuid: string; answersId: number },
): Promise<number | null> {
  const rows = await prisma.$queryRaw<{ id: number }[]>`
    INSERT INTO platform_bridge_messages (account_id, bridge_id, direction, agent_id, run_id, status, handle, chat_guid, answers_id)
    VALUES (${data.accountId}, ${data.bridgeId}, 'outbound', ${data.agentId}, ${data.runId}, 'sent', ${data.handle}, ${data.chatGuid}, ${data.answersId})
    ON CONFLICT (answers_id) DO NOTHING
    RETURNING id`;
  return rows[0]?.id ?? null;
}

export const deleteBridgeMessage = (prisma: PrismaClient, id: number) => prisma.platformBridgeMessage.deleteMany({ where: { id } });
