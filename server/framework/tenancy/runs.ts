// Runs a member starts through the framework. Each start and each reply goes through the run ledger
// (run-ledger.ts): admitted before it reaches the platform, and settled (its exact cost charged, its
// admission released) from the platform's run.* webhooks or the ledger's sweep, never by reading it.
// tenant_runs records whose run is whose (and which admission it holds while a turn is open, so a
// reply waits for the run to finish).
import { isRefusal, type PlatformClient, type Run, type RunListItem } from "@inlay/core/platform-client";
import type { Db } from "@/server/shared/db";
import { ensureAgentCopy, getVisibleAgent, type Caller } from "./agents";
import { conversationPreview } from "@inlay/core/chat/history";
import { TenancyError } from "./errors";
import { prepareMemberRun } from "./tenant-tools";
import { beginRun, runAbandoned, runRefused, runStarted, settleRun } from "./run-ledger";
import {
  attachRunAdmission,
  detachRunAdmission,
  findAgentCopy,
  findTenantRun,
  insertTenantRunIfAbsent,
  listTenantRunIds,
  type TenantRunRecord,
} from "./platform-repository";

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
  const { apps } = await prepareMemberRun(prisma, platform, caller);
  return startAdmittedRun(prisma, caller, agent.id, () =>
    platform.runs.create({ teammate_id: teammateId, message: input.message, stream: false, ...(apps.length ? { tools: apps } : {}) }),
  );
}

/**
 * Every run the framework starts this way (a run, a schedule's "run now"): begun on the ledger,
 * started with `start`, recorded with its admission. A refusal by the platform gives the admission
 * back (no run, so the member keeps the run it was counted); any other failure abandons it (one may
 * have started). Should the schedule sweep have adopted the run first (it counted it itself), this
 * admission is given back instead, so the run is counted once.
 */
export async function startAdmittedRun(
  prisma: Db,
  caller: Caller,
  tenantAgentId: string | null,
  start: () => Promise<Run>,
): Promise<RunView> {
  const ticket = await beginRun(prisma, { tenantId: caller.tenantId, userId: caller.userId });
  let run: Run;
  try {
    run = await start();
  } catch (error) {
    await (isRefusal(error) ? runRefused : runAbandoned)(prisma, ticket);
    throw error;
  }
  const entry = { tenantId: caller.tenantId, userId: caller.userId, platformRunId: run.id, tenantAgentId, admissionId: ticket.admissionId };
  if (!(await insertTenantRunIfAbsent(prisma, entry))) {
    await runRefused(prisma, ticket);
    return toView(run, await ownRun(prisma, caller, run.id));
  }
  await runStarted(prisma, ticket, run.id, { run });
  return toView(run, await ownRun(prisma, caller, run.id));
}

export async function getRun(prisma: Db, platform: PlatformClient, caller: Caller, runId: number): Promise<RunView> {
  const record = await ownRun(prisma, caller, runId);
  return toView(await platform.runs.get(runId), record);
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
    runs.push(toView(run, record));
  }
  return { runs, hasMore: page.has_more };
}

export async function cancelRun(prisma: Db, platform: PlatformClient, caller: Caller, runId: number): Promise<RunView> {
  const record = await ownRun(prisma, caller, runId);
  return toView(await platform.runs.cancel(runId), record);
}

/** A reply reopens the run: it needs an admission of its own (its cost, a message), but is not another run. */
export async function replyRun(
  prisma: Db,
  platform: PlatformClient,
  caller: Caller,
  input: { runId: number; message: string },
): Promise<RunView> {
  await ownRun(prisma, caller, input.runId);
  const prior = await platform.runs.get(input.runId);
  // The previous turn ended and its webhook has not come yet: settle it from what the platform just
  // said (the ledger's own settlement, idempotent), so the run no longer holds an admission.
  await settleRun(prisma, prior);
  const ticket = await beginRun(prisma, { tenantId: caller.tenantId, userId: caller.userId }, { kind: "reply" });
  if (!(await attachRunAdmission(prisma, caller.tenantId, input.runId, ticket.admissionId))) {
    await runRefused(prisma, ticket);
    throw new TenancyError("CONFLICT", "the run is still going: wait for it to finish before replying");
  }
  let run: Run;
  try {
    // A person is replying: the turn asks for approvals as the run's permission mode says.
    run = await platform.runs.reply(input.runId, { message: input.message, stream: false, interactive: true });
  } catch (error) {
    if (await detachRunAdmission(prisma, caller.tenantId, input.runId, ticket.admissionId)) {
      await (isRefusal(error) ? runRefused : runAbandoned)(prisma, ticket);
    }
    throw error;
  }
  await runStarted(prisma, ticket, input.runId, { baseCostUsd: prior.usage.cost_usd, run });
  return toView(run, await ownRun(prisma, caller, input.runId));
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
