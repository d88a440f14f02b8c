// Value tracking: use cases in an owner scope (the account level or one end-user's, as for skills:
// neither sees the other's), sourced observations recorded against them and decided by confirm,
// runs linked to them, and the report that sets confirmed value against the linked runs' metered
// cost over a range of UTC days. Only confirmed observations count as value; pending ones are shown
// beside it. Choices are documented in docs/platform-api.md ("Value tracking").
import type { Page } from "@inlay/core/schemas/common";
import {
  type CreateObservationRequest,
  type CreateUseCaseRequest,
  EVIDENCE_LEVELS,
  type EvidenceEntry,
  type Observation,
  type UpdateUseCaseRequest,
  type UseCase,
  type ValueReport,
} from "@inlay/core/schemas/value";
import type { JsonArray, JsonObject } from "../../repositories/db";
import { PlatformError } from "../../errors";
import { agentDocumentExistsInScope } from "../../repositories/agents";
import { costByRun } from "../../repositories/billing";
import { endUserProfileExists } from "../../repositories/end-users";
import { runIdsInScope } from "../../repositories/run-lists";
import * as value from "../../repositories/value";
import type { ObservationRow, UseCaseRow } from "../../repositories/value";
import type { DataContext } from "../../infrastructure/hot-cache";
import type { AuthContext } from "../account/auth";
import { usdExact } from "../billing/billing";
import { toPage } from "../pagination";
import { resolveScope, type Scope } from "../scope";
import { utcDayRange } from "../billing/usage";

const MICROS_PER_USD = 1_000_000;

/** Dollars to micro-USD, rounded half away from zero (amount_usd is a JSON number). */
export const usdToMicros = (usd: number): bigint => BigInt(Math.sign(usd) * Math.round(Math.abs(usd) * MICROS_PER_USD));

const microsToUsd = (micros: bigint) => Number(micros) / MICROS_PER_USD;

