// A run's event log: appending frames (with the NOTIFY that wakes other instances), reading past a cursor.
import type { PrismaClient } from "@/server/generated/prisma/client";
import { Prisma } from "@/server/generated/prisma/client";
import type { RunFrame } from "@inlay/core/schemas/runs";
import { queryRows } from "./direct";
import { frameAfter } from "./run-event-compaction";

export interface StoredEvent {
  id: bigint;
  frame: RunFrame;
}


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

/**
 * True when the run's newest event is a `done` frame: the run is over and nothing follows. A reply
 * writes a `run_status` after the old `done`, so a replied run is not over until its next `done`.
 */
export async function hasDoneEvent(prisma: PrismaClient, runId: number): Promise<boolean> {
  const last = await prisma.platformRunEvent.findFirst({ where: { runId }, orderBy: { id: "desc" }, select: { type: true } });
  return last?.type === "done";
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
