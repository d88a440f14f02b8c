// Runs a member starts through the framework. Each start and each reply first passes admitRun (the
// tenant's limits and the member's cap, database counters); the admission is recorded with the run
// (tenant_runs.admission_id) and released when the run is seen to have ended: by runs.get/list
// polling, by cancel, or by sweepRunAdmissions (a periodic sweep for runs nobody polled and for
// admissions whose process died before the platform answered). The run's cost (usage.cost_usd, in
// exact micro-USD, as the platform's ledger debits it) is charged to the admission as it grows, by
// compare-and-set on the charged total so two pollers never charge twice.
import { listOfferedApps } from "./apps-repository";
import { isRefusal, NotFoundError, type PlatformClient, type Run, type RunListItem } from "@/lib/platform-client";
import type { Db } from "@/server/shared/db";
import { ensureAgentCopy, getVisibleAgent, type Caller } from "./agents";
import { usdToMicros } from "@/lib/money";
import { isSettledStatus } from "@/lib/schemas/runs";
import { conversationPreview } from "@/lib/chat/history";
import { TenancyError } from "./errors";
import { syncMemberTools } from "./tenant-tools";
import { admitRun, recordRunCost, releaseRun, withdrawRun } from "./limits";
import type { PlatformConnection } from "./platform-connection";
import {
  advanceRunCost,
  attachRunAdmission,
  detachRunAdmission,
  findAgentCopy,
  findTenantRun,
  insertTenantRunIfAbsent,
  listOrphanAdmissions,
  listRunsHoldingAdmissions,
  listTenantRunIds,
  type TenantRunRecord,
} from "./platform-repository";

export const isTerminal = (status: Run["status"]) => isSettledStatus(status);

/** "0.001234" USD → 1234 micro-USD, exactly (no float, no rounding); 0 for what is not an amount. */
export function costMicrosOf(costUsd: string): number {
  return Number(usdToMicros(costUsd) ?? 0n);
}

/**
 * The admission of one chat turn (a new run, or a reply to one) the chat bridge streams, for the chat
 * in the app and the embed alike: admitted as startAdmittedRun admits, its cost charged exactly as
 * settleRun charges (costMicrosOf, the run's total after the turn less before it), then released; given back whole
 * when the platform refused the turn.
 */
export async function admitTurn(prisma: Db, member: { tenantId: string; userId: string }) {
  const { tenantId } = member;
  const { admissionId } = await admitRun(prisma, member);
  return {
    async end(run: Pick<Run, "usage"> | undefined, priorCostUsd = "0") {
      if (run) {
        const costMicros = Math.max(0, costMicrosOf(run.usage.cost_usd) - costMicrosOf(priorCostUsd));
        await recordRunCost(prisma, { tenantId, admissionId, costMicros });
      }
      await releaseRun(prisma, { tenantId, admissionId });
    },
    async withdraw() {
      await withdrawRun(prisma, { tenantId, admissionId });
    },
  };
}

export interface RunView {
  id: number;
  agentId: string | null;
  status: Run["status"];
  output: string | null;
  preview: string | null;
  error: string | null;
  usage: { inputTokens: number; outputTokens: number; costUsd: string };
  createdAt: string;
  finishedAt: string | null;
}

const outputText = (output: unknown): string | null =>
  output === null || output === undefined ? null : typeof output === "string" ? output : JSON.stringify(output);

export function toView(run: Run | RunListItem, record: TenantRunRecord): RunView {
  return {
    id: run.id,
    agentId: record.tenantAgentId,
    status: run.status,
    output: outputText(run.output),
    // The same preview the chat's history shows (the person's first message, else the agent's answer).
    preview: "first_message_preview" in run ? (conversationPreview(run)?.text ?? null) : null,
    error: run.error,
    usage: { inputTokens: run.usage.input_tokens, outputTokens: run.usage.output_tokens, costUsd: run.usage.cost_usd },
    createdAt: run.created_at,
    finishedAt: run.finished_at,
  };
}

