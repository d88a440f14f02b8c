// The fast path of run creation (services/runs/run-admission.ts): admission and the writes of a new run in
// one SQL statement, one round trip, no transaction held open across the network. Data-modifying CTEs:
//
//   [key]   claim the Idempotency-Key, bound to the run's id (drawn first from the sequence)
//   hold    the conditional UPDATE of the account that reserves the run's hold; its WHERE clause is the
//           whole fast-path admission: verified email, no plan, an unreserved balance covering the hold, and
//           no per-end-user caps when the run has an end-user (anything else: the full path decides)
//   run     INSERT the run (lease already taken for this process), its first event (its id returned: the
//           POST's own stream starts from it), the webhook outbox row (run.started, when the scope has a
//           webhook), and the end-user's turn; with the lease, what the pass reads before the model too
//
// Every write after `hold` reads its RETURNING rows, so a refused hold writes nothing. With a key, the
// hold waits for the key (a duplicate request neither holds nor inserts anything), and the key is only
// tried when the account, as read by this statement, passes the same test. Should the hold still fail
// (the balance or settings changed in between), the key row would point at a run that was never
// inserted: its foreign key fails the statement, and all of it rolls back.
import type { PrismaClient } from "@/server/generated/prisma/client";
import { Prisma } from "@/server/generated/prisma/client";
import type { RunFrame } from "@inlay/core/schemas/runs";
import { RUN_LIFECYCLE } from "@inlay/core/schemas/run-lifecycle";
import type { KeyClaim } from "./idempotency-keys";
import { fromColumns } from "./raw-rows";
import { passReadsColumns, type PassReads, takePassReads } from "./run-leases";
import type { RunRow } from "./runs";
import { type WakeUp } from "./run-events";
import { queryRows } from "./direct";
import { dispatchedAtOnInsert, webhookInScope } from "./webhook-events";

export interface FastRunStart {
  accountId: number;
  /** The run's end-user; its turn is recorded, and caps on the account send the run to the full path. */
  endUserId: number | null;
  agentId: number;
  /** The task whose run this is; null otherwise. */
  taskId: number | null;
  permissionMode: string;
  humanInTheLoop: boolean;
  model: string;
  effort: string;
  tools: string[];
  /** The forced skill's slug and its playbook ({name, body}); none when absent. */
  skill?: string | null;
  skillPlaybook?: object | null;
  memory: boolean | null;
  history: boolean | null;
  taskSetupTools: boolean;
  feedback: boolean | null;
  emailNotifications: boolean;
  outputSchema: object | null;
  metadata: object | null;
  maxTurns: number;
  /** The conversation to store under the account's retention mode, decided by the statement. */
  messages: { standard: unknown[]; metadataOnly: unknown[] };
  first: RunFrame;
  /** The hold a run reserves at most (all of a smaller balance otherwise). */
  maxHoldMicros: bigint;
  /** The run.started outbox payload; the statement adds run_id. */
  webhookPayload: Record<string, unknown>;
  /**
   * The executor that will run it, which then needs no claim of its own: the statement also reads what
   * its pass reads before the model (PassReads, as the claim does), `passMemories` memories among them.
   */
  lease?: { owner: string; ms: number };
  passMemories: number;
  /** The admitting request's traceparent (tracing on). */
  traceContext?: string | null;
  /** An Idempotency-Key to claim for this run. */
  key?: KeyClaim;
  /**
   * The run-ready NOTIFY (infrastructure/signals.ts, Signals.notice) this statement sends with the run's
   * id once it commits, so no round trip of its own wakes the workers; only for a run without a lease.
   */
  wake?: WakeUp;
  /** When the end-user's turn is recorded and before when its older turns are forgotten. */
  turn?: { at: Date; forgetBefore: Date };
}

export type FastRunOutcome =
  /** `firstEventId`: the id of the run's first event, the statement's; `reads`: with a lease. */
  | { kind: "inserted"; run: RunRow; firstEventId: bigint; reads?: PassReads }
  /** The account needs the full admission (or was refused): nothing was written. */
  | { kind: "not_admitted" }
  /** Another request holds the Idempotency-Key: nothing was written. */
  | { kind: "key_taken" };

const json = (value: unknown) => (value === null ? null : JSON.stringify(value));

