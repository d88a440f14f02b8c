// The end of a run's pass (runtime/executor.ts): the run moves out of running (completed, failed, or
// awaiting_approval with its pending requests), gives up its lease and checkpoint, gets its webhook
// event in the outbox and settles what the pass cost. Whoever sees the new status also finds the
// requests, the event and the settled cost.
//
// It is one statement, on the driver where there is one (direct.ts). It runs once per run at least,
// and it locks the account's row, which every admission and settlement of the account also needs: as
// one statement the lock is held for its execution and commit only, where a transaction would also
// hold it across round trips (the busiest account's runs queue on that row).
import { Prisma } from "@/server/generated/prisma/client";
import type { PrismaClient } from "@/server/generated/prisma/client";
import { settlementSql } from "./billing";
import { queryRows } from "./direct";
import type { NewRequest } from "./permission-requests";
import { fromColumns } from "./raw-rows";
import type { RunRow } from "./runs";

export interface RunPassEnd {
  runId: number;
  status: "completed" | "failed" | "awaiting_approval";
  /** Whether the status ends the run (its hold is then given back). */
  ending: boolean;
  /** The conversation to store (undefined: unchanged). */
  messages?: unknown[];
  /** Steps this pass took, added to turns_used. */
  steps?: number;
  /** Written when given; null writes NULL. */
  output?: string | null;
  outputData?: unknown;
  error?: string;
  stopReason?: string | null;
  finishedAt?: Date;
  /** The pass saved a checkpoint, which an ended pass drops. */
  clearCheckpoint: boolean;
  /** Pending requests for a person (awaiting_approval). */
  requests?: NewRequest[];
  /**
   * The outbox event, its payload as the caller builds it for the moved run; `user_id` and
   * `permission_mode` are filled in here from the database (a PATCH may change the mode mid-run).
   */
  webhook: { type: string; payload: Prisma.InputJsonObject };
}

const json = (value: unknown) => JSON.stringify(value);

/** Ends the pass: the run as moved, or null (nothing written) when it was not running any more. */
export async function endRunPass(prisma: PrismaClient, end: RunPassEnd): Promise<RunRow | null> {
  // Column names come from this list, never from input.
  const sets: Prisma.Sql[] = [
    Prisma.sql`status = ${end.status}`,
    Prisma.sql`lease_owner = NULL`,
    Prisma.sql`lease_expires_at = NULL`,
    Prisma.sql`updated_at = now()`,
    // Settled in this statement (settlementSql's plan).
    Prisma.sql`settled_micros = plan.cost`,
    Prisma.sql`hold_micros = plan.hold_after`,
  ];
  if (end.messages !== undefined) sets.push(Prisma.sql`messages = ${json(end.messages)}::jsonb`);
  if (end.steps) sets.push(Prisma.sql`turns_used = run.turns_used + ${end.steps}`);
  if (end.output !== undefined) sets.push(end.output === null ? Prisma.sql`output = NULL` : Prisma.sql`output = ${json(end.output)}::jsonb`);
  if (end.outputData !== undefined) {
    sets.push(end.outputData === null ? Prisma.sql`output_data = NULL` : Prisma.sql`output_data = ${json(end.outputData)}::jsonb`);
  }
  if (end.error !== undefined) sets.push(Prisma.sql`error = ${end.error}`);
  if (end.stopReason !== undefined) sets.push(Prisma.sql`stop_reason = ${end.stopReason}`);
  if (end.finishedAt !== undefined) sets.push(Prisma.sql`finished_at = ${end.finishedAt}`);
  if (end.clearCheckpoint) sets.push(Prisma.sql`checkpoint = NULL`);

  const settlement = settlementSql({ gate: "moved" });
  const requests = (end.requests ?? []).map((request) => ({
    id: request.id,
    kind: request.kind,
    tool_name: request.toolName,
    tool_call_id: request.toolCallId,
    input: request.input,
  }));
  const [moved] = await queryRows<Record<string, unknown>>(
    prisma,
    Prisma.sql`
      WITH run_before AS (
        SELECT id, account_id, model, cost_micros AS cost, settled_micros AS settled, hold_micros AS hold, ${end.ending}::boolean AS ending
        FROM platform_runs WHERE id = ${end.runId}
      ),
      ${settlement.plan},
      moved AS (
        -- The money columns as the plan read them, or no move (a concurrent settlement: see settlementSql).
        UPDATE platform_runs run SET ${Prisma.join(sets, ", ")}
        FROM plan
        WHERE run.id = plan.id AND run.status = 'running'
          AND run.cost_micros = plan.cost AND run.settled_micros = plan.settled AND run.hold_micros = plan.hold
        RETURNING run.*
      ),
      event AS (
        INSERT INTO platform_webhook_events (account_id, end_user_id, run_id, type, payload, created_at)
        SELECT moved.account_id, moved.end_user_id, moved.id, ${end.webhook.type},
          ${json(end.webhook.payload)}::jsonb || jsonb_build_object(
            'user_id', (SELECT external_id FROM platform_end_users WHERE id = moved.end_user_id),
            'permission_mode', moved.permission_mode),
          now()
        FROM moved
      ),
      requests AS (
        INSERT INTO platform_permission_requests (id, run_id, kind, tool_name, tool_call_id, input)
        SELECT r.id, moved.id, r.kind, r.tool_name, r.tool_call_id, r.input
        FROM moved, jsonb_to_recordset(${json(requests)}::jsonb) AS r(id text, kind text, tool_name text, tool_call_id text, input jsonb)
      ),
      ${settlement.charge}
      SELECT * FROM moved`,
  );
  return moved ? fromColumns<RunRow>(moved) : null;
}