export const toUseCase = (row: UseCaseRow): UseCase => ({
  id: row.id,
  name: row.name,
  goal: row.goal,
  measurement_model: (row.measurementModel as Record<string, unknown> | null) ?? null,
  responsible_user_id: row.responsibleUserId,
  source_run_id: row.sourceRunId,
  status: row.status as UseCase["status"],
  linked_run_count: row._count.runLinks,
  user_id: row.endUser?.externalId ?? null,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

export const toObservation = (row: ObservationRow): Observation => ({
  id: row.id,
  use_case_id: row.useCaseId,
  kind: row.kind as Observation["kind"],
  evidence_level: row.evidenceLevel as Observation["evidence_level"],
  title: row.title,
  amount_usd: row.amountMicros === null ? null : microsToUsd(row.amountMicros),
  metric_name: row.metricName,
  metric_value: row.metricValue,
  metric_unit: row.metricUnit,
  evidence: row.evidence as EvidenceEntry[],
  source_run_id: row.sourceRunId,
  observed_at: row.observedAt.toISOString(),
  status: row.status as Observation["status"],
  decided_at: row.decidedAt?.toISOString() ?? null,
  decided_by_key_id: row.decidedByKeyId,
  user_id: row.useCase.endUser?.externalId ?? null,
  created_at: row.createdAt.toISOString(),
});

const notFound = (what: string, id: number | string) => new PlatformError({ type: "not_found", message: `${what} ${id} not found` });

const invalid = (field: string, message: string) =>
  new PlatformError({ type: "validation_error", message: `${field}: ${message}`, details: { fields: [{ field, message }] } });

async function checkRun(ctx: DataContext, scope: Scope, id: number | undefined | null) {
  if (id === undefined || id === null) return;
  if (!(await runIdsInScope(ctx.prisma, scope, [id])).has(id)) throw notFound("run", id);
}

/**
 * responsible_user_id names an end-user profile: at the account level any of the account's, in an
 * end-user's scope only that end-user's own (another end-user is out of reach there, as everywhere).
 */
async function checkResponsibleUser(ctx: DataContext, scope: Scope, id: number | undefined | null) {
  if (id === undefined || id === null) return;
  const found = scope.endUserId === null ? await endUserProfileExists(ctx.prisma, scope.accountId, id) : id === scope.endUserId;
  if (!found) throw notFound("end-user profile", id);
}

async function findUseCaseOr404(ctx: DataContext, scope: Scope, id: number): Promise<UseCaseRow> {
  const row = await value.findUseCase(ctx.prisma, scope, id);
  if (!row) throw notFound("use case", id);
  return row;
}

/** New observations and links are refused on an archived use case: archived means no longer tracked. */
function ensureNotArchived(row: UseCaseRow) {
  if (row.status === "archived") {
    throw new PlatformError({
      type: "conflict_error",
      errorCode: "use_case_archived",
      message: `use case ${row.id} is archived; PATCH its status to active first`,
    });
  }
}

export async function createUseCase(ctx: DataContext, auth: AuthContext, userId: string | undefined, input: CreateUseCaseRequest): Promise<UseCase> {
  const scope = await resolveScope(ctx, auth, userId, { strict: true });
  await checkResponsibleUser(ctx, scope, input.responsible_user_id);
  await checkRun(ctx, scope, input.source_run_id);
  return toUseCase(
    await value.insertUseCase(ctx.prisma, scope, {
      name: input.name,
      goal: input.goal,
      ...(input.measurement_model !== undefined ? { measurementModel: input.measurement_model as JsonObject } : {}),
      responsibleUserId: input.responsible_user_id ?? null,
      sourceRunId: input.source_run_id ?? null,
    }),
  );
}

export async function listUseCases(
  ctx: DataContext,
  auth: AuthContext,
  userId: string | undefined,
  page: { limit: number; startingAfter?: number; status?: string },
): Promise<Page<UseCase>> {
  const scope = await resolveScope(ctx, auth, userId, { strict: true });
  return toPage(await value.listUseCases(ctx.prisma, scope, page), page.limit, toUseCase);
}

export async function getUseCase(ctx: DataContext, auth: AuthContext, userId: string | undefined, id: number): Promise<UseCase> {
  return toUseCase(await findUseCaseOr404(ctx, await resolveScope(ctx, auth, userId), id));
}

export async function updateUseCase(
  ctx: DataContext,
  auth: AuthContext,
  userId: string | undefined,
  id: number,
  input: UpdateUseCaseRequest,
): Promise<UseCase> {
  const scope = await resolveScope(ctx, auth, userId);
  // The use case first: a foreign id is 404 whatever else the body says.
  await findUseCaseOr404(ctx, scope, id);
  await checkResponsibleUser(ctx, scope, input.responsible_user_id);
  const row = await value.updateUseCase(ctx.prisma, scope, id, {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.goal !== undefined ? { goal: input.goal } : {}),
    ...(input.measurement_model !== undefined
      ? { measurementModel: input.measurement_model as JsonObject | null }
      : {}),
    ...(input.responsible_user_id !== undefined ? { responsibleUserId: input.responsible_user_id } : {}),
    ...(input.status !== undefined ? { status: input.status } : {}),
  });
  if (!row) throw notFound("use case", id);
  return toUseCase(row);
}

/** Each evidence entry that names one of our records must name one of the scope's. */
async function checkEvidence(ctx: DataContext, scope: Scope, evidence: EvidenceEntry[]) {
  for (const [index, entry] of evidence.entries()) {
    if (entry.source === "run") await checkRun(ctx, scope, Number(entry.record_id));
    if (entry.source === "tool_result") await checkRun(ctx, scope, entry.run_id);
    if (entry.source === "document" && !(await agentDocumentExistsInScope(ctx.prisma, scope, Number(entry.record_id)))) {
      throw new PlatformError({ type: "not_found", message: `evidence[${index}]: document ${entry.record_id} not found` });
    }
  }
}

// A clock a little ahead of ours is not an error: observed_at may be up to this far in our future.
const OBSERVED_AT_SKEW_MS = 5 * 60 * 1000;

export async function createObservation(
  ctx: DataContext,
  auth: AuthContext,
  userId: string | undefined,
  useCaseId: number,
  input: CreateObservationRequest,
  now = new Date(),
): Promise<Observation> {
  const scope = await resolveScope(ctx, auth, userId);
  const useCase = await findUseCaseOr404(ctx, scope, useCaseId);
  const observedAt = new Date(input.observed_at);
  if (observedAt.getTime() > now.getTime() + OBSERVED_AT_SKEW_MS) throw invalid("observed_at", "must not be in the future");
  ensureNotArchived(useCase);
  await checkRun(ctx, scope, input.source_run_id);
  await checkEvidence(ctx, scope, input.evidence);
  const row = await value.insertObservation(ctx.prisma, useCase.id, {
    kind: input.kind,
    evidenceLevel: input.evidence_level,
    title: input.title,
    amountMicros: input.amount_usd === undefined ? null : usdToMicros(input.amount_usd),
    metricName: input.metric_name ?? null,
    metricValue: input.metric_value ?? null,
    metricUnit: input.metric_unit ?? null,
    // Integer-looking ids of our records are stored as integers, so they read back as ids.
    evidence: input.evidence.map((entry) => ({
      ...entry,
      record_id: entry.source === "run" || entry.source === "document" ? Number(entry.record_id) : entry.record_id,
    })) as JsonArray,
    sourceRunId: input.source_run_id ?? null,
    observedAt,
  });
  return toObservation(row);
}

export async function listObservations(
  ctx: DataContext,
  auth: AuthContext,
  userId: string | undefined,
  useCaseId: number,
  page: { limit: number; startingAfter?: number },
): Promise<Page<Observation>> {
  const scope = await resolveScope(ctx, auth, userId);
  const useCase = await findUseCaseOr404(ctx, scope, useCaseId);
  return toPage(await value.listObservations(ctx.prisma, useCase.id, page), page.limit, toObservation);
}

/**
 * Decides a pending observation. Deciding again the same way answers the observation as it is (a
 * retry is harmless); the other way is 409 `observation_already_decided`: a decision is final.
 */
export async function confirmObservation(
  ctx: DataContext,
  auth: AuthContext,
  userId: string | undefined,
  id: number,
  decision: "confirmed" | "rejected",
  now = new Date(),
): Promise<Observation> {
  const scope = await resolveScope(ctx, auth, userId);
  const decided = await value.decideObservation(ctx.prisma, scope, id, { status: decision, decidedByKeyId: auth.keyId, decidedAt: now });
  if (decided) return toObservation(decided);
  const current = await value.findObservation(ctx.prisma, scope, id);
  if (!current) throw notFound("observation", id);
  if (current.status === decision) return toObservation(current);
  throw new PlatformError({
    type: "conflict_error",
    errorCode: "observation_already_decided",
    message: `observation ${id} was already ${current.status}`,
    details: { status: current.status },
  });
}

/** Links runs of the use case's scope; all or nothing: one unknown run is 404 and nothing is linked. */
export async function linkRuns(ctx: DataContext, auth: AuthContext, userId: string | undefined, useCaseId: number, runIds: number[]) {
  const scope = await resolveScope(ctx, auth, userId);
  const useCase = await findUseCaseOr404(ctx, scope, useCaseId);
  ensureNotArchived(useCase);
  const ids = [...new Set(runIds)].sort((a, b) => a - b);
  const found = await runIdsInScope(ctx.prisma, scope, ids);
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) throw notFound("run", missing);
  const added = await value.linkRuns(ctx.prisma, useCase.id, ids);
  return { use_case_id: useCase.id, run_ids: ids, added, linked_run_count: await value.countLinkedRuns(ctx.prisma, useCase.id) };
}

