// Contracts of the console's schedules (tRPC `tasks`): what a member fills in, turned into the 5-field
// cron the platform's schedule triggers take, and cron read back as a sentence for the page.
import { z } from "zod";
import { RunStatus } from "./runs";
import { CronExpression, IanaTimezone } from "./tasks";

export const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"] as const;
const DAY_NAMES = ["Sundays", "Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays"];
/** Intervals that divide an hour, so "every N minutes" is even across the hour boundary. */
export const INTERVAL_MINUTES = [1, 2, 5, 10, 15, 20, 30] as const;

export const scheduleWhen = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("weekly"),
    days: z.array(z.number().int().min(0).max(6)).min(1, { message: "Choose at least one day." }).max(7),
    time: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, { message: "Enter a time as HH:MM." }),
  }),
  z.object({
    kind: z.literal("interval"),
    minutes: z
      .number()
      .int()
      .refine((value) => (INTERVAL_MINUTES as readonly number[]).includes(value), { message: "Choose 1, 2, 5, 10, 15, 20 or 30 minutes." }),
  }),
  z.object({ kind: z.literal("cron"), cron: CronExpression }),
]);
export type ScheduleWhen = z.infer<typeof scheduleWhen>;

export const scheduleCreateInput = z.object({
  agentId: z.uuid({ message: "Choose an agent." }),
  instructions: z
    .string()
    .trim()
    .min(1, { message: "Say what the agent should do." })
    .max(20_000, { message: "Use at most 20,000 characters." }),
  name: z.string().trim().min(1).max(80, { message: "Use at most 80 characters." }).optional(),
  when: scheduleWhen,
  timezone: IanaTimezone,
});
export type ScheduleCreateInput = z.infer<typeof scheduleCreateInput>;

/** A schedule is named by its platform task id. */
export const scheduleIdInput = z.object({ taskId: z.number().int().positive() });

/** The cron expression of a schedule (read in its timezone by the platform). */
export function cronOf(when: ScheduleWhen): string {
  switch (when.kind) {
    case "cron":
      return when.cron.trim().split(/\s+/).join(" ");
    case "interval":
      return when.minutes === 1 ? "* * * * *" : `*/${when.minutes} * * * *`;
    case "weekly": {
      const [hour, minute] = when.time.split(":").map(Number);
      const days = [...new Set(when.days)].sort((a, b) => a - b);
      return `${minute} ${hour} * * ${days.length === 7 ? "*" : days.join(",")}`;
    }
  }
}

const pad = (value: number) => String(value).padStart(2, "0");

function describeDays(field: string): string | null {
  if (field === "*") return "Every day";
  if (field === "1-5" || field === "1,2,3,4,5") return "Every weekday";
  if (field === "0,6" || field === "6,0") return "Weekends";
  if (!/^[0-6](,[0-6])*$/.test(field)) return null;
  const names = field.split(",").map((day) => DAY_NAMES[Number(day)]!);
  return names.length === 1 ? `${names[0]}` : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/** "Every weekday at 09:00", "Every 15 minutes", or the cron itself when it is no simple shape. */
export function describeCron(cron: string): string {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5) return `Cron ${cron}`;
  const [minute, hour, dayOfMonth, month, dayOfWeek] = fields as [string, string, string, string, string];
  if (dayOfMonth === "*" && month === "*" && dayOfWeek === "*" && hour === "*") {
    if (minute === "*") return "Every minute";
    const every = /^\*\/(\d+)$/.exec(minute);
    if (every) return `Every ${every[1]} minutes`;
  }
  if (/^\d+$/.test(minute) && /^\d+$/.test(hour) && dayOfMonth === "*" && month === "*") {
    const days = describeDays(dayOfWeek);
    if (days) return `${days} at ${pad(Number(hour))}:${pad(Number(minute))}`;
  }
  return `Cron ${cron}`;
}

/** A name from the instructions' first words, as the platform would make one. */
export function nameFromInstructions(instructions: string): string {
  const words = instructions.trim().split(/\s+/).slice(0, 8).join(" ");
  return words.length > 80 ? `${words.slice(0, 79)}…` : words;
}

// --- Answers of the tasks procedures (their tRPC .output) ----------------------------------------------

export const ScheduleRun = z.object({ id: z.number().int(), status: RunStatus, createdAt: z.string(), finishedAt: z.string().nullable() });

export const ScheduleView = z.object({
  taskId: z.number().int(),
  agentId: z.string().nullable(),
  agentName: z.string().nullable(),
  name: z.string(),
  instructions: z.string(),
  cron: z.string(),
  timezone: z.string(),
  description: z.string(),
  active: z.boolean(),
  /** "caps": paused by the framework when a monthly limit was used up. */
  pausedReason: z.string().nullable(),
  nextRunAt: z.string().nullable(),
  runs: z.array(ScheduleRun),
  createdAt: z.string(),
});
export const ScheduleState = z.object({ taskId: z.number().int(), active: z.boolean() });
export const ScheduleDeleted = z.object({ taskId: z.number().int() });

export const TenantScheduleView = ScheduleView.pick({
  taskId: true,
  agentName: true,
  name: true,
  cron: true,
  timezone: true,
  description: true,
  active: true,
  pausedReason: true,
  nextRunAt: true,
}).extend({ member: z.object({ email: z.string(), name: z.string().nullable() }) });

export type ScheduleRun = z.infer<typeof ScheduleRun>;
export type ScheduleView = z.infer<typeof ScheduleView>;
export type TenantScheduleView = z.infer<typeof TenantScheduleView>;
