// POST /tasks with `schedule`: the task's schedule trigger is created here, inside the transaction
// that inserts the task, so a task never exists without the schedule it was created with. Schedules
// arrive with triggers (services/triggers.ts createScheduleTriggerFromTask); until then this refuses,
// and the task is rolled back with it.
import type { PrismaClient } from "@/server/generated/prisma/client";
import { PlatformError } from "../errors";
import type { TaskRow } from "../repositories/tasks";

export interface TaskSchedule {
  /** A 5-field cron expression, already validated (lib/schemas/tasks.ts CronExpression). */
  cron: string;
  /** An IANA name, already validated; undefined when the caller gave none (the trigger's default). */
  timezone: string | undefined;
}

export async function onTaskCreatedWithSchedule(tx: PrismaClient, task: TaskRow, schedule: TaskSchedule): Promise<void> {
  void tx;
  void task;
  void schedule;
  throw new PlatformError({
    type: "validation_error",
    errorCode: "feature_not_available",
    message: "schedule: task schedules are not available yet; schedules arrive with triggers",
    details: { field: "schedule" },
  });
}
