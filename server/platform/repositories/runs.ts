// Run rows: insert, read, change. Every read is bound to the account and end-user scope. The run's
// event log is run-events.ts, its leases run-leases.ts, its checkpoint run-checkpoints.ts, its lists run-lists.ts.
import type { PlatformRun, PrismaClient } from "@/server/generated/prisma/client";
import { Prisma } from "@/server/generated/prisma/client";
import type { RunFrame } from "@inlay/core/schemas/runs";
import { RUN_LIFECYCLE, type RunTransitionName } from "@inlay/core/schemas/run-lifecycle";
import { insertRunFiles, type NewRunFile } from "./run-files";
import { type PlainJson, toDbJson } from "./db";

export type RunRow = PlatformRun;
const RUN_JSON = ["skillPlaybook", "outputSchema", "outputData", "output", "metadata", "messages", "checkpoint"] as const;
type RunJson = (typeof RUN_JSON)[number];
// No status in either: a run's status changes only by a named transition (packages/core/src/schemas/run-lifecycle.ts).
export type RunData = PlainJson<Omit<Prisma.PlatformRunUncheckedCreateInput, "accountId" | "endUserId" | "status">, RunJson>;
export type RunUpdate = PlainJson<Omit<Prisma.PlatformRunUncheckedUpdateInput, "status">, RunJson>;
const runUpdate = (data: RunUpdate) => toDbJson<Prisma.PlatformRunUncheckedUpdateInput>(data, RUN_JSON);

export interface ScopeKey {
  accountId: number;
  endUserId: number | null;
}

/** The run (RUN_LIFECYCLE.start), its first event and its attachments, inside a transaction the caller holds (run admission's). */
export async function insertRunIn(
  tx: PrismaClient,
  scope: ScopeKey,
  data: RunData,
  first: RunFrame,
  files: NewRunFile[] = [],
): Promise<RunRow> {
  const run = await tx.platformRun.create({
    data: {
      ...toDbJson<Prisma.PlatformRunUncheckedCreateInput>({ ...data, status: RUN_LIFECYCLE.start.to }, RUN_JSON),
      accountId: scope.accountId,
      endUserId: scope.endUserId,
    },
  });
  await tx.platformRunEvent.create({ data: { runId: run.id, type: first.type, data: first as Prisma.InputJsonObject } });
  if (files.length > 0) await insertRunFiles(tx, run.id, files);
  return run;
}

/**
 * A reply (RUN_LIFECYCLE.reply): the run moves back to running with `data`, its status frame and its
 * new attachments, inside the transaction the caller holds (run admission's). Returns the run and the
 * id of the last event before the reply (the reply's stream starts after it), or null when the run was
 * no longer finished.
 */
export async function reopenRunIn(
  tx: PrismaClient,
  id: number,
  data: RunUpdate,
  first: RunFrame,
  files: NewRunFile[] = [],
): Promise<{ run: RunRow; after: bigint } | null> {
  const { from, to } = RUN_LIFECYCLE.reply;
  const { count } = await tx.platformRun.updateMany({ where: { id, status: { in: [...from] } }, data: { ...runUpdate(data), status: to } });
  if (count === 0) return null;
  const last = await tx.platformRunEvent.findFirst({ where: { runId: id }, orderBy: { id: "desc" }, select: { id: true } });
  await tx.platformRunEvent.create({ data: { runId: id, type: first.type, data: first as Prisma.InputJsonObject } });
  if (files.length > 0) await insertRunFiles(tx, id, files);
  const run = await tx.platformRun.findUniqueOrThrow({ where: { id } });
  return { run, after: last?.id ?? 0n };
}

export const findRun = (prisma: PrismaClient, scope: ScopeKey, id: number) =>
  prisma.platformRun.findFirst({ where: { id, accountId: scope.accountId, endUserId: scope.endUserId } });

/**
 * A run anywhere in the account, with its end-user's external id: for an idempotent replay, which any
 * key of the account may ask for.
 */
export const findRunInAccount = (prisma: PrismaClient, accountId: number, id: number) =>
  prisma.platformRun.findFirst({ where: { id, accountId }, include: { endUser: { select: { externalId: true } } } });

