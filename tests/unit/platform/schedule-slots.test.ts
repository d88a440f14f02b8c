// The next slot of a schedule in its time zone, across daylight-saving changes.
import { describe, expect, it } from "vitest";
import { checkSchedule, nextSlot } from "@/server/platform/infrastructure/schedule-slots";
import { jobIdForKey } from "@/server/platform/infrastructure/job-queue";

const berlin = (cron: string) => ({ cron, timezone: "Europe/Berlin" });

describe("nextSlot", () => {
  it("reads the hours in the schedule's zone", () => {
    // 09:00 in Berlin is 08:00 UTC in winter, 07:00 UTC in summer.
    expect(nextSlot(berlin("0 9 * * *"), new Date("2026-01-10T12:00:00Z")).toISOString()).toBe("2026-01-11T08:00:00.000Z");
    expect(nextSlot(berlin("0 9 * * *"), new Date("2026-07-10T12:00:00Z")).toISOString()).toBe("2026-07-11T07:00:00.000Z");
    expect(nextSlot({ cron: "0 9 * * *", timezone: "UTC" }, new Date("2026-07-10T12:00:00Z")).toISOString()).toBe("2026-07-11T09:00:00.000Z");
  });

  it("is strictly after the given instant", () => {
    const slot = new Date("2026-01-11T08:00:00Z");
    expect(nextSlot(berlin("0 9 * * *"), slot).toISOString()).toBe("2026-01-12T08:00:00.000Z");
    expect(nextSlot(berlin("*/5 * * * * *"), new Date("2026-01-11T08:00:00.001Z")).toISOString()).toBe("2026-01-11T08:00:05.000Z");
  });

  it("fires a slot the spring-forward gap skips at the first instant after the gap, once", () => {
    // 2026-03-29: Berlin goes from 02:00 CET straight to 03:00 CEST; 02:30 does not exist that day.
    const first = nextSlot(berlin("30 2 * * *"), new Date("2026-03-28T12:00:00Z"));
    expect(first.toISOString()).toBe("2026-03-29T01:00:00.000Z");
    expect(nextSlot(berlin("30 2 * * *"), first).toISOString()).toBe("2026-03-30T00:30:00.000Z");
  });

  it("fires a wall time the fall-back hour repeats once, at its first occurrence", () => {
    // 2026-10-25: 02:30 happens at 00:30 UTC (CEST) and again at 01:30 UTC (CET).
    const first = nextSlot(berlin("30 2 * * *"), new Date("2026-10-24T12:00:00Z"));
    expect(first.toISOString()).toBe("2026-10-25T00:30:00.000Z");
    expect(nextSlot(berlin("30 2 * * *"), first).toISOString()).toBe("2026-10-26T01:30:00.000Z");
  });

  it("keeps an hourly schedule hourly in UTC through the fall-back hour", () => {
    let at = new Date("2026-10-24T23:30:00Z");
    const slots: string[] = [];
    for (let i = 0; i < 4; i++) slots.push((at = nextSlot(berlin("0 * * * *"), at)).toISOString());
    expect(slots).toEqual(["2026-10-25T00:00:00.000Z", "2026-10-25T01:00:00.000Z", "2026-10-25T02:00:00.000Z", "2026-10-25T03:00:00.000Z"]);
  });
});

describe("checkSchedule", () => {
  it("takes five or six fields and a known zone", () => {
    expect(() => checkSchedule({ cron: "*/15 * * * *", timezone: "America/New_York" })).not.toThrow();
    expect(() => checkSchedule({ cron: "* * * * * *", timezone: "UTC" })).not.toThrow();
    expect(() => checkSchedule({ cron: "30 0 0 1 1 *", timezone: "Asia/Kolkata" })).not.toThrow();
    expect(() => checkSchedule({ cron: "0 0 0 1 1 * 2030", timezone: "UTC" })).toThrow(/5 fields/);
    expect(() => checkSchedule({ cron: "61 * * * *", timezone: "UTC" })).toThrow();
    expect(() => checkSchedule({ cron: "* * * * *", timezone: "Europe/Atlantis" })).toThrow();
  });
});

describe("jobIdForKey", () => {
  it("is a UUID fixed by the name and the key", () => {
    const id = jobIdForKey("webhook", "delivery-1");
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(jobIdForKey("webhook", "delivery-1")).toBe(id);
    expect(jobIdForKey("webhook", "delivery-2")).not.toBe(id);
    expect(jobIdForKey("other", "delivery-1")).not.toBe(id);
  });
});