// ---------------------------------------------------------------------------------------------
// The report

type Figures = ValueReport["totals"];

interface Tally {
  value: Record<"pending" | "confirmed" | "rejected", bigint>;
  byLevel: Map<string, bigint>;
  counts: Record<"pending" | "confirmed" | "rejected", number>;
  runs: number;
  cost: bigint;
}

const emptyTally = (): Tally => ({
  value: { pending: 0n, confirmed: 0n, rejected: 0n },
  byLevel: new Map(),
  counts: { pending: 0, confirmed: 0, rejected: 0 },
  runs: 0,
  cost: 0n,
});

function addObservations(tally: Tally, sum: value.ObservationSum) {
  const status = sum.status as keyof Tally["value"];
  tally.value[status] += sum.amountMicros;
  tally.counts[status] += sum.count;
  if (status === "confirmed") tally.byLevel.set(sum.evidenceLevel, (tally.byLevel.get(sum.evidenceLevel) ?? 0n) + sum.amountMicros);
}

/** value / cost to 4 decimals, computed in integers so 1/3 reads 0.3333 however large the sums. */
const ratio = (valueMicros: bigint, costMicros: bigint): number | null =>
  costMicros === 0n ? null : Number((valueMicros * 10_000n) / costMicros) / 10_000;

function figures(tally: Tally): Figures {
  const confirmed = tally.value.confirmed;
  return {
    confirmed_value_usd: usdExact(confirmed),
    confirmed_value_micros: Number(confirmed),
    pending_value_usd: usdExact(tally.value.pending),
    rejected_value_usd: usdExact(tally.value.rejected),
    value_by_evidence_level: Object.fromEntries(
      EVIDENCE_LEVELS.map((level) => [level, usdExact(tally.byLevel.get(level) ?? 0n)]),
    ) as Figures["value_by_evidence_level"],
    observation_counts: { ...tally.counts },
    run_count: tally.runs,
    cost_usd: usdExact(tally.cost),
    cost_micros: Number(tally.cost),
    net_usd: usdExact(confirmed - tally.cost),
    net_micros: Number(confirmed - tally.cost),
    value_to_cost_ratio: ratio(confirmed, tally.cost),
  };
}

