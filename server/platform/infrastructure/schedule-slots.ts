// When a schedule fires: the slots of a cron expression in an IANA time zone, computed with croner.
// Five fields (minute precision) or six (with seconds first, which tests use to fire every second).
import { Cron } from "croner";

export interface ScheduleSpec {
  cron: string;
  /** An IANA time zone ("Europe/Berlin", "UTC"): the cron's hours and days are read there. */
  timezone: string;
}

/** Throws a readable error for an expression croner rejects, a seven-field one, or an unknown zone. */
export function checkSchedule(spec: ScheduleSpec): void {
  const fields = spec.cron.trim().split(/\s+/).length;
  if (fields !== 5 && fields !== 6) throw new Error(`cron "${spec.cron}" must have 5 fields, or 6 with seconds first`);
  // croner checks the fields and the zone when it computes a slot.
  nextSlot(spec, new Date());
}

/**
 * The first slot strictly after `after`. On a day the clocks skip a slot's wall time (spring forward),
 * croner fires at the first instant after the gap; on a day they repeat it (fall back), once, at the
 * first occurrence.
 */
export function nextSlot(spec: ScheduleSpec, after: Date): Date {
  const cron = new Cron(spec.cron, { timezone: spec.timezone, paused: true });
  const next = cron.nextRun(after);
  if (!next) throw new Error(`cron "${spec.cron}" has no slot after ${after.toISOString()}`);
  return next;
}
