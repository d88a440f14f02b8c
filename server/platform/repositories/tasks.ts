// Tasks. Every query is bound to an account, and all but findTaskInAccount to an end-user scope too:
// a task of another account or another end-user is never found.
import type { PlatformTask, Prisma, PrismaClient } from "@/server/generated/prisma/client";

export type TaskRow = PlatformTask & { endUser: { externalId: string } | null };
export type TaskData = Omit<Prisma.PlatformTaskUncheckedCreateInput, "accountId" | "endUserId">;
export type TaskRowUpdate = Prisma.PlatformTaskUncheckedUpdateInput;

interface ScopeKey {
  accountId: number;
  endUserId: number | null;
}

const include = { endUser: { select: { externalId: true } } } as const;

const scopeWhere = (scope: ScopeKey) => ({ accountId: scope.accountId, endUserId: scope.endUserId });

export const createTask = (prisma: PrismaClient, scope: ScopeKey, data: TaskData): Promise<TaskRow> =>
  prisma.platformTask.create({ data: { ...data, ...scopeWhere(scope) }, include });

export const findTask = (prisma: PrismaClient, scope: ScopeKey, id: number): Promise<TaskRow | null> =>
  prisma.platformTask.findFirst({ where: { id, ...scopeWhere(scope) }, include });

/** The account's task `id` in whichever scope it lives (with its user_id); null when none. */
export const findTaskInAccount = (prisma: PrismaClient, accountId: number, taskId: number): Promise<TaskRow | null> =>
  prisma.platformTask.findFirst({ where: { id: taskId, accountId }, include });

/** The task whose inbound webhook token hashes to `tokenHash` (the token is the credential; any account). */
export const findTaskByWebhookHash = (prisma: PrismaClient, tokenHash: string): Promise<TaskRow | null> =>
  prisma.platformTask.findUnique({ where: { webhookTokenHash: tokenHash }, include });

export async function taskExistsInScope(prisma: PrismaClient, scope: ScopeKey, id: number): Promise<boolean> {
  return (await prisma.platformTask.count({ where: { id, ...scopeWhere(scope) } })) > 0;
}

/** One page of the scope's tasks, oldest first, after the task `startingAfter`; `limit` rows at most. */
export const listTasks = (
  prisma: PrismaClient,
  scope: ScopeKey,
  options: { limit: number; startingAfter?: number; agentId?: number },
): Promise<TaskRow[]> =>
  prisma.platformTask.findMany({
    where: {
      ...scopeWhere(scope),
      ...(options.agentId !== undefined ? { agentId: options.agentId } : {}),
      ...(options.startingAfter !== undefined ? { id: { gt: options.startingAfter } } : {}),
    },
    orderBy: { id: "asc" },
    take: options.limit,
    include,
  });

export const updateTask = (prisma: PrismaClient, id: number, data: TaskRowUpdate): Promise<TaskRow> =>
  prisma.platformTask.update({ where: { id }, data, include });

/** Deletes the task; its triggers, their fires and its lessons go with it (foreign keys), its runs stay. */
export async function deleteTask(prisma: PrismaClient, scope: ScopeKey, id: number): Promise<boolean> {
  const { count } = await prisma.platformTask.deleteMany({ where: { id, ...scopeWhere(scope) } });
  return count > 0;
}

/** The agent's task of this name in the scope, the oldest if several; null when none. */
export const findAgentTaskNamed = (prisma: PrismaClient, scope: ScopeKey, agentId: number, name: string): Promise<TaskRow | null> =>
  prisma.platformTask.findFirst({ where: { ...scopeWhere(scope), agentId, name }, orderBy: { id: "asc" }, include });