export const findRunById = (prisma: PrismaClient, id: number) => prisma.platformRun.findUnique({ where: { id } });

/** The run's end-user as the API names it (null for an account-level run); undefined when there is no such run. */
export async function findRunUserId(prisma: PrismaClient, id: number): Promise<string | null | undefined> {
  const run = await prisma.platformRun.findUnique({ where: { id }, select: { endUser: { select: { externalId: true } } } });
  return run ? (run.endUser?.externalId ?? null) : undefined;
}

/** What a finished run answered, for the replies sent on its behalf. */
export const findRunOutcome = (prisma: PrismaClient, id: number) =>
  prisma.platformRun.findUnique({ where: { id }, select: { status: true, output: true, error: true, retention: true } });

/** Makes `transition` with `data` only while the run is in its `from`; returns null when it was not (a lost race). */
export async function transitionRun(
  prisma: PrismaClient,
  id: number,
  transition: RunTransitionName,
  data: RunUpdate,
): Promise<RunRow | null> {
  const { from, to } = RUN_LIFECYCLE[transition];
  const rows = await prisma.platformRun.updateManyAndReturn({ where: { id, status: { in: [...from] } }, data: { ...runUpdate(data), status: to } });
  return rows[0] ?? null;
}

const columnOf = (field: string) => Prisma.raw(field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`));
const isRunJson = (field: string) => (RUN_JSON as readonly string[]).includes(field);

/**
 * transitionRun's change as the SET list of a raw UPDATE of `alias` (a statement that writes the run's
 * change with others: repositories/billing.ts, endRunWithinHold): the transition's status and `data`.
 * Takes what the pass's end writes: plain values, JSON columns and `{ increment }`; anything else
 * throws rather than be written wrong. updated_at is set as Prisma's @updatedAt would.
 */
export function runSetSql(transition: RunTransitionName, data: RunUpdate, alias: string): Prisma.Sql {
  const sets: Prisma.Sql[] = [Prisma.sql`status = ${RUN_LIFECYCLE[transition].to}`];
  for (const [field, value] of Object.entries(data)) {
    if (value === undefined) continue;
    const column = columnOf(field);
    if (field === "status") throw new Error("runSetSql: a run's status is its transition's");
    if (isRunJson(field)) {
      sets.push(value === null ? Prisma.sql`${column} = NULL` : Prisma.sql`${column} = ${JSON.stringify(value)}::jsonb`);
    } else if (value === null || value instanceof Date || typeof value !== "object") {
      sets.push(Prisma.sql`${column} = ${value}`);
    } else if (Object.keys(value).length === 1 && "increment" in value && typeof value.increment === "number") {
      sets.push(Prisma.sql`${column} = ${Prisma.raw(alias)}.${column} + ${value.increment}`);
    } else {
      throw new Error(`runSetSql: ${field} is not a plain value`);
    }
  }
  if (!("updatedAt" in data)) sets.push(Prisma.sql`updated_at = now()`);
  return Prisma.join(sets, ", ");
}

/** A condition that `alias`'s columns hold the values `expected` gives (null included, JSON compared as jsonb). */
export function runMatchSql(expected: Partial<RunRow>, alias: string): Prisma.Sql {
  const parts = Object.entries(expected).flatMap(([field, value]) => {
    if (value === undefined) return [];
    const column = Prisma.sql`${Prisma.raw(alias)}.${columnOf(field)}`;
    if (value === null) return [Prisma.sql`${column} IS NULL`];
    if (isRunJson(field)) return [Prisma.sql`${column} = ${JSON.stringify(value)}::jsonb`];
    return [Prisma.sql`${column} = ${value}`];
  });
  return parts.length > 0 ? Prisma.join(parts, " AND ") : Prisma.sql`true`;
}

export const updateRun = (prisma: PrismaClient, id: number, data: RunUpdate) =>
  prisma.platformRun.update({ where: { id }, data: runUpdate(data) });
/** The traceparent the run was admitted under (observability/tracing.ts); null when none was recorded. */
export async function findRunTraceContext(prisma: PrismaClient, runId: number): Promise<string | null> {
  const row = await prisma.platformRun.findUnique({ where: { id: runId }, select: { traceContext: true } });
  return row?.traceContext ?? null;
}
