// Run lists (GET /runs, /runs/activity, /runs/check, /runs/needs-you), the run_history tool's list and
// the operator's view of stuck runs.
import type { PrismaClient } from "@/server/generated/prisma/client";
import type { Prisma } from "@/server/generated/prisma/client";
import { ATTENTION_ORDER, WAITING_STATUSES } from "@inlay/core/schemas/run-constants";
import type { RunRow, ScopeKey } from "./runs";

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