export async function startAdmittedRun(prisma: PrismaClient, start: FastRunStart): Promise<FastRunOutcome> {
  // An account on a plan takes the full path: its runs are counted under the plan row's lock.
  const accountTest = Prisma.sql`email_verified_at IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM platform_account_plans WHERE account_id = ${start.accountId})
      AND balance_micros > 0
      AND balance_micros - held_micros >= LEAST(${start.maxHoldMicros}::bigint, balance_micros)
      ${
        start.endUserId === null
          ? Prisma.empty
          : Prisma.sql`AND per_end_user_run_limit IS NULL AND per_end_user_cost_limit_cents IS NULL AND per_end_user_rate_per_minute IS NULL`
      }`;
  const key = start.key;
  const keyCtes = key
    ? Prisma.sql`
    rid AS (SELECT nextval('platform_runs_id_seq')::int AS id),
    admissible AS (SELECT 1 FROM platform_accounts WHERE id = ${start.accountId} AND ${accountTest}),
    claim AS (
      INSERT INTO platform_idempotency_keys (account_id, key, resource, request_hash, run_id, expires_at, created_at)
      SELECT ${start.accountId}, ${key.key}, 'run', ${key.requestHash}, rid.id, ${key.expiresAt}, now()
      FROM rid, admissible
      ON CONFLICT (account_id, key) DO NOTHING
      RETURNING id
    ),`
    : Prisma.empty;
  const lease = start.lease;
  const wake = lease ? undefined : start.wake;
  const turn = start.turn;
  const turnCtes =
    start.endUserId !== null && turn
      ? Prisma.sql`,
    forget AS (
      DELETE FROM platform_turns
      WHERE account_id = ${start.accountId} AND end_user_id = ${start.endUserId} AND created_at < ${turn.forgetBefore}
        AND EXISTS (SELECT 1 FROM run)
    ),
    turn AS (
      INSERT INTO platform_turns (account_id, end_user_id, kind, created_at)
      SELECT ${start.accountId}, ${start.endUserId}, 'start', ${turn.at} FROM run
    )`
      : Prisma.empty;
  const rows = await queryRows<Record<string, unknown>>(prisma, Prisma.sql`
    WITH ${keyCtes}
    hold AS (
      UPDATE platform_accounts SET held_micros = held_micros + LEAST(${start.maxHoldMicros}::bigint, balance_micros)
      WHERE id = ${start.accountId} AND ${accountTest}
        ${key ? Prisma.sql`AND EXISTS (SELECT 1 FROM claim)` : Prisma.empty}
      RETURNING LEAST(${start.maxHoldMicros}::bigint, balance_micros) AS micros, retention_mode = 'metadata_only' AS metadata_only
    ),
    run AS (
      INSERT INTO platform_runs (
        ${key ? Prisma.sql`id,` : Prisma.empty} account_id, end_user_id, agent_id, task_id, status, permission_mode, human_in_the_loop,
        model, effort, skill, skill_playbook, tools, memory, history, task_setup_tools, feedback, email_notifications, output_schema, metadata,
        max_turns, retention, messages, hold_micros, lease_owner, lease_expires_at, trace_context, created_at, updated_at)
      SELECT ${key ? Prisma.sql`rid.id,` : Prisma.empty} ${start.accountId}, ${start.endUserId}::int, ${start.agentId}, ${start.taskId}::int, ${RUN_LIFECYCLE.start.to}::text,
        ${start.permissionMode}, ${start.humanInTheLoop}, ${start.model}, ${start.effort}, ${start.skill ?? null}::text, ${json(start.skillPlaybook ?? null)}::jsonb, ${start.tools}::text[],
        ${start.memory}::boolean, ${start.history}::boolean, ${start.taskSetupTools}, ${start.feedback}::boolean,
        ${start.emailNotifications}, ${json(start.outputSchema)}::jsonb, ${json(start.metadata)}::jsonb, ${start.maxTurns},
        CASE WHEN hold.metadata_only THEN 'metadata_only' ELSE 'standard' END,
        CASE WHEN hold.metadata_only THEN ${json(start.messages.metadataOnly)}::jsonb ELSE ${json(start.messages.standard)}::jsonb END,
        hold.micros,
        ${lease?.owner ?? null}::text,
        ${lease ? Prisma.sql`now() + make_interval(secs => ${lease.ms / 1000})` : Prisma.sql`NULL::timestamptz`},
        ${start.traceContext ?? null}::text,
        now(), now()
      FROM hold ${key ? Prisma.sql`, rid` : Prisma.empty}
      RETURNING *
    ),
    event AS (
      INSERT INTO platform_run_events (run_id, type, data, created_at)
      SELECT id, ${start.first.type}, ${json(start.first)}::jsonb, now() FROM run
      RETURNING id
    ),
    outbox AS (
      INSERT INTO platform_webhook_events (account_id, end_user_id, run_id, type, payload, created_at, dispatched_at)
      SELECT account_id, end_user_id, id, ${String(start.webhookPayload.type)},
        ${json(start.webhookPayload)}::jsonb || jsonb_build_object('run_id', id), now(),
        ${dispatchedAtOnInsert(Prisma.sql`run.account_id`, Prisma.sql`run.end_user_id`, Prisma.sql`${String(start.webhookPayload.type)}::text`)}
      FROM run WHERE ${webhookInScope(Prisma.sql`run.account_id`, Prisma.sql`run.end_user_id`)}
    )${turnCtes}
    SELECT ${
      key
        ? Prisma.sql`EXISTS (SELECT 1 FROM admissible) AND NOT EXISTS (SELECT 1 FROM claim)`
        : Prisma.sql`false`
    } AS "keyTaken"${
      wake ? Prisma.sql`, CASE WHEN run.id IS NOT NULL THEN pg_notify(${wake.channel}, ${wake.prefix} || run.id::text) END AS "woken"` : Prisma.empty
    }${lease ? Prisma.sql`, ${passReadsColumns(Prisma.sql`run`, start.passMemories)}` : Prisma.empty}, (SELECT id FROM event) AS "firstEventId", run.*
    FROM (SELECT 1) AS one LEFT JOIN run ON true`);
  const { reads, rest } = takePassReads(rows[0]!);
  const { keyTaken, woken: _woken, firstEventId, ...row } = rest;
  if (row.id === null || row.id === undefined) return { kind: keyTaken === true ? "key_taken" : "not_admitted" };
  return { kind: "inserted", run: fromColumns<RunRow>(row), firstEventId: BigInt(firstEventId as bigint | number | string), ...(lease ? { reads } : {}) };
}

/** True for the error of a statement whose Idempotency-Key claim outlived a refused hold (see above). */
export function isOrphanKeyClaim(error: unknown): boolean {
  const text = error instanceof Error ? `${error.message} ${JSON.stringify((error as { meta?: unknown }).meta ?? {})}` : "";
  return text.includes("platform_idempotency_keys_run_id_fkey");
}
