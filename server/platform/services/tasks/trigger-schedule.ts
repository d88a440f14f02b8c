// When a schedule trigger is due: its first due time, the due times it missed, and the next one. Pure
// functions over a clock the caller passes, so DST cases are unit-tested with fixed times.
//
// Cron slots come from croner in the trigger's zone (infrastructure/schedule-slots.ts): a wall time the clocks
// skip (spring forward) fires at the first instant after the gap; a repeated one (fall back) fires once,
// at its first occurrence. A naive run_at is read in the trigger's zone the same way.
import { nextSlot } from "../../infrastructure/schedule-slots";

export interface ScheduleShape {
  cron: string | null;
  intervalSeconds: number | null;
  runAt: Date | null;
  timezone: string | null;
}

const zoneOf = (shape: ScheduleShape) => shape.timezone ?? "UTC";

/** The first due time of a schedule created (or reshaped, or enabled) at `now`. */
export function firstDue(shape: ScheduleShape, now: Date): Date {
  if (shape.runAt) return shape.runAt;
  if (shape.intervalSeconds) return new Date(now.getTime() + shape.intervalSeconds * 1000);
  return nextSlot({ cron: shape.cron!, timezone: zoneOf(shape) }, now);
}

/** The due time after `due`, or null for a one-time run. */
export function dueAfter(shape: ScheduleShape, due: Date): Date | null {
  if (shape.runAt) return null;
  if (shape.intervalSeconds) return new Date(due.getTime() + shape.intervalSeconds * 1000);
  return nextSlot({ cron: shape.cron!, timezone: zoneOf(shape) }, due);
}

/** Every due time from `from` (itself due) up to `now`, oldest first, at most `cap`. */
export function dueTimesThrough(shape: ScheduleShape, from: Date, now: Date, cap = 1_000): Date[] {
  const times: Date[] = [];
  for (let due: Date | null = from; due && due <= now && times.length < cap; due = dueAfter(shape, due)) times.push(due);
  return times;
}

/** The first due time strictly after `now`, continuing the schedule's own rhythm from `from`. */
export function nextDueAfter(shape: ScheduleShape, from: Date, now: Date): Date | null {
  if (shape.runAt) return from > now ? from : null;
  if (shape.intervalSeconds) {
    const step = shape.intervalSeconds * 1000;
    if (from > now) return from;
    return new Date(from.getTime() + (Math.floor((now.getTime() - from.getTime()) / step) + 1) * step);
  }
  return nextSlot({ cron: shape.cron!, timezone: zoneOf(shape) }, from > now ? new Date(from.getTime() - 1) : now);
}

export interface MissedPolicy {
  missedRuns: "skip" | "latest" | "all";
  maxLatenessSeconds: number;
  /** At most this many runs for one catch-up (all). */
  maxCatchUp: number;
}

/** A fire this close to its due time is on time, not a catch-up. */
export const ON_TIME_MS = 60_000;

/**
 * Which of the due times (oldest first) to run now and which to skip. Later than the maximum lateness:
 * skipped whatever the policy. Otherwise skip runs only the latest on-time one, latest the latest one,
 * all the latest maxCatchUp of them (oldest first). A schedule on time has one due time: it runs.
 */
export function chooseDueTimes(due: Date[], now: Date, policy: MissedPolicy): { run: Date[]; skip: Date[] } {
  const lateness = (time: Date) => now.getTime() - time.getTime();
  const eligible = due.filter((time) => lateness(time) <= policy.maxLatenessSeconds * 1000);
  const onTime = eligible.filter((time) => lateness(time) <= ON_TIME_MS);
  const run =
    policy.missedRuns === "skip" ? onTime.slice(-1) : policy.missedRuns === "latest" ? eligible.slice(-1) : eligible.slice(-policy.maxCatchUp);
  return { run, skip: due.filter((time) => !run.includes(time)) };
}

// --- Naive local times -------------------------------------------------------------------------------

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Throws RangeError for a zone Intl does not know. */
function formatter(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(zone, format);
  }
  return format;
}

export function isTimeZone(zone: string): boolean {
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC at instant `ms`, in ms (the wall time there minus UTC). */
function offsetAt(zone: string, ms: number): number {
  const parts = Object.fromEntries(formatter(zone).formatToParts(new Date(ms)).map((part) => [part.type, part.value]));
  const wall = Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!);
  return wall - Math.floor(ms / 1000) * 1000;
}

/**
 * The instant of ISO 8601 `text`: with an offset (or Z) as written; naive, as a wall time in `zone`. A
 * wall time the clocks skip is the first instant after the gap; a repeated one its first occurrence.
 */
export function parseRunAt(text: string, zone: string): Date {
  if (/(Z|[+-]\d{2}:?\d{2})$/.test(text)) return new Date(text.replace(" ", "T"));
  const [date, time = "00:00"] = text.split(/[T ]/);
  const [year, month, day] = date!.split("-").map(Number);
  const [hour, minute, second = "0"] = time.split(":");
  const seconds = Number(second);
  const wall = Date.UTC(year!, month! - 1, day!, Number(hour), Number(minute), Math.floor(seconds), Math.round((seconds % 1) * 1000));
  // The zone's offsets a day either side: a transition near the wall time lies between them.
  const offsets = [...new Set([offsetAt(zone, wall - 86_400_000), offsetAt(zone, wall + 86_400_000), offsetAt(zone, wall)])];
  const exact = offsets.map((offset) => wall - offset).filter((instant) => instant + offsetAt(zone, instant) === wall);
  if (exact.length > 0) return new Date(Math.min(...exact));
  // Skipped: the transition, between the instant read with the later offset and the one with the earlier.
  let low = Math.min(...offsets.map((offset) => wall - offset));
  let high = Math.max(...offsets.map((offset) => wall - offset));
  const before = offsetAt(zone, low);
  while (high - low > 1_000) {
    const middle = Math.floor((low + high) / 2);
    if (offsetAt(zone, middle) === before) low = middle;
    else high = middle;
  }
  return new Date(Math.ceil(high / 1_000) * 1_000);
}
