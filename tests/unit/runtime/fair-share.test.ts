// The fair-share transform (runtime/fair-share.ts): a run that streams without pause gives the event
// loop back right after its first token and then every few milliseconds.
import type { TextStreamPart, ToolSet } from "ai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { yieldToEventLoop } from "@/server/platform/runtime/fair-share";

type Part = TextStreamPart<ToolSet>;
const delta = (text: string) => ({ type: "text-delta", id: "t", text }) as Part;

/** A stream of `parts`, all ready at once (as the sim without ::delay). */
function source(parts: Part[]) {
  let index = 0;
  return new ReadableStream<Part>({
    pull(controller) {
      if (index < parts.length) controller.enqueue(parts[index++]!);
      else controller.close();
    },
  });
}

afterEach(() => vi.restoreAllMocks());

describe("yieldToEventLoop", () => {
  it("steps back right after the first token, before reading on", async () => {
    // No time passes: no slice ends, so only the first-token step back can let the loop turn.
    vi.spyOn(performance, "now").mockReturnValue(1_000);
    const reader = source([{ type: "text-start", id: "t" } as Part, delta("one"), delta("two")])
      .pipeThrough(yieldToEventLoop())
      .getReader();
    let turned = false;
    setImmediate(() => (turned = true));
    expect((await reader.read()).value?.type).toBe("text-start");
    expect((await reader.read()).value).toMatchObject({ text: "one" });
    expect((await reader.read()).value).toMatchObject({ text: "two" });
    expect(turned).toBe(true);
  });

  it("gives the loop back every few milliseconds to a run that streams without pause", async () => {
    const immediate = vi.spyOn(globalThis, "setImmediate");
    const busy = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until) {
        // a model (or the loop reading it) that keeps the thread for `ms`
      }
    };
    const parts = Array.from({ length: 40 }, (_, index) => delta(`w${index}`));
    const reader = source(parts).pipeThrough(yieldToEventLoop()).getReader();
    while (!(await reader.read()).done) busy(1);
    // 40 parts ~1 ms apart: about one step back per 4 ms slice, not one per part.
    expect(immediate.mock.calls.length).toBeGreaterThanOrEqual(5);
    expect(immediate.mock.calls.length).toBeLessThan(30);
  });
});
