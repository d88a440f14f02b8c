// Fair sharing (runtime/fair-share.ts): a run that streams without pause gives the event loop back
// right after its first token and then every few milliseconds, as the executor's loop reads its parts.
import type { TextStreamPart, ToolSet } from "ai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { continuationMs, fairShare } from "@/server/platform/runtime/fair-share";

type Part = TextStreamPart<ToolSet>;
const delta = (text: string) => ({ type: "text-delta", id: "t", text }) as Part;

/** Reads `parts` as the executor does: each part handled, then its turn to step back awaited. */
async function consume(parts: Part[], handle: (part: Part) => void = () => {}) {
  const share = fairShare();
  for (const part of parts) {
    handle(part);
    const turn = share.after(part);
    if (turn) await turn;
  }
}

afterEach(() => vi.restoreAllMocks());

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // a model (or the loop reading it) that keeps the thread for `ms`
  }
};

describe("fairShare", () => {
  it("steps back right after the first token, before reading on", async () => {
    // No time passes: no slice ends, so only the first-token step back can let the loop turn.
    vi.spyOn(performance, "now").mockReturnValue(1_000);
    let turned = false;
    setImmediate(() => (turned = true));
    const seenBeforeTurn: string[] = [];
    await consume([{ type: "text-start", id: "t" } as Part, delta("one"), delta("two")], (part) => {
      if (!turned) seenBeforeTurn.push(part.type === "text-delta" ? part.text : part.type);
    });
    // "two" is read only after the loop had its turn; nothing else made it turn.
    expect(seenBeforeTurn).toEqual(["text-start", "one"]);
    expect(turned).toBe(true);
  });

  it("gives the loop back every few milliseconds to a run that streams without pause", async () => {
    const immediate = vi.spyOn(globalThis, "setImmediate");
    const parts = Array.from({ length: 40 }, (_, index) => delta(`w${index}`));
    await consume(parts, () => busy(1));
    // 40 parts ~1 ms apart: about one step back per 4 ms slice (and one after the first token), not one per part.
    expect(immediate.mock.calls.length).toBeGreaterThanOrEqual(5);
    expect(immediate.mock.calls.length).toBeLessThan(30);
  });

  it("gives the runs that stepped back a few milliseconds of each turn of the loop, together", async () => {
    // Ten runs streaming without pause, and a timer that fires at every turn of the loop (as a
    // request's socket would be read): between two turns, only about one run's slice goes on, where
    // each run took a slice of every turn before.
    const log: string[] = [];
    let ticking = true;
    const tick = () => {
      log.push("turn");
      if (ticking) setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
    const runs = Array.from({ length: 10 }, (_, run) =>
      consume(
        Array.from({ length: 12 }, (_, index) => delta(`w${index}`)),
        () => {
          log.push(`run ${run}`);
          busy(1);
        },
      ),
    );
    await Promise.all(runs);
    ticking = false;
    // Runs of parts between two turns, of any run: the longest is about one slice (4 parts of 1 ms).
    const stretches = log.join(",").split("turn").map((stretch) => stretch.split(",").filter(Boolean).length);
    expect(Math.max(...stretches)).toBeLessThanOrEqual(12);
    expect(log.filter((entry) => entry === "turn").length).toBeGreaterThan(10);
  });

  it("counts the time runs spend in slices after they stepped back", async () => {
    // What the runs of the test before still had to count, counted.
    await new Promise((resolve) => setImmediate(resolve));
    const before = continuationMs();
    const started = performance.now();
    await consume(
      Array.from({ length: 30 }, (_, index) => delta(`w${index}`)),
      () => busy(1),
    );
    const counted = continuationMs() - before;
    // 30 ms of work, most of it after the first step back; never more than the time that passed.
    expect(counted).toBeGreaterThan(10);
    expect(counted).toBeLessThanOrEqual(performance.now() - started);
  });

  it("does not step back while the slice lasts", async () => {
    vi.spyOn(performance, "now").mockReturnValue(1_000);
    const share = fairShare();
    expect(share.after({ type: "text-start", id: "t" } as Part)).toBeUndefined();
    expect(share.after(delta("first"))).toBeInstanceOf(Promise);
    expect(share.after(delta("second"))).toBeUndefined();
  });
});