/** Charges new cost to the run's admission and, once the run has ended, releases it. */
export async function settleRun(prisma: Db, tenantId: string, record: TenantRunRecord, run: Pick<Run, "status" | "usage">) {
  if (!record.admissionId) return;
  const cost = costMicrosOf(run.usage.cost_usd);
  if (cost > record.costMicros && (await advanceRunCost(prisma, tenantId, record.platformRunId, record.costMicros, cost))) {
    await recordRunCost(prisma, { tenantId, admissionId: record.admissionId, costMicros: cost - record.costMicros });
  }
  if (isTerminal(run.status) && (await detachRunAdmission(prisma, tenantId, record.platformRunId, record.admissionId))) {
    await releaseRun(prisma, { tenantId, admissionId: record.admissionId });
  }
}

async function ownRun(prisma: Db, caller: Caller, runId: number): Promise<TenantRunRecord> {
  const record = await findTenantRun(prisma, caller.tenantId, caller.userId, runId);
  if (!record) throw new TenancyError("NOT_FOUND", "no such run");
  return record;
}

export async function createRun(
  prisma: Db,
  platform: PlatformClient,
  caller: Caller,
  input: { agentId: string; message: string },
): Promise<RunView> {
  const agent = await getVisibleAgent(prisma, caller, input.agentId);
  const teammateId = await ensureAgentCopy(prisma, platform, caller, agent);
  await syncMemberTools(prisma, platform, caller);
  // The apps the tenant offers: a call to one the member has not connected pauses for a connection.
  const apps = await listOfferedApps(prisma, caller.tenantId);
  return startAdmittedRun(prisma, caller, agent.id, () =>
    platform.runs.create({ teammate_id: teammateId, message: input.message, stream: false, ...(apps.length ? { tools: apps } : {}) }),
  );
}

/**
 * The lifecycle of every run the framework starts (a run, a schedule's "run now"): admit, start it
 * with `start`, record it with its admission, settle. A refusal by the platform withdraws the
 * admission (no run, so the member keeps the run it was counted); any other failure releases it (one
 * may have started). Should the schedule sweep have adopted the run first (it counted it itself),
 * this admission is withdrawn instead, so the run is counted once.
 */
export async function startAdmittedRun(
  prisma: Db,
  caller: Caller,
  tenantAgentId: string | null,
  start: () => Promise<Run>,
): Promise<RunView> {
  const { admissionId } = await admitRun(prisma, { tenantId: caller.tenantId, userId: caller.userId });
  let run: Run;
  try {
    run = await start();
  } catch (error) {
    await (isRefusal(error) ? withdrawRun : releaseRun)(prisma, { tenantId: caller.tenantId, admissionId });
    throw error;
  }
  const entry = { tenantId: caller.tenantId, userId: caller.userId, platformRunId: run.id, tenantAgentId, admissionId };
  if (!(await insertTenantRunIfAbsent(prisma, entry))) {
    await withdrawRun(prisma, { tenantId: caller.tenantId, admissionId });
    return toView(run, await ownRun(prisma, caller, run.id));
  }
  const record: TenantRunRecord = { platformRunId: run.id, userId: caller.userId, tenantAgentId, admissionId, costMicros: 0 };
  await settleRun(prisma, caller.tenantId, record, run);
  return toView(run, record);
}

export async function getRun(prisma: Db, platform: PlatformClient, caller: Caller, runId: number): Promise<RunView> {
  const record = await ownRun(prisma, caller, runId);
  const run = await platform.runs.get(runId);
  await settleRun(prisma, caller.tenantId, record, run);
  return toView(run, record);
}

export async function listRuns(
  prisma: Db,
  platform: PlatformClient,
  caller: Caller,
  input: { agentId?: string; limit: number; startingAfter?: number },
): Promise<{ runs: RunView[]; hasMore: boolean }> {
  let teammateId: number | undefined;
  if (input.agentId) {
    const agent = await getVisibleAgent(prisma, caller, input.agentId);
    const copy = await findAgentCopy(prisma, agent.id, caller.userId);
    if (!copy) return { runs: [], hasMore: false };
    teammateId = copy.platformAgentId;
  }
  const page = await platform.runs.list({ teammate_id: teammateId, limit: input.limit, starting_after: input.startingAfter });
  // The end-user scope already keeps other members' runs out; this also keeps out runs started
  // outside the framework.
  const records = await listTenantRunIds(prisma, caller.tenantId, caller.userId, page.data.map((run) => run.id));
  const runs: RunView[] = [];
  for (const run of page.data) {
    const record = records.get(run.id);
    if (!record) continue;
    await settleRun(prisma, caller.tenantId, record, run);
    runs.push(toView(run, record));
  }
  return { runs, hasMore: page.has_more };
}

