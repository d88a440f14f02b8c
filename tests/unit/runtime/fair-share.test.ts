// Fair sharing (runtime/fair-share.ts): a run that streams without pause gives the event loop back
// right after its first token and then every few milliseconds, as the executor's loop reads its parts;
// one whose parts come one turn of the loop at a time does not. What waits for first words (the
// embedded platform's in-process webhook attempts) waits for every pass yet to speak, up to a deadline.
import type { TextStreamPart, ToolSet } from "ai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fairShare, firstWordsSaid } from "@/server/platform/runtime/fair-share";

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

  it("lets the loop turn every few milliseconds while many runs stream without pause", async () => {
    // Ten runs streaming without pause, and a timer that fires at every turn of the loop (as a
    // request's socket would be read): between two turns, about one slice of parts goes on (and at
    // most one more part of each run that resumes), where without stepping back all 120 would.
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
    const stretches = log.join(",").split("turn").map((stretch) => stretch.split(",").filter(Boolean).length);
    expect(Math.max(...stretches)).toBeLessThanOrEqual(16);
    expect(log.filter((entry) => entry === "turn").length).toBeGreaterThan(8);
  });

  it("never steps back for parts that arrive one turn of the loop at a time, however long apart", async () => {
    // A model that paces its words (a timer each): each part starts its own stretch.
    const immediate = vi.spyOn(globalThis, "setImmediate");
    const share = fairShare();
    const steps: boolean[] = [];
    for (let index = 0; index < 12; index++) {
      await new Promise((resolve) => setTimeout(resolve, 6));
      busy(1);
      const turn = share.after(delta(`w${index}`));
      steps.push(turn !== undefined);
      if (turn) await turn;
    }
    // Only the first token steps back.
    expect(steps).toEqual([true, ...Array.from({ length: 11 }, () => false)]);
    expect(immediate.mock.calls.length).toBeLessThan(30);
  });

  it("does not step back while the slice lasts", async () => {
    // A stretch left from the test before ends at the next check phase.
    await new Promise((resolve) => setImmediate(resolve));
    vi.spyOn(performance, "now").mockReturnValue(1_000);
    const share = fairShare();
    expect(share.after({ type: "text-start", id: "t" } as Part)).toBeUndefined();
    expect(share.after(delta("first"))).toBeInstanceOf(Promise);
    expect(share.after(delta("second"))).toBeUndefined();
  });
});

describe("firstWordsSaid", () => {
  /** Whether `promise` has settled once the loop has turned. */
  const settled = async (promise: Promise<void>) => {
    let done = false;
    void promise.then(() => (done = true));
    await new Promise((resolve) => setImmediate(resolve));
    return done;
  };
  const later = () => Date.now() + 60_000;

  it("resolves at once when no pass is yet to speak", async () => {
    expect(await settled(firstWordsSaid(later()))).toBe(true);
  });

  it("waits until every pass has said its first word or ended", async () => {
    const speaking = fairShare();
    const silent = fairShare();
    const waited = firstWordsSaid(later());
    expect(await settled(waited)).toBe(false);
    // A part that is no word does not count; a word does.
    speaking.after({ type: "text-start", id: "t" } as Part);
    expect(await settled(waited)).toBe(false);
    await speaking.after(delta("first"));
    expect(await settled(waited)).toBe(false);
    // A pass that ends without a word (failed, handed back) holds nothing back, and ending twice counts once.
    silent.end();
    silent.end();
    expect(await settled(waited)).toBe(true);
    speaking.end();
    expect(await settled(firstWordsSaid(later()))).toBe(true);
  });

  it("gives up waiting at its deadline, or when told to stop", async () => {
    const silent = fairShare();
    try {
      const started = Date.now();
      await firstWordsSaid(started + 50);
      expect(Date.now() - started).toBeGreaterThanOrEqual(45);
      const stop = new AbortController();
      const waited = firstWordsSaid(later(), stop.signal);
      expect(await settled(waited)).toBe(false);
      stop.abort();
      expect(await settled(waited)).toBe(true);
      expect(await settled(firstWordsSaid(Date.now() - 1))).toBe(true);
    } finally {
      silent.end();
    }
  });
});
