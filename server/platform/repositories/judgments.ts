// Judgments and the account's judgment connection: the only module that touches platform_judgments
// and platform_judgment_connections, plus the scoped reads that resolve evidence references
// (documents, run tool results). Every read names the account and the end-user scope.
import { Prisma, type PlatformJudgment, type PrismaClient } from "@/server/generated/prisma/client";

export type JudgmentRow = PlatformJudgment & { endUser: { externalId: string } | null };

export interface JudgmentScope {
  accountId: number;
  /** Null for the account-level scope. */
  endUserId: number | null;
}

const withUserId = { endUser: { select: { externalId: true } } } as const;

export interface NewJudgment {
  mode: string;
  runId: number | null;
  retention: string;
  fundingSource: string;
  createdAt: Date;
  resultExpiresAt: Date;
  expiresAt: Date;
}

/** Inserts the pending judgment (its Idempotency-Key, if any, is claimed in the same transaction). */
export async function insertPendingJudgment(prisma: PrismaClient, scope: JudgmentScope, data: NewJudgment): Promise<number> {
  const row = await prisma.platformJudgment.create({
    data: { accountId: scope.accountId, endUserId: scope.endUserId, status: "pending", ...data },
    select: { id: true },
  });
  return row.id;
}

/** The judgment by id in the account (an Idempotency-Key's replay), or null. */
export const findJudgmentInAccount = (prisma: PrismaClient, accountId: number, id: number) =>
  prisma.platformJudgment.findFirst({ where: { id, accountId }, include: withUserId });

/** Runs `work` in one transaction: a judgment's key claim and its pending row commit together. */
export const inJudgmentTransaction = <T>(prisma: PrismaClient, work: (tx: PrismaClient) => Promise<T>): Promise<T> =>
  prisma.$transaction((tx) => work(tx as PrismaClient));

export interface JudgmentOutcome {
  status: "succeeded" | "failed";
  result: Prisma.InputJsonValue | null;
  error: string | null;
  model: string;
  fundingSource: string;
  inputTokens: number;
  outputTokens: number;
  costMicros: bigint;
  latencyMs: number;
}

export async function finishJudgment(prisma: PrismaClient, id: number, outcome: JudgmentOutcome): Promise<JudgmentRow> {
  return prisma.platformJudgment.update({
    where: { id },
    data: { ...outcome, result: outcome.result ?? Prisma.DbNull },
    include: withUserId,
  });
}

/** The judgment in exactly this scope (account and end-user), or null. */
export const findJudgment = (prisma: PrismaClient, scope: JudgmentScope, id: number) =>
  prisma.platformJudgment.findFirst({ where: { id, accountId: scope.accountId, endUserId: scope.endUserId }, include: withUserId });

/** Housekeeping: judgments whose metadata outlived its 90 days. */
export async function deleteExpiredJudgments(prisma: PrismaClient, now: Date, limit: number): Promise<number> {
  return prisma.$executeRaw`
    DELETE FROM platform_judgments WHERE id IN (
      SELECT id FROM platform_judgments WHERE expires_at <= ${now} ORDER BY expires_at LIMIT ${limit})`;
}

export async function runExistsInScope(prisma: PrismaClient, scope: JudgmentScope, runId: number): Promise<boolean> {
  const row = await prisma.platformRun.findFirst({
    where: { id: runId, accountId: scope.accountId, endUserId: scope.endUserId },
    select: { id: true },
  });
  return row !== null;
}

/** A document of one of the scope's agents, or null (another scope's document is not found). */
export const findDocumentInScope = (prisma: PrismaClient, scope: JudgmentScope, id: number) =>
  prisma.platformAgentDocument.findFirst({
    where: { id, accountId: scope.accountId, agent: { accountId: scope.accountId, endUserId: scope.endUserId } },
    select: { id: true, agentId: true, content: true, sourceRunId: true },
  });

/** A tool_result event of one of the scope's runs, or null. */
export const findToolResultInScope = (prisma: PrismaClient, scope: JudgmentScope, id: number) =>
  prisma.platformRunEvent.findFirst({
    where: { id: BigInt(id), type: "tool_result", run: { accountId: scope.accountId, endUserId: scope.endUserId } },
    select: { id: true, runId: true, data: true },
  });

// The customer's key for customer-funded judgments.

export const findConnection = (prisma: PrismaClient, accountId: number) =>
  prisma.platformJudgmentConnection.findUnique({ where: { accountId } });

export const upsertConnection = (prisma: PrismaClient, accountId: number, keySealed: string) =>
  prisma.platformJudgmentConnection.upsert({ where: { accountId }, create: { accountId, keySealed }, update: { keySealed } });

export async function deleteConnection(prisma: PrismaClient, accountId: number): Promise<void> {
  await prisma.platformJudgmentConnection.deleteMany({ where: { accountId } });
}
