// The framework's run ledger: every run or reply the framework starts for a member (tRPC runs and
// replies, the chat and the embed, a schedule's "run now", a schedule's fire adopted by the sweep)
// goes through it, so admission, refusal and settlement happen in one place:
//
//   begin        admitRun: the tenant's limits and the member's cap, reserved (limits.ts); a new
//                run counts in the month's runs, a reply (the same run) does not
//   started      the platform accepted the turn: the admission names its run and the run's cost so far
//   refused      the platform refused it (no run): withdrawn, a new run's count given back
//   abandoned    it failed and may or may not have started: released, nothing known to charge
//   settled      the run ended: its exact cost (usage.cost_usd, micro-USD) charged, the admission released
//
// Settlement comes from the chat stream that saw its run end (the run it read there), from the
// platform's signed run.* webhooks (app/api/platform-webhooks, which calls settleRunFromPlatform) and,
// for a delivery that never came, from sweepRunLedger. A webhook only says
// "look at run N": the run's current state is read from the platform, so an out-of-order delivery (a
// run.completed arriving after a reply reopened the run) settles nothing, and the settlement itself is
// a compare-and-set on the admission (run-ledger-repository.ts), so duplicates charge once. Reads
// (runs.get, runs.list) never settle.
import { NotFoundError } from "@inlay/core/platform-client";
import { usdToMicros } from "@inlay/core/money";
import { isSettledStatus } from "@inlay/core/schemas/runs";
import { logger } from "@/lib/logger";
import type { Db } from "@/server/shared/db";
import { ledgerSettled, ledgerSettleLag } from "@/server/framework/observability/metrics";
import { admitRun, admitStartedRun, releaseRun, withdrawRun, type TurnKind } from "./limits";
import type { PlatformConnection } from "./platform-connection";
import {
  countOpenAdmissions,
  listOpenAdmissionsOfRun,
  listStaleStartedAdmissions,
  listUnstartedAdmissions,
  markAdmissionStarted,
  settleAdmission,
} from "./run-ledger-repository";

/** "0.001234" USD → 1234 micro-USD, exactly (no float, no rounding); 0 for what is not an amount. */
export function costMicrosOf(costUsd: string): number {
  return Number(usdToMicros(costUsd) ?? 0n);
}

/** A run's state as far as the ledger needs it (a Run or a RunListItem). */
export interface LedgerRun {
  id: number;
  status: string;
  usage: { cost_usd: string };
  /** When it ended (the settle lag's start), when known. */
  finished_at?: string | null;
}

/**
 * What told the ledger to settle (the metric's label): a webhook, the sweep, the platform's answer at
 * start or at a reply, or the chat stream that saw the run end.
 */
export type SettledVia = "webhook" | "sweep" | "start" | "reply" | "stream";

export interface RunTicket {
  tenantId: string;
  userId: string;
  admissionId: string;
  /** A new run (counted in the month's runs) or a reply on one; absent: a new run. */
  kind?: TurnKind;
}

/**
 * Admits a new run (`kind` "run", the default) or a reply on one (`kind` "reply": the same run, so not
 * counted again) for the member; throws LimitExceededError when a limit refuses it.
 */
export async function beginRun(
  prisma: Db,
  member: { tenantId: string; userId: string },
  { kind = "run", now }: { kind?: TurnKind; now?: Date } = {},
): Promise<RunTicket> {
  const { admissionId } = await admitRun(prisma, { ...member, kind }, now);
  return { tenantId: member.tenantId, userId: member.userId, admissionId, kind };
}

/** Opens the admission of a run the platform started by itself (a schedule's fire): nothing refuses it. */
export async function beginStartedRun(prisma: Db, member: { tenantId: string; userId: string }): Promise<RunTicket> {
  const { admissionId } = await admitStartedRun(prisma, member);
  return { tenantId: member.tenantId, userId: member.userId, admissionId, kind: "run" };
}

/**
 * The platform accepted the turn on run `runId`, which had cost `baseCostUsd` before it (a reply's
 * run; "0" for a new one). An earlier turn of the same run still open ended when this one was
 * accepted: it is settled at that cost, so the two never count the same micro-USD. When `run` (the
 * platform's answer) has ended already, the turn is settled at once.
 */
export async function runStarted(
  prisma: Db,
  ticket: RunTicket,
  runId: number,
  { baseCostUsd = "0", run }: { baseCostUsd?: string; run?: LedgerRun } = {},
): Promise<void> {
  const baseCostMicros = costMicrosOf(baseCostUsd);
  // Only a reply's run can have an earlier turn open; a new run has none.
  const earlierTurns = ticket.kind === "reply" ? await listOpenAdmissionsOfRun(prisma, runId) : [];
  for (const earlier of earlierTurns) {
    if (earlier.id !== ticket.admissionId && (await settleAdmission(prisma, earlier, baseCostMicros))) ledgerSettled.inc({ via: "reply" });
  }
  await markAdmissionStarted(prisma, { tenantId: ticket.tenantId, admissionId: ticket.admissionId, platformRunId: runId, baseCostMicros });
  if (run && isSettledStatus(run.status)) await settleRun(prisma, run, "start");
}