export async function cancelRun(prisma: Db, platform: PlatformClient, caller: Caller, runId: number): Promise<RunView> {
  const record = await ownRun(prisma, caller, runId);
  const run = await platform.runs.cancel(runId);
  await settleRun(prisma, caller.tenantId, record, run);
  return toView(run, record);
}

/** A reply reopens the run: it needs an admission of its own, like a new run. */
export async function replyRun(
  prisma: Db,
  platform: PlatformClient,
  caller: Caller,
  input: { runId: number; message: string },
): Promise<RunView> {
  const record = await ownRun(prisma, caller, input.runId);
  // A finished run nobody polled yet still holds its admission: settle it first.
  await settleRun(prisma, caller.tenantId, record, await platform.runs.get(input.runId));
  const { admissionId } = await admitRun(prisma, { tenantId: caller.tenantId, userId: caller.userId });
  if (!(await attachRunAdmission(prisma, caller.tenantId, input.runId, admissionId))) {
    await withdrawRun(prisma, { tenantId: caller.tenantId, admissionId });
    throw new TenancyError("CONFLICT", "the run is still going: wait for it to finish before replying");
  }
  let run: Run;
  try {
    run = await platform.runs.reply(input.runId, { message: input.message, stream: false });
  } catch (error) {
    if (await detachRunAdmission(prisma, caller.tenantId, input.runId, admissionId)) {
      await (isRefusal(error) ? withdrawRun : releaseRun)(prisma, { tenantId: caller.tenantId, admissionId });
    }
    throw error;
  }
  const fresh = await ownRun(prisma, caller, input.runId);
  await settleRun(prisma, caller.tenantId, fresh, run);
  return toView(run, fresh);
}

export async function answerRun(
  prisma: Db,
  platform: PlatformClient,
  caller: Caller,
  input: { runId: number; answers: Record<string, string> },
) {
  await ownRun(prisma, caller, input.runId);
  return platform.runs.answer(input.runId, { answers: input.answers });
}

export async function approveRun(
  prisma: Db,
  platform: PlatformClient,
  caller: Caller,
  input: { runId: number; requestId: string; decision: "allow" | "deny"; remember?: boolean },
) {
  await ownRun(prisma, caller, input.runId);
  return platform.runs.approve(input.runId, { request_id: input.requestId, decision: input.decision, remember: input.remember });
}

export async function listPermissionRequests(prisma: Db, platform: PlatformClient, caller: Caller, runId: number) {
  await ownRun(prisma, caller, runId);
  return (await platform.runs.permissions.list(runId)).data;
}

/**
 * Releases what nobody else will: admissions of runs that ended without anyone polling them (checked
 * on the platform once they have held an admission for `staleMs`), of runs the platform no longer
 * knows, and admissions no run ever got (the process died between admitRun and the platform's
 * answer; after `orphanMs`). Safe to run on every instance at once: each release is conditional.
 */
export async function sweepRunAdmissions(
  prisma: Db,
  connection: PlatformConnection,
  { staleMs = 60_000, orphanMs = 10 * 60_000, now = new Date(), batch = 100 } = {},
): Promise<{ settled: number; orphans: number }> {
  let settled = 0;
  for (const run of await listRunsHoldingAdmissions(prisma, new Date(now.getTime() - staleMs), batch)) {
    const platformUserId = run.user.platformUsers.find((link) => link.tenantId === run.tenantId)?.platformUserId;
    if (!platformUserId || !run.admissionId) continue;
    try {
      const live = await connection.client.forUser(platformUserId).runs.get(run.platformRunId);
      await settleRun(prisma, run.tenantId, run, live);
      if (isTerminal(live.status)) settled++;
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      if (await detachRunAdmission(prisma, run.tenantId, run.platformRunId, run.admissionId)) {
        await releaseRun(prisma, { tenantId: run.tenantId, admissionId: run.admissionId });
        settled++;
      }
    }
  }
  let orphans = 0;
  for (const admission of await listOrphanAdmissions(prisma, new Date(now.getTime() - orphanMs), batch)) {
    if (await releaseRun(prisma, { tenantId: admission.tenantId, admissionId: admission.id })) orphans++;
  }
  return { settled, orphans };
}
