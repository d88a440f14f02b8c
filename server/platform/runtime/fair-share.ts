// A model that streams faster than the loop can handle (the sim without ::delay, a burst from a
// provider) keeps the loop reading already-queued parts in microtasks, so no timer, socket or other
// run gets the event loop until its whole answer is read. The executor's loop over a run's stream asks
// this after each part, and hands the event loop back every few milliseconds, so runs interleave and
// their frames go out as they come. (It used to be a streamText transform: one more web stream per run
// and one more hop per part, which Node 20 makes costly.)
//
// First tokens first: a run also steps back right after its first token (whose frame the executor
// writes at once, event-writer.ts). What it does next (the rest of its answer, its final writes) then
// waits for the event loop's next turn, behind the runs that have not said anything yet: their
// start-up work (requests, database round trips) goes first.
import type { TextStreamPart, ToolSet } from "ai";

const SLICE_MS = 4;

const isToken = (part: TextStreamPart<ToolSet>) => part.type === "text-delta" || part.type === "tool-call";

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
      return new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        since = performance.now();
      });
    },
  };
}