/**
 * Over the UTC days [start_date, end_date]: per use case of the scope, the value of observations
 * observed then (confirmed counts; pending and rejected shown) against what its linked runs were
 * metered at then (the usage records GET /usage/timeseries sums). A run linked to several use cases
 * counts in each; in the totals, once.
 */
export async function valueReport(
  ctx: DataContext,
  auth: AuthContext,
  userId: string | undefined,
  query: { start_date?: string; end_date?: string },
  now = new Date(),
): Promise<ValueReport> {
  const range = utcDayRange(query, now);
  const scope = await resolveScope(ctx, auth, userId, { strict: true });
  const useCases = await value.useCasesForReport(ctx.prisma, scope);
  const allRunIds = [...new Set(useCases.flatMap((useCase) => useCase.runLinks.map((link) => link.runId)))];
  const [sums, costs] = await Promise.all([
    value.observationSums(
      ctx.prisma,
      useCases.map((useCase) => useCase.id),
      range.since,
      range.until,
    ),
    costByRun(ctx.prisma, scope.accountId, allRunIds, range.since, range.until),
  ]);
  const tallies = new Map(useCases.map((useCase) => [useCase.id, emptyTally()]));
  const totals = emptyTally();
  for (const sum of sums) {
    addObservations(tallies.get(sum.useCaseId)!, sum);
    addObservations(totals, sum);
  }
  for (const useCase of useCases) {
    const tally = tallies.get(useCase.id)!;
    for (const { runId } of useCase.runLinks) {
      const cost = costs.get(runId);
      if (cost === undefined) continue;
      tally.runs += 1;
      tally.cost += cost;
    }
  }
  for (const cost of costs.values()) {
    totals.runs += 1;
    totals.cost += cost;
  }
  return {
    start_date: range.start,
    end_date: range.end,
    user_id: scope.userId,
    use_cases: useCases.map((useCase) => ({
      use_case_id: useCase.id,
      name: useCase.name,
      status: useCase.status as UseCase["status"],
      ...figures(tallies.get(useCase.id)!),
    })),
    totals: figures(totals),
  };
}
