// The console's run view: one run of a tenant member, read for its owner or a tenant admin, with its
// timeline rebuilt from the platform's event log, messages and permission requests. Who may read a
// run: its owner (the member whose platform user ran it) and the admins of the owner's tenant.
// Anything else (another tenant's run, another member's for a member, an unknown id) is NOT_FOUND.
import { NotFoundError, type PlatformClient, type Run, type RunFrame } from "@inlay/core/platform-client";
import { isSettledStatus } from "@inlay/core/schemas/runs";
import type { RunDetail, RunTrigger } from "@inlay/core/schemas/run-view";
import { conversationPreview } from "@inlay/core/chat/history";
import type { Db } from "@/server/shared/db";
import type { Caller } from "./agents";
import { TenancyError } from "./errors";
import type { PlatformConnection } from "./platform-connection";
import { findTenantRunOwner, listTenantPlatformUsers } from "./platform-repository";
import { findMemberSchedule } from "./schedules-repository";
import { costMicrosOf } from "./run-ledger";
import { buildTimeline } from "./run-timeline";

/** A run's requests read at most: a longer conversation shows its first ones. */
const MAX_REQUESTS = 50;

type Member = Awaited<ReturnType<typeof listTenantPlatformUsers>>[number];
const ownerOf = (member: Member) => ({ userId: member.userId, email: member.email, name: member.name });

const notFound = () => new TenancyError("NOT_FOUND", "no such run");

/**
 * The run and its owner, when the caller may read it. A run the framework recorded (started from the
 * console or a schedule) names its owner; any other (a chat) is looked for in the scope of each member
 * the caller may see: only their own for a member, the tenant's members for an admin. The platform's
 * end-user scopes do the isolation: a run outside those scopes is its 404.
 */
export async function findReadableRun(
  prisma: Db,
  connection: Pick<PlatformConnection, "client">,
  caller: Caller,
  runId: number,
): Promise<{ run: Run; owner: Member; client: PlatformClient }> {
  const members = await listTenantPlatformUsers(prisma, caller.tenantId);
  const recorded = await findTenantRunOwner(prisma, caller.tenantId, runId);
  const readable = members.filter((member) => member.userId === caller.userId || caller.role === "admin");
  const candidates = recorded
    ? readable.filter((member) => member.userId === recorded)
    : [...readable].sort((a, b) => Number(b.userId === caller.userId) - Number(a.userId === caller.userId));
  for (const owner of candidates) {
    const client = connection.client.forUser(owner.platformUserId);
    try {
      return { run: await client.runs.get(runId), owner, client };
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  throw notFound();
}

export async function getRunDetail(
  prisma: Db,
  connection: Pick<PlatformConnection, "client">,
  caller: Caller,
  runId: number,
): Promise<RunDetail> {
  const { run, owner, client } = await findReadableRun(prisma, connection, caller, runId);
  // Read after the run, as the chat's history does: a reply in between only adds a turn.
  const [turns, permissions, agentName, trigger] = await Promise.all([
    client.runs.messages(runId),
    client.runs.permissions.list(runId),
    client.agents.get(run.teammate_id).then(
      (agent) => agent.name,
      () => null,
    ),
    triggerOf(prisma, caller.tenantId, owner.userId, run),
  ]);
  const settled = isSettledStatus(run.status);
  const userTurns = turns.data.filter((turn) => turn.role === "user").length;
  // A going run's current request would be read until it ends: only the finished ones are read.
  const segments = await readRequests(client, run.id, Math.min(MAX_REQUESTS, settled ? MAX_REQUESTS : Math.max(0, userTurns - 1)));
  const timeline = buildTimeline(turns.data, segments, permissions.data, run);
  return {
    id: run.id,
    status: run.status,
    owner: ownerOf(owner),
    agent: { id: run.teammate_id, name: agentName },
    model: run.model,
    inputTokens: run.usage.input_tokens,
    outputTokens: run.usage.output_tokens,
    costMicros: costMicrosOf(run.usage.cost_usd),
    error: run.error,
    stopReason: run.stop_reason,
    createdAt: run.created_at,
    finishedAt: run.finished_at,
    durationMs: run.finished_at ? Math.max(0, Date.parse(run.finished_at) - Date.parse(run.created_at)) : null,
    trigger,
    complete: settled,
    timeline,
  };
}

async function triggerOf(prisma: Db, tenantId: string, ownerId: string, run: Run): Promise<RunTrigger> {
  if (run.task_id !== null) {
    const schedule = await findMemberSchedule(prisma, tenantId, ownerId, run.task_id);
    return schedule ? { kind: "schedule", taskId: run.task_id, scheduleName: schedule.name } : { kind: "task", taskId: run.task_id };
  }
  // The framework records the runs it starts itself (runs.create); the chat's runs it does not.
  return (await findTenantRunOwner(prisma, tenantId, run.id)) ? { kind: "console" } : { kind: "chat" };
}

/** Each request's frames (the run's start, then each reply), read from the event log to its done frame. */
async function readRequests(client: PlatformClient, runId: number, limit: number): Promise<RunFrame[][]> {
  const requests: RunFrame[][] = [];
  let cursor: string | undefined;
  while (requests.length < limit) {
    const stream = client.runs.events(runId, { lastEventId: cursor });
    const frames: RunFrame[] = [];
    for await (const frame of stream) frames.push(frame);
    if (frames.length === 0 || stream.lastEventId === undefined || stream.lastEventId === cursor) break;
    requests.push(frames);
    cursor = stream.lastEventId;
  }
  return requests;
}

/** One member's runs, newest first: the caller's own, or (for an admin) any member's of the tenant. */
export async function listMemberRuns(
  prisma: Db,
  connection: Pick<PlatformConnection, "client">,
  caller: Caller,
  input: { memberId?: string; limit: number; cursor?: number },
) {
  const memberId = input.memberId ?? caller.userId;
  if (memberId !== caller.userId && caller.role !== "admin") throw new TenancyError("NOT_FOUND", "no such member");
  const member = (await listTenantPlatformUsers(prisma, caller.tenantId)).find((link) => link.userId === memberId);
  if (!member) {
    // A member who never used the platform has no runs; another id is not theirs to name.
    if (memberId === caller.userId) return { owner: null, runs: [], hasMore: false };
    throw new TenancyError("NOT_FOUND", "no such member");
  }
  const page = await connection.client.forUser(member.platformUserId).runs.list({ limit: input.limit, starting_after: input.cursor });
  return {
    owner: ownerOf(member),
    runs: page.data.map((run) => ({
      id: run.id,
      status: run.status,
      agentId: run.teammate_id,
      model: run.model,
      preview: conversationPreview(run)?.text ?? null,
      costMicros: costMicrosOf(run.usage.cost_usd),
      createdAt: run.created_at,
      finishedAt: run.finished_at,
    })),
    hasMore: page.has_more,
  };
}
