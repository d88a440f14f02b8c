// A model that streams faster than the loop can handle (the sim without ::delay, a burst from a
// provider) keeps the loop reading already-queued parts in microtasks, so no timer, socket or other
// run gets the event loop until its whole answer is read. This streamText transform hands the event
// loop back every few milliseconds, so runs interleave and their frames go out as they come.
//
// First tokens first: a run also steps back right after its first token (whose frame the executor
// writes at once, event-writer.ts). What it does next (the rest of its answer, its final writes) then
// waits for the event loop's next turn, behind the runs that have not said anything yet: their
// start-up work (requests, database round trips) goes first.
import type { TextStreamPart, ToolSet } from "ai";

const SLICE_MS = 4;

const isToken = (part: TextStreamPart<ToolSet>) => part.type === "text-delta" || part.type === "tool-call";

export function yieldToEventLoop() {
  let since = performance.now();
  let spoken = false;
  return new TransformStream<TextStreamPart<ToolSet>, TextStreamPart<ToolSet>>({
    async transform(part, controller) {
      controller.enqueue(part);
      const first = !spoken && isToken(part);
      spoken ||= first;
      if (!first && performance.now() - since < SLICE_MS) return;
      await new Promise((resolve) => setImmediate(resolve));
      since = performance.now();
    },
  });
}
