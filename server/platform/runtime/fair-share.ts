// A model that streams faster than the loop can handle (the sim without ::delay, a burst from a
// provider) keeps the loop reading already-queued parts in microtasks, so no timer, socket or other
// run gets the event loop until its whole answer is read; with many such runs at once, until all of
// theirs are (200 runs of 200 words: seconds). The executor's loop over a run's stream asks this after
// each part and steps back (to the check phase, after the poll phase has read requests and database
// answers) once the stretch of parts read without the loop turning passes SLICE_MS, whichever runs
// they belong to, and right after a run's first token, so what it says next waits behind the start-up
// work (requests, round trips) of runs that have not said anything yet.
//
// Work that can wait until the answers under way have begun (the embedded platform's in-process
// webhook attempts: the run ledger's bookkeeping after an answer) asks `firstWordsSaid`, which resolves
// once no pass of this thread is still to say its first word, or at a deadline. In a burst, the runs
// that ended first would otherwise settle on the event loop while the others wait to start.
//
// Parts that come one turn of the loop at a time (a model that paces its words, each in its own timer
// or socket callback) never make a long stretch, so they never step back: a budget per turn for the
// runs that stepped back (this module's first form, before the worker design removed it) made 1,000
// paced streams queue behind it (frame delay p99 3.9–6.7 s against 0.74–0.78 s without; figures in
// bench/results/2026-11-27-settlement-and-first-token.md).
import type { TextStreamPart, ToolSet } from "ai";

/** How long parts are read, together, before the run reading steps back. */
const SLICE_MS = 4;

const isToken = (part: TextStreamPart<ToolSet>) => part.type === "text-delta" || part.type === "tool-call";

// When the current stretch of parts began: set by the first part read after the last reset, reset by
// an immediate (the check phase of this turn of the event loop, or of the next).
let stretchStartedAt: number | undefined;

function stretchMs(now: number): number {
  if (stretchStartedAt === undefined) {
    stretchStartedAt = now;
    setImmediate(() => (stretchStartedAt = undefined));
  }
  return now - stretchStartedAt;
}

// Passes of this thread that have not said their first word yet, and who waits for there to be none.
let unspoken = 0;
const waitingForWords = new Set<() => void>();

function spoke() {
  unspoken -= 1;
  if (unspoken > 0) return;
  for (const resolve of waitingForWords) resolve();
  waitingForWords.clear();
}

export interface FairShare {
  /**
   * Called after the loop handled `part`: a promise to await before reading on when the stretch is
   * used up (or this run just said its first word), undefined when it may go on at once.
   */
  after(part: TextStreamPart<ToolSet>): Promise<void> | undefined;
  /** The pass ended: if it said nothing, it no longer holds back what waits for first words. */
  end(): void;
}

/** A pass's share of the event loop; it counts as yet to speak until its first word or its end. */
export function fairShare(): FairShare {
  let spoken = false;
  unspoken += 1;
  return {
    after(part) {
      const first = !spoken && isToken(part);
      if (first) {
        spoken = true;
        spoke();
      }
      if (!first && stretchMs(performance.now()) < SLICE_MS) return undefined;
      return new Promise<void>((resolve) => setImmediate(resolve));
    },
    end() {
      if (spoken) return;
      spoken = true;
      spoke();
    },
  };
}

/**
 * Resolves once every pass of this thread has said its first word (at once when none is waiting to),
 * or at `deadline` (a Date.now() time) at the latest, or when `signal` aborts.
 */
export function firstWordsSaid(deadline: number, signal?: AbortSignal): Promise<void> {
  const ms = deadline - Date.now();
  if (unspoken === 0 || ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      waitingForWords.delete(done);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    waitingForWords.add(done);
    signal?.addEventListener("abort", done, { once: true });
  });
}
