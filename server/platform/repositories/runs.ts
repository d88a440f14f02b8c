// Runs and their event log. Every read is bound to the account and end-user scope.
import type { PlatformRun, PrismaClient } from "@/server/generated/prisma/client";
import { Prisma } from "@/server/generated/prisma/client";
import { ATTENTION_ORDER, WAITING_STATUSES } from "@/lib/schemas/run-constants";
import type { RunFrame } from "@/lib/schemas/runs";
import { fromColumns } from "./raw-rows";
import { agentFromJson, agentJsonOfRun, type AgentRow } from "./agents";
import { sealedEnvOfRun } from "./agent-repos";
import { recentMemoriesOfRun } from "./memories";
import { rememberedToolsOfRun } from "./permission-requests";
import { type RunToolSources, runToolSourcesOfRun } from "./run-tool-sources";
import { insertRunFiles, type NewRunFile } from "./run-files";
import { queryRows } from "./direct";
import { type JsonObject, type PlainJson, toDbJson } from "./db";
import { frameAfter } from "./run-event-compaction";

export type RunRow = PlatformRun;
const RUN_JSON = ["skillPlaybook", "outputSchema", "outputData", "output", "metadata", "messages", "checkpoint"] as const;
type RunJson = (typeof RUN_JSON)[number];
export type RunData = PlainJson<Omit<Prisma.PlatformRunUncheckedCreateInput, "accountId" | "endUserId">, RunJson>;
export type RunUpdate = PlainJson<Prisma.PlatformRunUncheckedUpdateInput, RunJson>;
const runUpdate = (data: RunUpdate) => toDbJson<Prisma.PlatformRunUncheckedUpdateInput>(data, RUN_JSON);

interface ScopeKey {
  accountId: number;
  endUserId: number | null;
}

export interface StoredEvent {
  id: bigint;
  frame: RunFrame;
}

/** The run, its first event and its attachments, inside a transaction the caller holds (run admission's). */
export async function insertRunIn(
  tx: PrismaClient,
  scope: ScopeKey,
  data: RunData,
  first: RunFrame,
  files: NewRunFile[] = [],
): Promise<RunRow> {
  const run = await tx.platformRun.create({ data: { ...toDbJson<Prisma.PlatformRunUncheckedCreateInput>(data, RUN_JSON), accountId: scope.accountId, endUserId: scope.endUserId } });
  await tx.platformRunEvent.create({ data: { runId: run.id, type: first.type, data: first as Prisma.InputJsonObject } });
  if (files.length > 0) await insertRunFiles(tx, run.id, files);
  return run;
}

/**
 * A reply: the run moves from one of `from` back to running with `data`, its status frame and its new
 * attachments, inside the transaction the caller holds (run admission's). Returns the run and the id
 * of the last event before the reply (the reply's stream starts after it), or null when the run was no
 * longer in `from`.
 */
