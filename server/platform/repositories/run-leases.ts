// Leases: which worker executes a running run. A worker claims runs that wait (new, resumed, or whose
// worker died), renews its leases, and lets go of them or hands them back.
import type { PrismaClient } from "@/server/generated/prisma/client";
import { Prisma } from "@/server/generated/prisma/client";
import { fromColumns } from "./raw-rows";
import { agentFromJson, agentJsonOfRun, type AgentRow } from "./agents";
import { sealedEnvOfRun } from "./agent-repos";
import { recentMemoriesOfRun } from "./memories";
import { rememberedToolsOfRun } from "./permission-requests";
import { type RunToolSources, runToolSourcesOfRun } from "./run-tool-sources";
import { queryRows } from "./direct";
import type { RunRow } from "./runs";

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

/** What a run stores (platform_runs.retention): a worker thread claims only one kind (runtime/worker-thread.ts). */
export type RunRetention = "standard" | "metadata_only";

/**
 * Claims up to `limit` runs that wait for a worker, oldest first, for `owner`: `running` and either
 * never leased (just accepted, or resumed after a pause) or leased by a worker whose lease ran out
 * `graceMs` ago (it died; the attempt is counted). SKIP LOCKED lets workers claim side by side
 * without waiting for or taking each other's rows. With `retention`, only runs that store that way.
 */
export async function claimRuns(
  prisma: PrismaClient,
  owner: string,
  options: { limit: number; leaseMs: number; graceMs: number; memories: number; retention?: RunRetention },
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
        ${options.retention === undefined ? Prisma.empty : options.retention === "metadata_only" ? Prisma.sql`AND retention = 'metadata_only'` : Prisma.sql`AND retention <> 'metadata_only'`}
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
