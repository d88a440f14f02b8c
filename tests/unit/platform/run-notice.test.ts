// The event writer's NOTIFY payload for one run (repositories/run-events.ts): its frames when they fit, the
// run alone otherwise; anything else is not a notice.
import { describe, expect, it } from "vitest";
import { parseRunNotice } from "@/server/platform/repositories/run-events";

describe("parseRunNotice", () => {
  it("reads the run, the cursor bounds and, on demand, the frames as stored", () => {
    const frame = { type: "content_block_delta", id: "t", delta: { type: "text_delta", text: "a b\tc" } };
    const notice = parseRunNotice(`42 7 9 ${JSON.stringify([["8", frame], ["9", { type: "done" }]])}`);
    expect(notice?.runId).toBe(42);
    expect(notice?.batch).toMatchObject({ after: 7n, last: 9n });
    expect(notice?.batch?.events()).toEqual([
      { id: 8n, frame },
      { id: 9n, frame: { type: "done" } },
    ]);
  });

  it("names the run alone when its frames did not fit", () => {
    expect(parseRunNotice("42")).toEqual({ runId: 42 });
  });

  it("is no notice without a run id, and a bare wake-up without whole bounds", () => {
    expect(parseRunNotice("")).toBeUndefined();
    expect(parseRunNotice("x 1 2 []")).toBeUndefined();
    expect(parseRunNotice("-3")).toBeUndefined();
    expect(parseRunNotice("42 7")).toEqual({ runId: 42 });
    expect(parseRunNotice("42 7 x []")).toEqual({ runId: 42 });
  });
});