export async function reopenRunIn(
  tx: PrismaClient,
  id: number,
  from: readonly string[],
  data: RunUpdate,
  first: RunFrame,
  files: NewRunFile[] = [],
): Promise<{ run: RunRow; after: bigint } | null> {
  const { count } = await tx.platformRun.updateMany({ where: { id, status: { in: [...from] } }, data: runUpdate(data) });
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

export async function listRuns(
  prisma: PrismaClient,
  scope: ScopeKey,
  options: { limit: number; startingAfter?: number; agentId?: number; taskId?: number; status?: string; allEndUsers: boolean },
): Promise<RunRow[]> {
  return prisma.platformRun.findMany({
    where: {
      accountId: scope.accountId,
      ...(options.allEndUsers ? {} : { endUserId: scope.endUserId }),
      ...(options.agentId !== undefined ? { agentId: options.agentId } : {}),
      ...(options.taskId !== undefined ? { taskId: options.taskId } : {}),
      ...(options.status !== undefined ? { status: options.status } : {}),
      ...(options.startingAfter !== undefined ? { id: { lt: options.startingAfter } } : {}),
    },
    orderBy: { id: "desc" },
    take: options.limit + 1,
  });
}

/** Changes a run only while it is in one of `from`; returns null when it was not (a lost race). */
export async function transitionRun(
  prisma: PrismaClient,
  id: number,
  from: readonly string[],
  data: RunUpdate,
): Promise<RunRow | null> {
  const rows = await prisma.platformRun.updateManyAndReturn({ where: { id, status: { in: [...from] } }, data: runUpdate(data) });
  return rows[0] ?? null;
}

const columnOf = (field: string) => Prisma.raw(field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`));
const isRunJson = (field: string) => (RUN_JSON as readonly string[]).includes(field);

/**
 * transitionRun's `data` as the SET list of a raw UPDATE of `alias` (a statement that writes the run's
 * change with others: repositories/billing.ts, endRunWithinHold). Takes what the pass's end writes:
 * plain values, JSON columns and `{ increment }`; anything else throws rather than be written wrong.
 * updated_at is set as Prisma's @updatedAt would.
 */
export function runSetSql(data: RunUpdate, alias: string): Prisma.Sql {
  const sets: Prisma.Sql[] = [];
  for (const [field, value] of Object.entries(data)) {
    if (value === undefined) continue;
    const column = columnOf(field);
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

export async function appendEvents(prisma: PrismaClient, runId: number, frames: RunFrame[]): Promise<void> {
  if (frames.length === 0) return;
  await prisma.platformRunEvent.createMany({
    data: frames.map((frame) => ({ runId, type: frame.type, data: frame as Prisma.InputJsonObject })),
  });
}

/** Frames to append to one run's log, and what appending them gave: their ids and the run's event before them. */
export interface EventAppend {
  runId: number;
  frames: RunFrame[];
}

export interface AppendedEvents {
  /** The id of the run's last event before these frames (0 when none), in the same snapshot. */
  after: bigint;
  /** The frames' ids, ascending, in the frames' order. */
  ids: bigint[];
  /** The statement that wrote them also woke the other instances (a WakeUp was given). */
  othersWoken?: boolean;
}

/**
 * A NOTIFY the append sends for each run it writes, on `channel` with `prefix` and a RunNotice as its
 * payload (infrastructure/signals.ts, Signals.notice): other instances learn of the frames as the
 * statement commits, with no round trip of its own, and take them from the payload without reading
 * the log when they fit in it.
 */
export interface WakeUp {
  channel: string;
  prefix: string;
}

/**
 * The part of a RunNotice's payload that holds the frames: NOTIFY refuses payloads of 8,000 bytes or
 * more, and the prefix and cursor take a few dozen; a run whose frames do not fit is named alone.
 */
export const NOTICE_EVENTS_MAX_BYTES = 7_600;

/** A RunNotice that carries its run's frames: `after` and `last` bound them; `events()` parses them. */
export interface NoticeBatch {
  after: bigint;
  last: bigint;
  events(): StoredEvent[];
}

/**
 * What the append's NOTIFY says of one run: "<runId>" alone (its frames did not fit: read the log), or
 * "<runId> <after> <last> <events>" with the frames as stored, `events` a JSON array of [id as text,
 * frame]. Every instance hears every run's NOTIFY: the frames are parsed only for one that follows it.
 */
export function parseRunNotice(payload: string): { runId: number; batch?: NoticeBatch } | undefined {
  const [id, after, last] = payload.split(" ", 3);
  const runId = Number(id);
  if (!Number.isSafeInteger(runId) || runId <= 0) return undefined;
  if (after === undefined || last === undefined || !/^\d+$/.test(after) || !/^\d+$/.test(last)) return { runId };
  const body = payload.slice(id!.length + after.length + last.length + 3);
  const events = () => (JSON.parse(body) as [string, RunFrame][]).map(([eventId, frame]) => ({ id: BigInt(eventId), frame }));
  return { runId, batch: { after: BigInt(after), last: BigInt(last), events } };
}

/**
 * The CTEs that append frames (`rows`: [runId, frame] in order) to their runs' logs: `input`, `prev`
 * (each run's last event id before them), `ins` (the INSERT, RETURNING run_id and id) and, with `wake`,
 * `woken` (the NOTIFY per run, with the frames as stored: parseRunNotice). `gate`: a condition the
 * INSERT needs (the statement that ends a pass writes its last frames only if the run ended).
 * A statement that has `woken` must read it: an unread CTE is not computed.
 */
export function eventAppendCtes(rows: readonly (readonly [number, RunFrame])[], wake?: WakeUp, gate?: Prisma.Sql): Prisma.Sql {
  // All parts of one statement share a snapshot, so `prev` does not see the rows `ins` adds; each
  // run's previous id is one backward step on the (run_id, id) index. `woken` sends the wake-ups with
  // the frames as stored: a NOTIFY is delivered when its transaction commits, so no reader is woken
  // before the frames are there (a CTE with a volatile function is computed whole, its unread column
  // included).
  return Prisma.sql`input AS (
      SELECT (f.value->>0)::int AS run_id, f.value->1 AS frame, f.n
      FROM jsonb_array_elements(${JSON.stringify(rows)}::jsonb) WITH ORDINALITY AS f(value, n)
    ),
    prev AS (
      SELECT r.run_id, (SELECT COALESCE(MAX(e.id), 0) FROM platform_run_events e WHERE e.run_id = r.run_id)::bigint AS id
      FROM (SELECT DISTINCT run_id FROM input) AS r
    ),
    ins AS (
      INSERT INTO platform_run_events (run_id, type, data)
      SELECT run_id, frame->>'type', frame FROM input ${gate ? Prisma.sql`WHERE ${gate}` : Prisma.empty} ORDER BY n
      RETURNING run_id, id${wake ? Prisma.sql`, data` : Prisma.empty}
    )${
      wake
        ? Prisma.sql`,
    woken AS (
      SELECT p.run_id, p.id, pg_notify(${wake.channel}, ${wake.prefix} || p.run_id::text ||
        CASE WHEN octet_length(b.events) <= ${NOTICE_EVENTS_MAX_BYTES} THEN ' ' || p.id::text || ' ' || b.last::text || ' ' || b.events ELSE '' END) AS sent
      FROM prev AS p
      JOIN (SELECT run_id, max(id) AS last, jsonb_agg(jsonb_build_array(id::text, data) ORDER BY id)::text AS events FROM ins GROUP BY run_id) AS b
        ON b.run_id = p.run_id
    )`
        : Prisma.empty
    }`;
}

/**
 * Appends the frames of several runs in one statement (one round trip, whatever the number of runs)
 * and returns, per append and in the same order, the ids of its frames and the id of its run's event
 * before them: what a local reader needs to take them without reading the log (infrastructure/event-bus.ts,
 * EventBatch). Two appends of one run chain: the second one's `after` is the first one's last id.
 */
export async function appendEventsOfRuns(prisma: PrismaClient, appends: EventAppend[], wake?: WakeUp): Promise<AppendedEvents[]> {
  const rows = appends.flatMap(({ runId, frames }) => frames.map((frame) => [runId, frame] as const));
  if (rows.length === 0) return appends.map(() => ({ after: 0n, ids: [] }));
  // Under load this is the busiest statement of all (one per round of the event writer): on the driver (direct.ts).
  const result = await queryRows<{ run_id: number; id: bigint; prev: boolean }>(
    prisma,
    Prisma.sql`
    WITH ${eventAppendCtes(rows, wake)}
    SELECT run_id, id, true AS prev FROM ${wake ? Prisma.raw("woken") : Prisma.raw("prev")}
    UNION ALL
    SELECT run_id, id, false AS prev FROM ins
    ORDER BY prev DESC, id`,
  );
  // One INSERT draws its ids in row order, so ascending ids pair with the rows in order.
  const last = new Map<number, bigint>();
  const ids: bigint[] = [];
  for (const row of result) {
    if (row.prev) last.set(row.run_id, BigInt(row.id));
    else ids.push(BigInt(row.id));
  }
  let next = 0;
  return appends.map(({ runId, frames }) => {
    const after = last.get(runId) ?? 0n;
    const mine = ids.slice(next, next + frames.length);
    next += frames.length;
    if (mine.length > 0) last.set(runId, mine.at(-1)!);
    return { after, ids: mine, ...(wake ? { othersWoken: true } : {}) };
  });
}

export async function eventsAfter(prisma: PrismaClient, runId: number, afterId: bigint, take: number): Promise<StoredEvent[]> {
  // Every stream reads the log when it starts (and to catch up): one of the hot statements (direct.ts).
  const rows = await queryRows<{ id: bigint; data: RunFrame }>(
    prisma,
    Prisma.sql`SELECT id, data FROM platform_run_events WHERE run_id = ${runId} AND id > ${afterId} ORDER BY id LIMIT ${take}`,
  );
  // A merged delta (repositories/run-event-compaction.ts) that begins at or before afterId yields only its later text.
  return rows.map((row) => ({ id: row.id, frame: frameAfter(row.data, afterId) }));
}

/** A run's events read past a cursor; `merged` when a row is a merged delta (its text depends on the cursor). */
export interface StoredEventOf extends StoredEvent {
  merged: boolean;
}

/**
 * eventsAfter for many runs in one statement (each from its own cursor, up to `take` each): how one
 * instance catches up with every run its readers follow after a wake-up (infrastructure/run-followers.ts).
 */
export async function eventsAfterEach(
  prisma: PrismaClient,
  cursors: { runId: number; after: bigint }[],
  take: number,
): Promise<Map<number, StoredEventOf[]>> {
  const read = new Map<number, StoredEventOf[]>();
  if (cursors.length === 0) return read;
  const input = JSON.stringify(cursors.map(({ runId, after }) => [runId, after.toString()]));
  const rows = await queryRows<{ run_id: number; id: bigint; data: RunFrame }>(
    prisma,
    Prisma.sql`
    SELECT c.run_id, e.id, e.data
    FROM (SELECT (f.value->>0)::int AS run_id, (f.value->>1)::bigint AS after FROM jsonb_array_elements(${input}::jsonb) AS f(value)) AS c
    CROSS JOIN LATERAL (
      SELECT id, data FROM platform_run_events WHERE run_id = c.run_id AND id > c.after ORDER BY id LIMIT ${take}
    ) AS e
    ORDER BY c.run_id, e.id`,
  );
  const after = new Map(cursors.map((cursor) => [cursor.runId, cursor.after]));
  for (const row of rows) {
    const runId = Number(row.run_id);
    const frame = frameAfter(row.data, after.get(runId)!);
    const events = read.get(runId) ?? [];
    events.push({ id: BigInt(row.id), frame, merged: "compacted" in row.data });
    read.set(runId, events);
  }
  return read;
}

/** A run a worker just claimed; `abandoned` when another worker held it and stopped renewing it. */
export interface ClaimedRun {
  run: RunRow;
  abandoned: boolean;
  /** The run's agent, read by the claim's statement (none when it is archived or gone). */
  agent?: AgentRow;
  /** What the pass reads before the model's first call, read by the claim's statement too. */
  reads: PassReads;
}

/** What a pass reads before the model's first call besides the run and its agent. */
export interface PassReads {
  /** The sealed env sets of the agent's repositories: its runs never output their values. */
  envSealed: string[];
  /** Whether the run's scope has app connections or tool servers that bring tools. */
  toolSources: RunToolSources;
  /**
   * The scope's newest memories, for the system prompt when the memory tool is on. Read whether it is
   * or not (that is decided in code, from the agent and the run): a bounded read in the claim's
   * statement costs less than a round trip of its own.
   */
  memories: string[];
  /** Tools a person allowed with remember=true in this run (a resumed run's): they need no approval again. */
  rememberedTools: string[];
  /** The run's end-user's user_id (null at the account level): its webhook events carry it. */
  userId: string | null;
}

/**
 * The columns a statement reading a run (`run` names its row: the claim's, or the admission's that
 * leases it) adds for what its pass reads before the model; `takePassReads` reads them back.
 */
export const passReadsColumns = (run: Prisma.Sql, memories: number) => Prisma.sql`
  ${sealedEnvOfRun(run)} AS "passEnvSealed", ${runToolSourcesOfRun(run)} AS "passToolSources",
  ${recentMemoriesOfRun(run, memories)} AS "passMemories", ${rememberedToolsOfRun(run)} AS "passRemembered",
  (SELECT e.external_id FROM platform_end_users e WHERE e.id = ${run}.end_user_id) AS "passUserId"`;

/** Splits a row read with passReadsColumns into the pass's reads and the rest of the row. */
export function takePassReads(row: Record<string, unknown>): { reads: PassReads; rest: Record<string, unknown> } {
  const { passEnvSealed, passToolSources, passMemories, passRemembered, passUserId, ...rest } = row;
  return {
    reads: {
      envSealed: passEnvSealed as string[],
      toolSources: passToolSources as RunToolSources,
      memories: passMemories as string[],
      rememberedTools: passRemembered as string[],
      userId: (passUserId as string | null) ?? null,
    },
    rest,
  };
}

/**
 * Claims up to `limit` runs that wait for a worker, oldest first, for `owner`: `running` and either
 * never leased (just accepted, or resumed after a pause) or leased by a worker whose lease ran out
 * `graceMs` ago (it died; the attempt is counted). SKIP LOCKED lets workers claim side by side
 * without waiting for or taking each other's rows.
 */
export async function claimRuns(
  prisma: PrismaClient,
  owner: string,
  options: { limit: number; leaseMs: number; graceMs: number; memories: number },
): Promise<ClaimedRun[]> {
  if (options.limit <= 0) return [];
  const rows = await queryRows<Record<string, unknown>>(
    prisma,
    Prisma.sql`
    WITH next AS (
      SELECT id, lease_owner IS NOT NULL AS abandoned FROM platform_runs
      WHERE status = 'running'
        AND (lease_owner IS NULL OR lease_expires_at < now() - make_interval(secs => ${options.graceMs / 1000}))
        -- A lapsed lease of this worker's own is a late renewal, not a death: the run still executes here.
        AND lease_owner IS DISTINCT FROM ${owner}
      ORDER BY id
      LIMIT ${options.limit}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE platform_runs AS r
    SET lease_owner = ${owner}, lease_expires_at = now() + make_interval(secs => ${options.leaseMs / 1000}),
        resume_attempts = r.resume_attempts + CASE WHEN next.abandoned THEN 1 ELSE 0 END
    FROM next WHERE r.id = next.id
    RETURNING r.*, next.abandoned AS "claimedAbandoned", ${agentJsonOfRun(Prisma.sql`r`)} AS "claimedAgent",
      ${passReadsColumns(Prisma.sql`r`, options.memories)}`,
  );
  return rows
    .map((columns) => {
      const { reads, rest } = takePassReads(columns);
      const { claimedAbandoned, claimedAgent, ...row } = rest;
      return {
        run: fromColumns<RunRow>(row),
        abandoned: claimedAbandoned === true,
        ...(claimedAgent ? { agent: agentFromJson(claimedAgent as Record<string, unknown>) } : {}),
        reads,
      };
    })
    .sort((a, b) => a.run.id - b.run.id);
}

/**
 * Extends `owner`'s leases on `runIds` (one statement for all of a worker's runs); returns the ids
 * another worker has taken over since (its lease had lapsed). A run this worker let go of, or that
 * ended, is neither renewed nor returned.
 */
export async function renewLeases(prisma: PrismaClient, owner: string, runIds: number[], leaseMs: number): Promise<Set<number>> {
  if (runIds.length === 0) return new Set();
  const rows = await queryRows<{ id: number }>(
    prisma,
    Prisma.sql`
    WITH renewed AS (
      UPDATE platform_runs SET lease_expires_at = now() + make_interval(secs => ${leaseMs / 1000})
      WHERE id = ANY(${runIds}::int[]) AND lease_owner = ${owner}
    )
    SELECT id FROM platform_runs
    WHERE id = ANY(${runIds}::int[]) AND status = 'running' AND lease_owner <> ${owner}`,
  );
  return new Set(rows.map((row) => row.id));
}

/** Gives up `owner`'s lease on the run; returns the run's status then (null when it no longer held it). */
export async function releaseLease(prisma: PrismaClient, runId: number, owner: string): Promise<string | null> {
  const rows = await queryRows<{ status: string }>(
    prisma,
    Prisma.sql`
    UPDATE platform_runs SET lease_owner = NULL, lease_expires_at = NULL
    WHERE id = ${runId} AND lease_owner = ${owner}
    RETURNING status`,
  );
  return rows[0]?.status ?? null;
}

/**
 * Hands a running run back (its worker drains): the lease lapses now, its owner kept, so the next
 * claim resumes it from its checkpoint as it would a dead worker's, without waiting for the lease. A
 * hand-back is not a failed attempt: the claim's count of it is taken back here in advance. False
 * when `owner` no longer held it (cancelled, ended, taken over).
 */
export async function handBackLease(prisma: PrismaClient, runId: number, owner: string): Promise<boolean> {
  const rows = await queryRows<{ id: number }>(
    prisma,
    Prisma.sql`
    UPDATE platform_runs SET lease_expires_at = to_timestamp(0), resume_attempts = resume_attempts - 1
    WHERE id = ${runId} AND lease_owner = ${owner} AND status = 'running'
    RETURNING id`,
  );
  return rows.length > 0;
}

/** The traceparent the run was admitted under (observability/tracing.ts); null when none was recorded. */
export async function findRunTraceContext(prisma: PrismaClient, runId: number): Promise<string | null> {
  const row = await prisma.platformRun.findUnique({ where: { id: runId }, select: { traceContext: true } });
  return row?.traceContext ?? null;
}

/**
 * True when the run's newest event is a `done` frame: the run is over and nothing follows. A reply
 * writes a `run_status` after the old `done`, so a replied run is not over until its next `done`.
 */
export async function hasDoneEvent(prisma: PrismaClient, runId: number): Promise<boolean> {
  const last = await prisma.platformRunEvent.findFirst({ where: { runId }, orderBy: { id: "desc" }, select: { type: true } });
  return last?.type === "done";
}

/** Stores the run's checkpoint while `owner` still holds it. */
export async function saveCheckpoint(prisma: PrismaClient, runId: number, owner: string, checkpoint: JsonObject) {
  await prisma.platformRun.updateMany({
    where: { id: runId, leaseOwner: owner, status: "running" },
    data: { checkpoint: checkpoint as Prisma.InputJsonObject },
  });
}

/**
 * Notes in the checkpoint that a tool with side effects is starting, with the run's last event id at
 * that moment (so a note left by an earlier execution of the run can be told apart).
 */
export async function markCheckpointUnsafe(prisma: PrismaClient, runId: number, owner: string, toolName: string) {
  await prisma.$executeRaw`
    UPDATE platform_runs SET checkpoint = COALESCE(checkpoint, '{}'::jsonb) || jsonb_build_object(
      'unsafe_tool', ${toolName}::text,
      'unsafe_at_event', (SELECT COALESCE(max(id), 0)::text FROM platform_run_events WHERE run_id = ${runId}))
    WHERE id = ${runId} AND lease_owner = ${owner}`;
}

/** Drops the checkpoint once the execution that wrote it has ended (completed, paused, failed). */
export async function clearCheckpoint(prisma: PrismaClient, runId: number) {
  await prisma.platformRun.updateMany({ where: { id: runId, status: { not: "running" } }, data: { checkpoint: Prisma.DbNull } });
}

export async function lastEventId(prisma: PrismaClient, runId: number): Promise<bigint> {
  const row = await prisma.platformRunEvent.findFirst({ where: { runId }, orderBy: { id: "desc" }, select: { id: true } });
  return row?.id ?? 0n;
}

/**
 * The last `run_status: running` frame: where the current execution of the run began. A resume's
 * notice (`resumed`) goes on the same execution: its checkpoint and the text said before it still count.
 */
export async function executionStartEventId(prisma: PrismaClient, runId: number): Promise<bigint> {
  const rows = await prisma.$queryRaw<{ id: bigint | null }[]>`
    SELECT max(id) AS id FROM platform_run_events
    WHERE run_id = ${runId} AND type = 'run_status' AND data->>'status' = 'running' AND NOT (data ? 'resumed')`;
  return rows[0]?.id ?? 0n;
}

export async function deleteEventsAfter(prisma: PrismaClient, runId: number, afterId: bigint): Promise<number> {
  const { count } = await prisma.platformRunEvent.deleteMany({ where: { runId, id: { gt: afterId } } });
  return count;
}

// ---------------------------------------------------------------------------------------------
// Run lists (GET /runs, /runs/activity, /runs/check, /runs/needs-you)

/** Where a list looks: one scope, or (allEndUsers) the account-level scope and every end-user's. */
export interface RunListScope extends ScopeKey {
  allEndUsers: boolean;
}

export interface RunListFilter {
  agentId?: number;
  taskId?: number;
  status?: string;
  archived: "exclude" | "only" | "include";
  excludePlatform: boolean;
}

export type RunListRow = Omit<RunRow, "messages"> & {
  messages?: RunRow["messages"];
  endUser: { externalId: string } | null;
};

/** Priority sort: ATTENTION_ORDER's groups first, in that order; every other status after them. */

export const priorityRank = (status: string) => {
  const rank = (ATTENTION_ORDER as readonly string[]).indexOf(status);
  return rank === -1 ? ATTENTION_ORDER.length : rank;
};

const priorityGroupWhere = (rank: number): Prisma.PlatformRunWhereInput =>
  rank < ATTENTION_ORDER.length ? { status: ATTENTION_ORDER[rank] } : { status: { notIn: [...ATTENTION_ORDER] } };

const listScopeWhere = (scope: RunListScope): Prisma.PlatformRunWhereInput => ({
  accountId: scope.accountId,
  ...(scope.allEndUsers ? {} : { endUserId: scope.endUserId }),
});

function listFilterWhere(filter: RunListFilter): Prisma.PlatformRunWhereInput[] {
  const where: Prisma.PlatformRunWhereInput[] = [];
  if (filter.agentId !== undefined) where.push({ agentId: filter.agentId });
  if (filter.taskId !== undefined) where.push({ taskId: filter.taskId });
  if (filter.status !== undefined) where.push({ status: filter.status });
  if (filter.archived === "exclude") where.push({ status: { not: "archived" } });
  if (filter.archived === "only") where.push({ status: "archived" });
  if (filter.excludePlatform) where.push({ surface: { not: "platform" } });
  return where;
}

/**
 * One page (limit + 1 rows, so the caller can tell has_more) of the scope's runs.
 *
 * sort "created": id descending, keyset on id. sort "priority": by priorityRank, then id descending;
 * the cursor is the last run's id, whose *current* status gives its rank, so the keyset is
 * (rank, id): the rest of its group below its id, then the later groups whole. One query per group,
 * at most four, each on the (account_id, end_user_id, id) index. Returns null when the cursor run is
 * not in the scope.
 */
export async function listRunPage(
  prisma: PrismaClient,
  scope: RunListScope,
  filter: RunListFilter,
  page: { limit: number; startingAfter?: number; sort: "created" | "priority"; withMessages: boolean },
): Promise<RunListRow[] | null> {
  const base = [listScopeWhere(scope), ...listFilterWhere(filter)];
  const query = {
    include: { endUser: { select: { externalId: true } } },
    ...(page.withMessages ? {} : { omit: { messages: true } }),
    orderBy: { id: "desc" as const },
  };
  if (page.sort === "created") {
    const idWhere = page.startingAfter !== undefined ? [{ id: { lt: page.startingAfter } }] : [];
    return prisma.platformRun.findMany({ ...query, where: { AND: [...base, ...idWhere] }, take: page.limit + 1 });
  }

  let fromRank = 0;
  let below: number | undefined;
  if (page.startingAfter !== undefined) {
    const cursor = await prisma.platformRun.findFirst({
      where: { AND: [listScopeWhere(scope), { id: page.startingAfter }] },
      select: { status: true },
    });
    if (!cursor) return null;
    fromRank = priorityRank(cursor.status);
    below = page.startingAfter;
  }
  const rows: RunListRow[] = [];
  for (let rank = fromRank; rank <= ATTENTION_ORDER.length && rows.length <= page.limit; rank++) {
    const idWhere = rank === fromRank && below !== undefined ? [{ id: { lt: below } }] : [];
    rows.push(
      ...(await prisma.platformRun.findMany({
        ...query,
        where: { AND: [...base, priorityGroupWhere(rank), ...idWhere] },
        take: page.limit + 1 - rows.length,
      })),
    );
  }
  return rows;
}

export interface RunCounts {
  byStatus: Record<string, number>;
  finishedTodayByStatus: Record<string, number>;
  startedToday: number;
  lastCreatedAt: Date | null;
}

const countsOf = (groups: { status: string; _count: { _all: number } }[]) =>
  Object.fromEntries(groups.map((group) => [group.status, group._count._all]));

/** Counts for GET /runs/activity: open runs by status, and what started and finished since `since`. */
export async function countRunActivity(prisma: PrismaClient, scope: ScopeKey, since: Date): Promise<RunCounts> {
  const where = { accountId: scope.accountId, endUserId: scope.endUserId };
  const [open, finished, startedToday, latest] = await Promise.all([
    prisma.platformRun.groupBy({ by: ["status"], where: { ...where, status: { in: [...ATTENTION_ORDER] } }, _count: { _all: true } }),
    prisma.platformRun.groupBy({ by: ["status"], where: { ...where, finishedAt: { gte: since } }, _count: { _all: true } }),
    prisma.platformRun.count({ where: { ...where, createdAt: { gte: since } } }),
    prisma.platformRun.aggregate({ where, _max: { createdAt: true } }),
  ]);
  return {
    byStatus: countsOf(open),
    finishedTodayByStatus: countsOf(finished),
    startedToday,
    lastCreatedAt: latest._max.createdAt,
  };
}

/** For GET /runs/check: the newest id and updated_at, and the open runs by status. Two small queries. */
export async function runFreshness(prisma: PrismaClient, scope: ScopeKey) {
  const where = { accountId: scope.accountId, endUserId: scope.endUserId };
  const [latest, open] = await Promise.all([
    prisma.platformRun.aggregate({ where, _max: { id: true, updatedAt: true } }),
    prisma.platformRun.groupBy({ by: ["status"], where: { ...where, status: { in: [...ATTENTION_ORDER] } }, _count: { _all: true } }),
  ]);
  return { latestId: latest._max.id, latestUpdatedAt: latest._max.updatedAt, byStatus: countsOf(open) };
}

/** GET /runs/needs-you: runs waiting for a person, newest first, with their pending requests. */
export const listRunsNeedingPerson = (
  prisma: PrismaClient,
  scope: ScopeKey,
  page: { limit: number; startingAfter?: number },
) =>
  prisma.platformRun.findMany({
    where: {
      accountId: scope.accountId,
      endUserId: scope.endUserId,
      status: { in: [...WAITING_STATUSES] },
      ...(page.startingAfter !== undefined ? { id: { lt: page.startingAfter } } : {}),
    },
    omit: { messages: true },
    include: {
      permissionRequests: {
        where: { status: "pending" },
        orderBy: { createdAt: "asc" },
        select: { id: true, toolName: true, kind: true, createdAt: true },
      },
    },
    orderBy: { id: "desc" },
    take: page.limit + 1,
  });

/** Which of `ids` are runs of the scope (value tracking links and evidence name runs by id). */
export async function runIdsInScope(prisma: PrismaClient, scope: ScopeKey, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await prisma.platformRun.findMany({
    where: { id: { in: ids }, accountId: scope.accountId, endUserId: scope.endUserId },
    select: { id: true },
  });
  return new Set(rows.map((row) => row.id));
}

/**
 * The operator's view (npm run inlay -- runs stuck), across every account: runs still `running` whose
 * lease lapsed before `now` (no worker renews it), or that waited for a worker since before `cutoff`,
 * or that started before `cutoff` and still run. Oldest first, at most `limit`.
 */
export const listStuckRuns = (prisma: PrismaClient, options: { now: Date; cutoff: Date; limit: number }) =>
  prisma.platformRun.findMany({
    where: {
      status: "running",
      OR: [
        { leaseOwner: { not: null }, leaseExpiresAt: { lt: options.now } },
        { leaseOwner: null, updatedAt: { lt: options.cutoff } },
        { createdAt: { lt: options.cutoff } },
      ],
    },
    select: {
      id: true,
      accountId: true,
      endUserId: true,
      agentId: true,
      status: true,
      leaseOwner: true,
      leaseExpiresAt: true,
      resumeAttempts: true,
      createdAt: true,
      updatedAt: true,
    },
    orderBy: { id: "asc" },
    take: options.limit,
  });

export type StuckRunRow = Awaited<ReturnType<typeof listStuckRuns>>[number];
