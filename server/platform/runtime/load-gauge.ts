// Whether this process has room to start executing another run (runtime/executor.ts, start()). Runs
// execute in the process that accepted them, on its one event loop, beside every request it serves:
// starting every accepted run at once lets a burst of executions starve the requests that create
// runs. What is measured is what the runs cost, not how many there are: a thousand runs mostly waiting
// (a slow model, `::delay`) leave room and all start, while a few busy ones fill it. A count of
// runs could not tell these apart. Two signals, read over a window:
// - the event loop's utilization (perf_hooks): the share of the window the loop spent working rather
//   than waiting for I/O. It covers this process's CPU, PGlite's work included (it runs on this loop);
// - for PostgreSQL, queries waiting for a pooled connection: the database (or the pool) is the
//   bottleneck, which the loop's utilization does not show while it waits for answers.
// Time runs spend streaming after they stepped back (fair-share.ts) is not counted: that work already
// yields to requests and new runs, at most a few milliseconds per turn of the loop, so it must not
// hold back the starts (a burst of fast streams kept every new run from its first token for seconds).
// While there is room, starts ramp up (a few in the first window, twice as many in each next one), so a
// burst of accepted runs is not all let in on one stale reading; a busy window stops them and halves
// the next window's allowance.
import { performance } from "node:perf_hooks";
import { continuationMs } from "./fair-share";

export interface LoadGauge {
  /** Whether one more run may start now; counts the start when it may. */
  tryStart(): boolean;
}

export interface EventLoopGaugeOptions {
  /** The window each reading covers; starts are budgeted per window. */
  windowMs?: number;
  /** Utilization (0-1) above which the loop counts as busy. */
  busyAbove?: number;
  /** True while queries queue for a database connection (PostgreSQL's pool). */
  databaseSaturated?: () => boolean;
  /** Milliseconds spent so far in work that yields (default: runs' slices, fair-share.ts); not counted as load. */
  yieldingMs?: () => number;
}

const FIRST_BURST = 4;
const MAX_BURST = 256;

/** Reads the loop's utilization lazily, when asked and at most once per window: no timer of its own. */
export function eventLoopGauge(options: EventLoopGaugeOptions = {}): LoadGauge {
  const windowMs = options.windowMs ?? 100;
  const busyAbove = options.busyAbove ?? 0.9;
  const saturated = options.databaseSaturated ?? (() => false);
  const yielding = options.yieldingMs ?? continuationMs;
  let mark = performance.eventLoopUtilization();
  let markedAt = performance.now();
  let continuedAt = yielding();
  let budget = FIRST_BURST;
  // The budget of the next window with room.
  let burst = FIRST_BURST * 2;
  return {
    tryStart() {
      const now = performance.now();
      if (now - markedAt >= windowMs) {
        const current = performance.eventLoopUtilization();
        const { active, idle } = performance.eventLoopUtilization(current, mark);
        const continued = yielding();
        const busy = (active - (continued - continuedAt)) / (active + idle) > busyAbove || saturated();
        mark = current;
        markedAt = now;
        continuedAt = continued;
        if (busy) {
          budget = 0;
          burst = Math.max(FIRST_BURST, burst / 2);
        } else {
          budget = burst;
          burst = Math.min(burst * 2, MAX_BURST);
        }
      }
      if (budget <= 0 || saturated()) return false;
      budget--;
      return true;
    },
  };
}
