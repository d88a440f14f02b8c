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
  key?: { key: string; requestHash: string; expiresAt: Date };
}

/**
 * Inserts the pending judgment. With a key, the unique (account, key) index decides races: null when
 * another judgment holds the key (ON CONFLICT DO NOTHING, so no failed statement is logged).
 */
export async function insertPendingJudgment(prisma: PrismaClient, scope: JudgmentScope, data: NewJudgment): Promise<number | null> {
  const rows = await prisma.$queryRaw<{ id: number }[]>`
    INSERT INTO platform_judgments
      (account_id, end_user_id, run_id, mode, status, idempotency_key, request_hash, key_expires_at, retention,
       funding_source, created_at, result_expires_at, expires_at)
    VALUES (${scope.accountId}, ${scope.endUserId}, ${data.runId}, ${data.mode}, 'pending', ${data.key?.key ?? null},
       ${data.key?.requestHash ?? null}, ${data.key?.expiresAt ?? null}, ${data.retention}, ${data.fundingSource},
       ${data.createdAt}, ${data.resultExpiresAt}, ${data.expiresAt})
    ON CONFLICT (account_id, idempotency_key) DO NOTHING
    RETURNING id`;
  return rows[0]?.id ?? null;
}

export const findJudgmentByKey = (prisma: PrismaClient, accountId: number, key: string) =>
  prisma.platformJudgment.findUnique({ where: { accountId_idempotencyKey: { accountId, idempotencyKey: key } }, include: withUserId });

/** Frees an expired key (only while still expired), so a new judgment can claim it. */
export async function releaseExpiredKey(prisma: PrismaClient, id: number, now: Date): Promise<void> {
  await prisma.platformJudgment.updateMany({
    where: { id, keyExpiresAt: { lte: now } },
    data: { idempotencyKey: null, requestHash: null, keyExpiresAt: null },
  });
}

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
