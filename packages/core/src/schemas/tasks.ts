// Tasks: reusable job definitions for an agent, and the runs started from them. The spec lists the
// fields accepted at creation and leaves the response shape open: Task below is ours (docs/platform-api.md).
import { Cron } from "croner";
import { z } from "zod";
import { AgentName, Instructions, PermissionMode, ToolNames } from "./agents";
import { BodyId, IntId, PageQuery, Timestamp, UserId } from "./common";
import { RunCreate } from "./runs";

const TaskInstructions = Instructions.refine((value) => value.trim().length > 0, "must not be blank");
const TaskText = z.string().max(10_000, "must be at most 10000 characters");

/** A 5-field cron expression (minute hour day-of-month month day-of-week), as croner reads it. */
export const CronExpression = z
  .string()
  .trim()
  .refine((value) => value.split(/\s+/).length === 5, "must be a 5-field cron expression (minute hour day month weekday)")
  .refine((value) => {
    try {
      new Cron(value, { paused: true });
      return true;
    } catch {
      return false;
    }
  }, "is not a valid cron expression");

/** An IANA time-zone name the runtime knows (Europe/Paris, UTC). */
export const IanaTimezone = z.string().refine((value) => {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: value });
    return true;
  } catch {
    return false;
  }
}, "must be an IANA time zone name such as Europe/Paris");

export const TaskCreate = z.object({
  teammate_id: BodyId,
  instructions: TaskInstructions,
  name: AgentName.optional().meta({ description: "Omitted: the first words of the instructions" }),
  tools: ToolNames.optional(),
  expected_output: TaskText.nullable().optional(),
  goals: TaskText.nullable().optional(),
  user_id: UserId.optional(),
  email_notifications: z.boolean().optional().meta({ description: "Mail the account owner when a run of the task ends" }),
  permission_mode: PermissionMode.optional().meta({
    description: "Inlay extension: the mode the task's runs inherit; omitted: the agent's default_permission_mode",
  }),
  webhook: z.boolean().optional().meta({ description: "true: create the task with its inbound webhook; the response carries webhook_url once" }),
  schedule: CronExpression.optional(),
  schedule_timezone: IanaTimezone.optional().meta({ description: "Only with schedule" }),
});

/** PATCH /tasks/{task_id}: omitted = unchanged; null clears expected_output and goals. */
export const TaskUpdate = z.object({
  name: AgentName.optional(),
  instructions: TaskInstructions.optional(),
  tools: ToolNames.optional(),
  expected_output: TaskText.nullable().optional(),
  goals: TaskText.nullable().optional(),
  email_notifications: z.boolean().optional(),
  permission_mode: PermissionMode.optional(),
});

export const Task = z
  .object({
    id: z.number().int(),
    teammate_id: z.number().int().meta({ description: "The agent that runs the task" }),
    user_id: z.string().nullable().meta({ description: "End-user scope; null at the account level" }),
    name: z.string(),
    instructions: z.string(),
    tools: z.array(z.string()),
    expected_output: z.string().nullable(),
    goals: z.string().nullable(),
    email_notifications: z.boolean(),
    permission_mode: PermissionMode.meta({ description: "The saved mode its runs inherit" }),
    webhook_enabled: z.boolean().meta({ description: "The task has a webhook and it is not paused" }),
    webhook_url: z.string().optional().meta({
      description: "Only in the response of POST /tasks with webhook: true: the inbound URL, shown this once",
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "Task" });

export const ListTasksQuery = PageQuery.extend({
  teammate_id: IntId.optional().meta({ description: "Tasks of this agent only" }),
  user_id: UserId.optional(),
});

export const TaskIdParam = z.object({ task_id: IntId });

/** POST /tasks/{task_id}/runs: the run fields of POST /runs that a task run takes, validated alike. */
export const TaskRunCreate = RunCreate.pick({
  permission_mode: true,
  human_in_the_loop: true,
  stream: true,
  model: true,
  effort: true,
  user_id: true,
  metadata: true,
  output_schema: true,
  max_turns: true,
  memory: true,
  history: true,
  task_setup_tools: true,
  feedback: true,
});
