// planWindow: the monthly windows of a plan's included runs and overage cap, from its anchor.
import { describe, expect, it } from "vitest";
import { planWindow } from "@/server/platform/services/billing/plans";

const at = (iso: string) => new Date(iso);
const window = (anchor: string, now: string) => {
  const { start, end } = planWindow(at(anchor), at(now));
  return [start.toISOString(), end.toISOString()];
};

describe("planWindow", () => {
  it("starts at the anchor and lasts a calendar month", () => {
    expect(window("2026-03-10T12:00:00.000Z", "2026-03-10T12:00:00.000Z")).toEqual(["2026-03-10T12:00:00.000Z", "2026-04-10T12:00:00.000Z"]);
    expect(window("2026-03-10T12:00:00.000Z", "2026-04-10T11:59:59.999Z")).toEqual(["2026-03-10T12:00:00.000Z", "2026-04-10T12:00:00.000Z"]);
    expect(window("2026-03-10T12:00:00.000Z", "2026-04-10T12:00:00.000Z")).toEqual(["2026-04-10T12:00:00.000Z", "2026-05-10T12:00:00.000Z"]);
    expect(window("2025-11-20T00:00:00.000Z", "2026-02-01T00:00:00.000Z")).toEqual(["2026-01-20T00:00:00.000Z", "2026-02-20T00:00:00.000Z"]);
  });

  it("ends a window anchored on the 31st on the last day of a shorter month", () => {
    expect(window("2026-01-31T08:00:00.000Z", "2026-02-15T00:00:00.000Z")).toEqual(["2026-01-31T08:00:00.000Z", "2026-02-28T08:00:00.000Z"]);
    expect(window("2026-01-31T08:00:00.000Z", "2026-03-01T00:00:00.000Z")).toEqual(["2026-02-28T08:00:00.000Z", "2026-03-31T08:00:00.000Z"]);
    expect(window("2028-01-31T08:00:00.000Z", "2028-02-29T09:00:00.000Z")).toEqual(["2028-02-29T08:00:00.000Z", "2028-03-31T08:00:00.000Z"]);
  });

  it("never starts before the anchor", () => {
    expect(window("2026-03-10T12:00:00.000Z", "2026-03-01T00:00:00.000Z")).toEqual(["2026-03-10T12:00:00.000Z", "2026-04-10T12:00:00.000Z"]);
  });
});
