// Schedule triggers' due times with a fixed clock: intervals, cron in a zone across DST, naive run_at
// in a zone (gaps and repeats), and the missed_runs policies.
import { describe, expect, it } from "vitest";
import { chooseDueTimes, dueTimesThrough, firstDue, nextDueAfter, parseRunAt } from "@/server/platform/services/tasks/trigger-schedule";

const at = (iso: string) => new Date(iso);
const iso = (dates: Date[]) => dates.map((date) => date.toISOString());
const interval = (seconds: number) => ({ cron: null, intervalSeconds: seconds, runAt: null, timezone: null });
const cron = (expression: string, timezone: string) => ({ cron: expression, intervalSeconds: null, runAt: null, timezone });

describe("interval schedules", () => {
  it("are first due one interval after creation, then every interval", () => {
    const now = at("2026-03-01T10:00:00Z");
    const first = firstDue(interval(60), now);
    expect(first.toISOString()).toBe("2026-03-01T10:01:00.000Z");
    expect(iso(dueTimesThrough(interval(60), first, at("2026-03-01T10:03:30Z")))).toEqual([
      "2026-03-01T10:01:00.000Z",
      "2026-03-01T10:02:00.000Z",
      "2026-03-01T10:03:00.000Z",
    ]);
    // After downtime the rhythm continues from the schedule's own due times, not from the restart.
    expect(nextDueAfter(interval(60), first, at("2026-03-01T10:03:30Z"))!.toISOString()).toBe("2026-03-01T10:04:00.000Z");
  });
});

describe("cron schedules in a time zone", () => {
  it("fire at the wall time of the zone, winter and summer", () => {
    const weekdays9 = cron("0 9 * * 1-5", "Europe/Berlin");
    expect(firstDue(weekdays9, at("2026-01-05T07:00:00Z")).toISOString()).toBe("2026-01-05T08:00:00.000Z");
    expect(firstDue(weekdays9, at("2026-07-06T06:00:00Z")).toISOString()).toBe("2026-07-06T07:00:00.000Z");
  });

  it("a wall time the clocks skip fires at the first instant after the gap, once", () => {
    // Berlin, 29 March 2026: 02:00 jumps to 03:00.
    const daily230 = cron("30 2 * * *", "Europe/Berlin");
    const due = firstDue(daily230, at("2026-03-28T12:00:00Z"));
    expect(due.toISOString()).toBe("2026-03-29T01:00:00.000Z");
    expect(nextDueAfter(daily230, due, due)!.toISOString()).toBe("2026-03-30T00:30:00.000Z");
  });

  it("a wall time the clocks repeat fires once, at its first occurrence", () => {
    // Berlin, 25 October 2026: 03:00 falls back to 02:00.
    const daily230 = cron("30 2 * * *", "Europe/Berlin");
    const due = firstDue(daily230, at("2026-10-24T12:00:00Z"));
    expect(due.toISOString()).toBe("2026-10-25T00:30:00.000Z");
    expect(nextDueAfter(daily230, due, due)!.toISOString()).toBe("2026-10-26T01:30:00.000Z");
  });
});

describe("run_at", () => {
  it("with an offset is taken as written; naive is read in the zone", () => {
    expect(parseRunAt("2026-06-01T09:00:00+02:00", "UTC").toISOString()).toBe("2026-06-01T07:00:00.000Z");
    expect(parseRunAt("2026-06-01T09:00:00Z", "Asia/Tokyo").toISOString()).toBe("2026-06-01T09:00:00.000Z");
    expect(parseRunAt("2026-06-01T09:00", "America/New_York").toISOString()).toBe("2026-06-01T13:00:00.000Z");
    expect(parseRunAt("2026-01-15 09:00:00", "Europe/Berlin").toISOString()).toBe("2026-01-15T08:00:00.000Z");
  });

  it("a naive time in a DST gap is the first instant after it; a repeated one its first occurrence", () => {
    expect(parseRunAt("2026-03-29T02:30:00", "Europe/Berlin").toISOString()).toBe("2026-03-29T01:00:00.000Z");
    expect(parseRunAt("2026-10-25T02:30:00", "Europe/Berlin").toISOString()).toBe("2026-10-25T00:30:00.000Z");
    expect(parseRunAt("2026-03-08T02:30:00", "America/New_York").toISOString()).toBe("2026-03-08T07:00:00.000Z");
  });

  it("is due once: nothing after it", () => {
    const once = { cron: null, intervalSeconds: null, runAt: at("2026-06-01T09:00:00Z"), timezone: "UTC" };
    expect(firstDue(once, at("2026-05-01T00:00:00Z")).toISOString()).toBe("2026-06-01T09:00:00.000Z");
    expect(nextDueAfter(once, once.runAt, at("2026-06-01T09:00:01Z"))).toBeNull();
  });
});

describe("missed_runs after downtime", () => {
  const now = at("2026-03-01T12:00:00Z");
  // Due every hour from 08:00 to 12:00; the platform was down from 07:30 to 11:59:30.
  const due = ["08:00", "09:00", "10:00", "11:00", "12:00"].map((time) => at(`2026-03-01T${time}:00Z`));
  const policy = (missedRuns: "skip" | "latest" | "all", maxLatenessSeconds = 3 * 3600) => ({ missedRuns, maxLatenessSeconds, maxCatchUp: 2 });

  it("skip runs only the due time that is on time", () => {
    expect(iso(chooseDueTimes(due, now, policy("skip")).run)).toEqual(["2026-03-01T12:00:00.000Z"]);
    expect(iso(chooseDueTimes(due.slice(0, 4), now, policy("skip")).run)).toEqual([]);
  });

  it("latest runs the latest one, however late (within the maximum lateness)", () => {
    expect(iso(chooseDueTimes(due.slice(0, 4), now, policy("latest")).run)).toEqual(["2026-03-01T11:00:00.000Z"]);
    expect(iso(chooseDueTimes(due.slice(0, 2), now, policy("latest")).run)).toEqual(["2026-03-01T09:00:00.000Z"]);
    expect(iso(chooseDueTimes(due.slice(0, 2), now, policy("latest", 3600)).run)).toEqual([]);
  });

  it("all runs every one within the maximum lateness, at most maxCatchUp, and skips the rest", () => {
    const { run, skip } = chooseDueTimes(due, now, policy("all"));
    expect(iso(run)).toEqual(["2026-03-01T11:00:00.000Z", "2026-03-01T12:00:00.000Z"]);
    expect(iso(skip)).toEqual(["2026-03-01T08:00:00.000Z", "2026-03-01T09:00:00.000Z", "2026-03-01T10:00:00.000Z"]);
  });
});
