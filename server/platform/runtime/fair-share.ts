// A model that streams faster than the loop can handle (the sim without ::delay, a burst from a
// provider) keeps the loop reading already-queued parts in microtasks, so no timer, socket or other
// run gets the event loop until its whole answer is read. This streamText transform hands the event
// loop back every few milliseconds, so runs interleave and their frames go out as they come.
import type { TextStreamPart, ToolSet } from "ai";

const SLICE_MS = 4;

export function yieldToEventLoop() {
  let since = performance.now();
  return new TransformStream<TextStreamPart<ToolSet>, TextStreamPart<ToolSet>>({
    async transform(part, controller) {
      controller.enqueue(part);
      if (performance.now() - since < SLICE_MS) return;
      await new Promise((resolve) => setImmediate(resolve));
      since = performance.now();
    },
  });
}
