// A model that streams faster than the loop can handle (the sim without ::delay, a burst from a
// provider) keeps the loop reading already-queued parts in microtasks, so no timer, socket or other
// run gets the event loop until its whole answer is read. The executor's loop over a run's stream asks
// this after each part, and steps back every few milliseconds, so runs interleave and their frames go
// out as they come. (It used to be a streamText transform: one more web stream per run and one more
// hop per part, which Node 20 makes costly.)
//
// A run that stepped back goes on in a later turn of the event loop, and all such runs together get
// at most TURN_MS of each turn: the rest of the turn is the poll phase's, where requests are read and
// database answers come in. Without that budget every streaming run took a slice of every turn, so a
// request waited for all of them (200 streaming runs at 4 ms each: 800 ms per turn), and new runs'
// first tokens waited behind old runs' last ones. Time spent in these slices is counted
// (continuationMs), so the load gauge (load-gauge.ts) can tell work that yields from work that does not.
//
// First tokens first: a run also steps back right after its first token (whose frame the executor
// writes at once, event-writer.ts). What it does next then waits its turn behind the runs that have
// not said anything yet: their start-up work (requests, database round trips) goes first.
import type { TextStreamPart, ToolSet } from "ai";

/** How long one run reads on before it steps back. */
const SLICE_MS = 4;
/** How much of one turn of the event loop the runs that stepped back get, together. */
const TURN_MS = 4;

const isToken = (part: TextStreamPart<ToolSet>) => part.type === "text-delta" || part.type === "tool-call";

// Shared by every run of the process. A marker immediate opens each turn's check phase while runs are
// waiting: it is queued in the turn before, ahead of the runs' own, so `turnStartedAt` is when this
// turn's continuations began.
let turnStartedAt = -Infinity;
// At least one run goes on in every turn, whatever else the turn's check phase ran.
let resumedThisTurn = false;
let marking = false;
let waitingRuns = 0;
let sliceTotalMs = 0;

function markTurns() {
  if (marking) return;
  marking = true;
  setImmediate(function mark() {
    turnStartedAt = performance.now();
    resumedThisTurn = false;
    if (waitingRuns > 0) setImmediate(mark);
    else marking = false;
  });
}

/** Resolves in a turn whose budget is not yet spent (the next one, or later under load). */
function stepBack(): Promise<void> {
  waitingRuns++;
  markTurns();
  return new Promise<void>((resolve) => {
    const attempt = () => {
      const now = performance.now();
      if (now - turnStartedAt < TURN_MS || !resumedThisTurn) {
        resumedThisTurn = true;
        waitingRuns--;
        resolve();
        // The slice runs as the microtasks that follow; a tick queued from among them runs once they
        // are done (Node runs ticks queued by microtasks after the microtask queue is empty), which
        // is when the slice stepped back again or awaited I/O. Work the slice set off (an append's
        // statement on PGlite) can run on before that: no slice counts for more than two.
        queueMicrotask(() => process.nextTick(() => (sliceTotalMs += Math.min(performance.now() - now, 2 * SLICE_MS))));
      } else {
        setImmediate(attempt);
      }
    };
    setImmediate(attempt);
  });
}

/** Milliseconds this process spent in runs' slices after they stepped back, so far. */
export const continuationMs = () => sliceTotalMs;

export interface FairShare {
  /**
   * Called after the loop handled `part`: a promise to await before reading on when this run's slice
   * is used up (or it just said its first word), undefined when it may go on at once.
   */
  after(part: TextStreamPart<ToolSet>): Promise<void> | undefined;
}

export function fairShare(): FairShare {
  let since = performance.now();
  let spoken = false;
  return {
    after(part) {
      const first = !spoken && isToken(part);
      spoken ||= first;
      if (!first && performance.now() - since < SLICE_MS) return undefined;
      return stepBack().then(() => {
        since = performance.now();
      });
    },
  };
}
