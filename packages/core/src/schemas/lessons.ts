// Lessons of a task: notes the task's runs save for its later runs (the save_lesson built-in tool),
// listed and cleared through /tasks/{task_id}/lessons. The capacity is counted in lessons.
import { z } from "zod";
import { IntId, QueryBoolean, Timestamp, UserId } from "./common";

/** How many lessons a task keeps (capacity_limit); save_lesson refuses once it is full. */
export const LESSON_CAPACITY = 20;
/** The longest lesson save_lesson accepts, in characters. */
export const LESSON_MAX_CHARS = 500;

export const LessonContent = z
  .string()
  .trim()
  .min(1, "must not be blank")
  .max(LESSON_MAX_CHARS, `must be at most ${LESSON_MAX_CHARS} characters`);

export const Lesson = z
  .object({
    id: z.number().int(),
    content: z.string(),
    run_id: z.number().int().nullable().meta({ description: "The run that saved it; null when no run did" }),
    created_at: Timestamp,
  })
  .meta({ id: "Lesson" });

export const TaskLessons = z
  .object({
    capacity_limit: z.number().int().meta({ description: `Lessons a task keeps (${LESSON_CAPACITY})` }),
    capacity_used: z.number().int(),
    data: z.array(Lesson).meta({ description: "Newest first" }),
  })
  .meta({ id: "TaskLessons" });

export const LessonIdParams = z.object({ task_id: IntId, lesson_id: IntId });

export const ClearLessonsQuery = z.object({
  confirm: QueryBoolean.optional().meta({ description: "Must be true to clear" }),
  user_id: UserId.optional(),
});
