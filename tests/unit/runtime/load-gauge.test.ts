import { describe, expect, it } from "vitest";
import { eventLoopGauge } from "@/server/platform/runtime/load-gauge";

const WINDOW = 50;
const idle = () => new Promise((resolve) => setTimeout(resolve, WINDOW + 15));
const spin = () => {
  const until = performance.now() + WINDOW + 15;
  while (performance.now() < until) {
    // keep the event loop busy
  }
};
/** How many starts the gauge allows now, until it refuses. */
const starts = (gauge: { tryStart(): boolean }) => {
  let count = 0;
  while (gauge.tryStart() && count < 1000) count++;
  return count;
};

describe("eventLoopGauge", () => {
  it("lets a few starts through per window while the loop has room, twice as many each next window", async () => {
    const gauge = eventLoopGauge({ windowMs: WINDOW });
    expect(starts(gauge)).toBe(4);
    await idle();
    expect(starts(gauge)).toBe(8);
    await idle();
    expect(starts(gauge)).toBe(16);
  });

  it("refuses for a window after the loop was busy, then starts at half the rate", async () => {
    const gauge = eventLoopGauge({ windowMs: WINDOW });
    starts(gauge);
    await idle();
    starts(gauge);
    await idle();
    expect(starts(gauge)).toBe(16);
    spin();
    expect(starts(gauge)).toBe(0);
    await idle();
    expect(starts(gauge)).toBe(16);
    spin();
    expect(starts(gauge)).toBe(0);
    spin();
    expect(starts(gauge)).toBe(0);
    await idle();
    expect(starts(gauge)).toBe(8);
  });

  it("does not count work that yields (runs streaming after they stepped back) as load", async () => {
    let yielded = 0;
    const gauge = eventLoopGauge({ windowMs: WINDOW, yieldingMs: () => yielded });
    starts(gauge);
    await idle();
    expect(starts(gauge)).toBe(8);
    // A busy window, all of it in slices the runs gave back: starts go on, twice as many.
    const before = performance.now();
    spin();
    yielded += performance.now() - before;
    expect(starts(gauge)).toBe(16);
    // The same busy window, none of it yielding: refused.
    spin();
    expect(starts(gauge)).toBe(0);
  });

  it("refuses while queries wait for a database connection, however idle the loop", async () => {
    let saturated = true;
    const gauge = eventLoopGauge({ windowMs: WINDOW, databaseSaturated: () => saturated });
    expect(starts(gauge)).toBe(0);
    await idle();
    expect(starts(gauge)).toBe(0);
    saturated = false;
    await idle();
    expect(starts(gauge)).toBe(4);
  });
});
