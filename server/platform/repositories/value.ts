// Value tracking. The only module that touches platform_value_use_cases, _observations and
// _run_links. Every query names the account and the owner scope (the account level or one end-user);
// observations and links are reached through their use case, so another scope's are simply not found.
import type { Prisma, PrismaClient } from "@/server/generated/prisma/client";
import { type JsonValue, json, toDbJson } from "./db";

export interface ValueScope {
  accountId: number;
  /** Null for the account-level scope. */
  endUserId: number | null;
}

// Picked field by field: callers pass a wider Scope, and Prisma refuses unknown fields.
const scoped = (scope: ValueScope) => ({ accountId: scope.accountId, endUserId: scope.endUserId });

const useCaseInclude = {
  endUser: { select: { externalId: true } },
  _count: { select: { runLinks: true } },
} as const;

export type UseCaseRow = Prisma.PlatformValueUseCaseGetPayload<{ include: typeof useCaseInclude }>;

const observationInclude = { useCase: { select: { endUser: { select: { externalId: true } } } } } as const;

export type ObservationRow = Prisma.PlatformValueObservationGetPayload<{ include: typeof observationInclude }>;

export interface NewUseCase {
  name: string;
  goal: string;
  measurementModel?: JsonValue;
  responsibleUserId?: number | null;
  sourceRunId?: number | null;
}

export interface UseCaseChanges {
  name?: string;
  goal?: string;
  /** null clears it. */
  measurementModel?: JsonValue;
  responsibleUserId?: number | null;
  status?: string;
}

export const insertUseCase = (prisma: PrismaClient, scope: ValueScope, data: NewUseCase) =>
  prisma.platformValueUseCase.create({ data: { ...scoped(scope), ...toDbJson<Prisma.PlatformValueUseCaseUncheckedCreateInput>(data, ["measurementModel"]) }, include: useCaseInclude });

export const findUseCase = (prisma: PrismaClient, scope: ValueScope, id: number) =>
  prisma.platformValueUseCase.findFirst({ where: { ...scoped(scope), id }, include: useCaseInclude });

/** Newest first, after the cursor; limit + 1 rows so the caller can tell has_more. */
export const listUseCases = (prisma: PrismaClient, scope: ValueScope, page: { limit: number; startingAfter?: number; status?: string }) =>
  prisma.platformValueUseCase.findMany({
    where: {
      ...scoped(scope),
      ...(page.status !== undefined ? { status: page.status } : {}),
      ...(page.startingAfter !== undefined ? { id: { lt: page.startingAfter } } : {}),
    },
    orderBy: { id: "desc" },
    take: page.limit + 1,
    include: useCaseInclude,
  });

/** Null when the scope holds no use case with this id. */
export async function updateUseCase(prisma: PrismaClient, scope: ValueScope, id: number, data: UseCaseChanges): Promise<UseCaseRow | null> {
  if (Object.keys(data).length > 0) {
    const { count } = await prisma.platformValueUseCase.updateMany({
      where: { ...scoped(scope), id },
      data: toDbJson<Prisma.PlatformValueUseCaseUncheckedUpdateManyInput>(data, ["measurementModel"]),
    });
    if (count === 0) return null;
  }
  return findUseCase(prisma, scope, id);
}

export interface NewObservation {
  kind: string;
  evidenceLevel: string;
  title: string;
  amountMicros: bigint | null;
  metricName: string | null;
  metricValue: number | null;
  metricUnit: string | null;
  evidence: JsonValue;
  sourceRunId: number | null;
  observedAt: Date;
}

export const insertObservation = (prisma: PrismaClient, useCaseId: number, data: NewObservation) =>
  prisma.platformValueObservation.create({ data: { useCaseId, ...data, evidence: json(data.evidence) }, include: observationInclude });

/** The use case's observations, newest first, after the cursor; limit + 1 rows. */
export const listObservations = (prisma: PrismaClient, useCaseId: number, page: { limit: number; startingAfter?: number }) =>
  prisma.platformValueObservation.findMany({
    where: { useCaseId, ...(page.startingAfter !== undefined ? { id: { lt: page.startingAfter } } : {}) },
    orderBy: { id: "desc" },
    take: page.limit + 1,
    include: observationInclude,
  });

export const findObservation = (prisma: PrismaClient, scope: ValueScope, id: number) =>
  prisma.platformValueObservation.findFirst({ where: { id, useCase: scoped(scope) }, include: observationInclude });

/**
 * Records a decision on a pending observation. Null when it was no longer pending (another decision
 * won): the update's condition, not a read before it, decides.
 */
export async function decideObservation(
  prisma: PrismaClient,
  scope: ValueScope,
  id: number,
  decision: { status: string; decidedByKeyId: number; decidedAt: Date },
): Promise<ObservationRow | null> {
  const { count } = await prisma.platformValueObservation.updateMany({
    where: { id, status: "pending", useCase: scoped(scope) },
    data: decision,
  });
  return count === 0 ? null : findObservation(prisma, scope, id);
}

/** Links the runs (already checked to be the use case's scope's); returns how many were new. */
export async function linkRuns(prisma: PrismaClient, useCaseId: number, runIds: number[]): Promise<number> {
  const { count } = await prisma.platformValueRunLink.createMany({
    data: runIds.map((runId) => ({ useCaseId, runId })),
    skipDuplicates: true,
  });
  return count;
}

export const countLinkedRuns = (prisma: PrismaClient, useCaseId: number) => prisma.platformValueRunLink.count({ where: { useCaseId } });

/** The scope's use cases (oldest first) with their linked run ids, for the report. */
export const useCasesForReport = (prisma: PrismaClient, scope: ValueScope) =>
  prisma.platformValueUseCase.findMany({
    where: scoped(scope),
    orderBy: { id: "asc" },
    select: { id: true, name: true, status: true, runLinks: { select: { runId: true } } },
  });

export interface ObservationSum {
  useCaseId: number;
  status: string;
  evidenceLevel: string;
  count: number;
  amountMicros: bigint;
}

/** Observations of the use cases observed in [since, until), summed by use case, status and evidence level. */
export async function observationSums(prisma: PrismaClient, useCaseIds: number[], since: Date, until: Date): Promise<ObservationSum[]> {
  if (useCaseIds.length === 0) return [];
  const rows = await prisma.platformValueObservation.groupBy({
    by: ["useCaseId", "status", "evidenceLevel"],
    where: { useCaseId: { in: useCaseIds }, observedAt: { gte: since, lt: until } },
    _count: { _all: true },
    _sum: { amountMicros: true },
  });
  return rows.map((row) => ({
    useCaseId: row.useCaseId,
    status: row.status,
    evidenceLevel: row.evidenceLevel,
    count: row._count._all,
    amountMicros: row._sum.amountMicros ?? 0n,
  }));
}