/** The platform refused the turn (no run): the admission is given back whole (a new run's count with it). */
export async function runRefused(prisma: Db, ticket: RunTicket): Promise<void> {
  await withdrawRun(prisma, { tenantId: ticket.tenantId, admissionId: ticket.admissionId, kind: ticket.kind });
}

/** The start failed in a way that may have started a run nobody can name: released, nothing charged. */
export async function runAbandoned(prisma: Db, ticket: RunTicket): Promise<void> {
  await releaseRun(prisma, { tenantId: ticket.tenantId, admissionId: ticket.admissionId });
}

/**
 * Settles the open turns of `run` when it has ended, at its total cost. Idempotent: a turn settled
 * already is left alone. Returns how many turns this call settled.
 */
export async function settleRun(prisma: Db, run: LedgerRun, via: SettledVia = "reply"): Promise<number> {
  if (!isSettledStatus(run.status)) return 0;
  const total = costMicrosOf(run.usage.cost_usd);
  let settled = 0;
  for (const admission of await listOpenAdmissionsOfRun(prisma, run.id)) {
    if (await settleAdmission(prisma, admission, total)) settled++;
  }
  counted(run, via, settled);
  return settled;
}

/**
 * Settles the one turn `ticket` admitted on `run` when it has ended (its stream saw the end): as
 * settleRun without looking for the run's other turns (a reply settled the turn before it when it
 * started; one left open is the webhook's or the sweep's). True when this call settled it.
 */
export async function settleTurn(prisma: Db, ticket: RunTicket, run: LedgerRun, via: SettledVia): Promise<boolean> {
  if (!isSettledStatus(run.status)) return false;
  const settled = (await settleAdmission(prisma, { id: ticket.admissionId, tenantId: ticket.tenantId }, costMicrosOf(run.usage.cost_usd))) !== null;
  counted(run, via, settled ? 1 : 0);
  return settled;
}

/** The ledger's metrics for `settled` turns of `run` settled now. */
function counted(run: LedgerRun, via: SettledVia, settled: number): void {
  if (settled === 0) return;
  ledgerSettled.inc({ via }, settled);
  const endedAt = run.finished_at ? Date.parse(run.finished_at) : Number.NaN;
  if (Number.isFinite(endedAt)) for (let turn = 0; turn < settled; turn++) ledgerSettleLag.observe(Math.max(0, (Date.now() - endedAt) / 1000));
}

/** Admissions not settled yet, across the installation (the metric's gauge, read when scraped). */
export const openAdmissionCount = (prisma: Db): Promise<number> => countOpenAdmissions(prisma);

/**
 * What a run.* webhook (or the sweep) does: reads run `runId` on the platform, as the member whose turn
 * it is, and settles its open turns if it has ended. A run the platform no longer knows releases its
 * turns without a charge. Nothing happens for a run no open admission names (not the framework's,
 * or settled already).
 */
export async function settleRunFromPlatform(
  prisma: Db,
  connection: PlatformConnection,
  runId: number,
  via: SettledVia = "webhook",
): Promise<number> {
  const open = await listOpenAdmissionsOfRun(prisma, runId);
  const platformUserId = open.find((admission) => admission.platformUserId)?.platformUserId;
  if (!platformUserId) return 0;
  try {
    return await settleRun(prisma, await connection.client.forUser(platformUserId).runs.get(runId), via);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    let released = 0;
    for (const admission of open) if (await settleAdmission(prisma, admission, admission.baseCostMicros)) released++;
    ledgerSettled.inc({ via }, released);
    return released;
  }
}

/**
 * The ledger's reconciliation, every minute (framework-jobs.ts): turns started more than `staleMs` ago
 * and still open (their webhook was missed, or not registered) are settled from the platform as a
 * webhook would; admissions that never named a run (the process died between admission and the
 * platform's answer) are released after `orphanMs`. Safe on every instance at once: each settlement
 * is a compare-and-set.
 */
export async function sweepRunLedger(
  prisma: Db,
  connection: PlatformConnection,
  { staleMs = 60_000, orphanMs = 10 * 60_000, now = new Date(), batch = 100 } = {},
): Promise<{ settled: number; orphans: number }> {
  let settled = 0;
  const seen = new Set<number>();
  for (const admission of await listStaleStartedAdmissions(prisma, new Date(now.getTime() - staleMs), batch)) {
    if (seen.has(admission.platformRunId)) continue;
    seen.add(admission.platformRunId);
    try {
      settled += await settleRunFromPlatform(prisma, connection, admission.platformRunId, "sweep");
    } catch (error) {
      // One run the platform cannot answer for now must not hold up the others.
      logger.warn({ err: error, runId: admission.platformRunId }, "run ledger sweep: could not settle a run");
    }
  }
  let orphans = 0;
  for (const admission of await listUnstartedAdmissions(prisma, new Date(now.getTime() - orphanMs), batch)) {
    if (await releaseRun(prisma, { tenantId: admission.tenantId, admissionId: admission.id })) orphans++;
  }
  return { settled, orphans };
}
