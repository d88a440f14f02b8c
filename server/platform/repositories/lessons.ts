// Lessons of a task. Every query names the task's account and end-user scope: a lesson of another
// account's or another end-user's task is never found.
import type { PlatformTaskLesson, PrismaClient } from "@/server/generated/prisma/client";

export type LessonRow = PlatformTaskLesson;

interface ScopeKey {
  accountId: number;
  endUserId: number | null;
}

const ofTask = (scope: ScopeKey, taskId: number) => ({ taskId, task: { accountId: scope.accountId, endUserId: scope.endUserId } });

/** The task's lessons, newest first. */
export const listLessons = (prisma: PrismaClient, scope: ScopeKey, taskId: number): Promise<LessonRow[]> =>
  prisma.platformTaskLesson.findMany({ where: ofTask(scope, taskId), orderBy: { id: "desc" } });

export async function deleteLesson(prisma: PrismaClient, scope: ScopeKey, taskId: number, lessonId: number): Promise<boolean> {
  const { count } = await prisma.platformTaskLesson.deleteMany({ where: { id: lessonId, ...ofTask(scope, taskId) } });
  return count > 0;
}

export async function clearLessons(prisma: PrismaClient, scope: ScopeKey, taskId: number): Promise<void> {
  await prisma.platformTaskLesson.deleteMany({ where: ofTask(scope, taskId) });
}

export type SaveOutcome =
  | { outcome: "saved"; lesson: LessonRow; used: number }
  | { outcome: "duplicate"; lesson: LessonRow; used: number }
  | { outcome: "full"; used: number }
  | { outcome: "no_task" };

/**
 * Saves a lesson unless the task has one `isDuplicate` matches or holds `capacity` already. The task's
 * row is locked meanwhile, so two saves at once (parallel tool calls, two runs) cannot both pass the
 * checks and overfill it or save the same lesson twice.
 */
export function saveLesson(
  prisma: PrismaClient,
  scope: ScopeKey,
  taskId: number,
  lesson: { content: string; runId: number },
  rules: { capacity: number; isDuplicate: (existing: string) => boolean },
): Promise<SaveOutcome> {
  return prisma.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ id: number }[]>`
      SELECT id FROM platform_tasks
      WHERE id = ${taskId} AND account_id = ${scope.accountId} AND end_user_id IS NOT DISTINCT FROM ${scope.endUserId}::int
      FOR UPDATE`;
    if (locked.length === 0) return { outcome: "no_task" } as const;
    const existing = await tx.platformTaskLesson.findMany({ where: { taskId }, orderBy: { id: "desc" } });
    const same = existing.find((row) => rules.isDuplicate(row.content));
    if (same) return { outcome: "duplicate", lesson: same, used: existing.length } as const;
    if (existing.length >= rules.capacity) return { outcome: "full", used: existing.length } as const;
    const saved = await tx.platformTaskLesson.create({ data: { taskId, content: lesson.content, runId: lesson.runId } });
    return { outcome: "saved", lesson: saved, used: existing.length + 1 } as const;
  });
}
