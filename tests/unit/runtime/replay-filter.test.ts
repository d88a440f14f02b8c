// A resumed pass leaves out the text readers already have from the pass that was cut off
// (runtime/recovery.ts, replayFilter), whatever the deltas' boundaries, and tells readers to drop the
// old text when the new pass says something else.
import { describe, expect, it } from "vitest";
import type { RunFrame } from "@/lib/schemas/runs";
import { replayFilter } from "@/server/platform/runtime/recovery";

const replay = { text: "alpha bravo charlie", discardAfter: 41n, attempt: 1 };
const texts = (frames: RunFrame[]) => frames.map((frame) => (frame.type === "content_block_delta" ? frame.delta.text : `<${frame.type}>`));

describe("replayFilter", () => {
  it("writes nothing while the new pass repeats the old text, then only what is new", () => {
    const filter = replayFilter(replay);
    const out = [...filter.delta("t0", "alpha "), ...filter.delta("t0", "bra"), ...filter.delta("t0", "vo charlie del"), ...filter.delta("t0", "ta")];
    expect(texts(out)).toEqual([" del", "ta"]);
    expect(filter.other()).toEqual([]);
  });

  it("writes nothing more once the old text is repeated exactly", () => {
    const filter = replayFilter(replay);
    expect([...filter.delta("t0", "alpha bravo "), ...filter.delta("t0", "charlie")]).toEqual([]);
    expect(texts(filter.delta("t0", "!"))).toEqual(["!"]);
  });

  it("tells readers to drop the old text and writes the new text whole when the two part ways", () => {
    const filter = replayFilter(replay);
    expect(filter.delta("t0", "alpha ")).toEqual([]);
    const out = filter.delta("t0", "zulu");
    expect(out[0]).toEqual({ type: "run_status", status: "running", resumed: true, attempt: 1, discard_after: "41" });
    expect(texts(out.slice(1))).toEqual(["alpha zulu"]);
    // From then on, every delta goes through as it is.
    expect(texts(filter.delta("t0", " yankee"))).toEqual([" yankee"]);
  });

  it("tells readers to drop the old text when the new pass stops short of it (a tool call instead)", () => {
    const filter = replayFilter(replay);
    expect(filter.delta("t0", "alpha")).toEqual([]);
    const out = filter.other();
    expect(texts(out)).toEqual(["<run_status>", "alpha"]);
    expect(filter.other()).toEqual([]);
  });
});
