// Merging text deltas (repositories/run-event-compaction.ts): which rows merge, and what a resuming reader gets.
import { describe, expect, it } from "vitest";
import type { RunFrame } from "@inlay/core/schemas/runs";
import { frameAfter, planCompaction, type StoredFrame } from "@/server/platform/repositories/run-event-compaction";

const delta = (block: string, text: string): RunFrame => ({ type: "content_block_delta", id: block, delta: { type: "text_delta", text } });
const log = (...frames: [number, RunFrame][]): StoredFrame[] => frames.map(([id, frame]) => ({ id: BigInt(id), frame }));

describe("planCompaction", () => {
  it("merges runs of two or more deltas of one block, broken by other frames and other blocks", () => {
    const merges = planCompaction(
      log([1, delta("a", "x")], [4, delta("a", "y")], [9, delta("b", "z")], [10, { type: "run_status", status: "running" }], [12, delta("b", "1")], [13, delta("b", "2")]),
    );
    expect(merges).toEqual([
      { keep: 4n, remove: [1n], frame: { ...delta("a", "xy"), compacted: { ids: ["1"], ends: [1] } } },
      { keep: 13n, remove: [12n], frame: { ...delta("b", "12"), compacted: { ids: ["12"], ends: [1] } } },
    ]);
  });

  it("merges an already merged frame with later deltas, keeping every cut", () => {
    const [first] = planCompaction(log([1, delta("a", "ab")], [2, delta("a", "cd")]));
    const [second] = planCompaction(log([2, first!.frame], [5, delta("a", "e")]));
    expect(second!.frame).toEqual({ ...delta("a", "abcde"), compacted: { ids: ["1", "2"], ends: [2, 4] } });
    expect(frameAfter(second!.frame, 1n)).toEqual(delta("a", "cde"));
    expect(frameAfter(second!.frame, 2n)).toEqual(delta("a", "e"));
  });
});

describe("frameAfter", () => {
  const [merged] = planCompaction(log([3, delta("a", "He")], [7, delta("a", "llo")], [8, delta("a", " you")]));

  it("gives the whole text to a reader from before the range, without the cut list", () => {
    expect(frameAfter(merged!.frame, 0n)).toEqual(delta("a", "Hello you"));
    expect(frameAfter(merged!.frame, 2n)).toEqual(delta("a", "Hello you"));
  });

  it("gives a reader inside the range only what followed its last id", () => {
    expect(frameAfter(merged!.frame, 3n)).toEqual(delta("a", "llo you"));
    expect(frameAfter(merged!.frame, 5n)).toEqual(delta("a", "llo you"));
    expect(frameAfter(merged!.frame, 7n)).toEqual(delta("a", " you"));
  });

  it("leaves other frames alone", () => {
    const done: RunFrame = { type: "done", completion_state: "complete", stop_reason: "end_turn", message_count: 1 };
    expect(frameAfter(done, 5n)).toBe(done);
    expect(frameAfter(delta("a", "x"), 5n)).toEqual(delta("a", "x"));
  });
});
