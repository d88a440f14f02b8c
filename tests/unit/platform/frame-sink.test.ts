// The frame sink (runtime/frame-sink.ts) hands the statement that ends a pass the frames it has not
// written: after the write in flight, with no write started while they are held, and back in their
// place when that statement did not write them.
import { describe, expect, it } from "vitest";
import type { RunFrame } from "@inlay/core/schemas/runs";
import type { EventBatch } from "@/server/platform/infrastructure/event-bus";
import { createLiveContent } from "@/server/platform/infrastructure/live-content";
import type { AppendedEvents } from "@/server/platform/repositories/run-events";
import { FrameSink } from "@/server/platform/runtime/frame-sink";

const word = (text: string): RunFrame => ({ type: "content_block_delta", id: "t", delta: { type: "text_delta", text } });
const texts = (frames: RunFrame[]) => frames.map((frame) => (frame.type === "content_block_delta" && frame.delta.type === "text_delta" ? frame.delta.text : frame.type));

/** A writer whose appends wait until the test lets each one finish; ids count up from 1. */
function slowWriter() {
  const written: string[][] = [];
  const waiting: (() => void)[] = [];
  let next = 1n;
  return {
    written,
    /** Lets the oldest append in flight commit. */
    finishOne: () => waiting.shift()?.(),
    inFlight: () => waiting.length,
    /** Ids another statement (the pass's end) drew from the sequence meanwhile. */
    takenElsewhere: (count: number) => void (next += BigInt(count)),
    events: {
      append(_runId: number, frames: RunFrame[]): Promise<AppendedEvents> {
        return new Promise((resolve) => {
          waiting.push(() => {
            written.push(texts(frames));
            const after = next - 1n;
            const ids = frames.map(() => next++);
            resolve({ after, ids });
          });
        });
      },
    },
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("FrameSink.hold", () => {
  it("waits for the write in flight, hands over the rest, and starts no write while it holds them", async () => {
    const writer = slowWriter();
    const published: EventBatch[] = [];
    const sink = new FrameSink(1, { events: writer.events, live: createLiveContent(), publish: async (batch) => void published.push(batch) });
    sink.push(word("a"));
    await turn();
    sink.push(word("b"), word("c"));
    let held: RunFrame[] | undefined;
    const holding = sink.hold().then((frames) => (held = frames));
    await turn();
    expect(held).toBeUndefined();
    writer.finishOne();
    await holding;
    expect(texts(held!)).toEqual(["b", "c"]);
    // Held: a frame pushed now waits, and nothing else goes to the writer.
    sink.push(word("d"));
    await turn();
    expect(writer.inFlight()).toBe(0);
    // The statement that ends the pass wrote them with one of its own (ids 2-4): they are published, then "d" is written.
    const ended = [...held!, { type: "done", completion_state: "completed", stop_reason: "stop", message_count: 1 } as RunFrame];
    writer.takenElsewhere(3);
    const afterEnd = sink.written(ended, { after: 1n, ids: [2n, 3n, 4n] });
    await turn();
    writer.finishOne();
    await afterEnd;
    expect(writer.written).toEqual([["a"], ["d"]]);
    expect(published.map((batch) => [batch.after, texts(batch.events.map((event) => event.frame))])).toEqual([
      [0n, ["a"]],
      [1n, ["b", "c", "done"]],
      [4n, ["d"]],
    ]);
  });

  it("gives the frames back in their place when the end did not write them", async () => {
    const writer = slowWriter();
    const sink = new FrameSink(1, { events: writer.events, live: createLiveContent(), publish: async () => {} });
    sink.push(word("a"));
    await turn();
    sink.push(word("b"), word("c"));
    const holding = sink.hold();
    writer.finishOne();
    const held = await holding;
    sink.push(word("d"));
    sink.release(held);
    const flushed = sink.flush();
    await turn();
    writer.finishOne();
    await flushed;
    expect(writer.written).toEqual([["a"], ["b", "c", "d"]]);
  });
});
