// Lessons of a task: the list the API shows and clears, what save_lesson stores (within the capacity,
// never twice), and what the task's later runs read in their system prompt. No HTTP here.
import type { z } from "zod";
import { LESSON_CAPACITY, LessonContent, type TaskLessons } from "@inlay/core/schemas/lessons";
import type { Db } from "../../repositories/db";
import { PlatformError } from "../../errors";
import { clearLessons, deleteLesson, type LessonRow, listLessons, saveLesson } from "../../repositories/lessons";
import { taskExistsInScope } from "../../repositories/tasks";
import type { DataContext } from "../../infrastructure/hot-cache";
import type { Scope } from "../scope";

type LessonsOut = z.infer<typeof TaskLessons>;
type ScopeKey = Pick<Scope, "accountId" | "endUserId">;

const toLessons = (rows: LessonRow[]): LessonsOut => ({
  capacity_limit: LESSON_CAPACITY,
  capacity_used: rows.length,
  data: rows.map((row) => ({ id: row.id, content: row.content, run_id: row.runId, created_at: row.createdAt.toISOString() })),
});

async function checkTask(ctx: DataContext, scope: ScopeKey, taskId: number) {
  if (!(await taskExistsInScope(ctx.prisma, scope, taskId))) {
    throw new PlatformError({ type: "not_found", message: `task ${taskId} not found` });
  }
}

export async function listTaskLessons(ctx: DataContext, scope: ScopeKey, taskId: number): Promise<LessonsOut> {
  await checkTask(ctx, scope, taskId);
  return toLessons(await listLessons(ctx.prisma, scope, taskId));
}

export async function deleteTaskLesson(ctx: DataContext, scope: ScopeKey, taskId: number, lessonId: number): Promise<LessonsOut> {
  await checkTask(ctx, scope, taskId);
  if (!(await deleteLesson(ctx.prisma, scope, taskId, lessonId))) {
    throw new PlatformError({ type: "not_found", message: `lesson ${lessonId} of task ${taskId} not found` });
  }
  return toLessons(await listLessons(ctx.prisma, scope, taskId));
}

export async function clearTaskLessons(ctx: DataContext, scope: ScopeKey, taskId: number, confirm: boolean | undefined): Promise<LessonsOut> {
  if (confirm !== true) {
    throw new PlatformError({
      type: "validation_error",
      message: "confirm: must be true in the query to clear the task's lessons",
      details: { field: "confirm" },
    });
  }
  await checkTask(ctx, scope, taskId);
  await clearLessons(ctx.prisma, scope, taskId);
  return toLessons([]);
}

/** The lessons a run of the task reads in its system prompt: all it keeps, newest first. */
export async function lessonsForPrompt(prisma: Db, scope: ScopeKey, taskId: number): Promise<string[]> {
  return (await listLessons(prisma, scope, taskId)).slice(0, LESSON_CAPACITY).map((row) => row.content);
}

/** Same lesson, written a little differently: case, spacing and a final full stop do not count. */
const lessonKey = (content: string) =>
  content
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/[.!\s]+$/, "")
    .trim();

/**
 * save_lesson: the tool's result for the model. Refusals (blank, too long, a duplicate, a full task)
 * are results the model reads and can act on, not errors that fail the run.
 */
export async function saveLessonFromRun(prisma: Db, scope: ScopeKey, taskId: number, content: string, runId: number) {
  const parsed = LessonContent.safeParse(content);
  if (!parsed.success) return { saved: false, error: `content: ${parsed.error.issues[0]?.message ?? "is invalid"}` };
  const key = lessonKey(parsed.data);
  const result = await saveLesson(prisma, scope, taskId, { content: parsed.data, runId }, {
    capacity: LESSON_CAPACITY,
    isDuplicate: (existing) => lessonKey(existing) === key,
  });
  switch (result.outcome) {
    case "saved":
      return { saved: true, id: result.lesson.id, capacity_used: result.used, capacity_limit: LESSON_CAPACITY };
    case "duplicate":
      return { saved: false, duplicate_of: result.lesson.id, message: "This task already has this lesson; nothing was saved." };
    case "full":
      return {
        saved: false,
        capacity_used: result.used,
        capacity_limit: LESSON_CAPACITY,
        message: `This task already keeps ${LESSON_CAPACITY} lessons, its capacity; nothing was saved. The account can delete lessons through the API.`,
      };
    case "no_task":
      return { saved: false, error: `task ${taskId} not found in this run's scope` };
  }
}
