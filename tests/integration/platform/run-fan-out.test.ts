// The executor hands its frames to SSE readers in its own process (infrastructure/event-bus.ts, EventBatch)
// instead of each reader reading the log per frame. Whatever path a frame takes, every reader must see
// the durable log: each frame once, ids strictly increasing and equal to the rows' ids.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { pollUntil } from "../../helpers/poll";
import { type Frame, readFrames } from "../../helpers/sse";

let platform: PlatformHarness;
let account: Account;
let agentId: number;

beforeAll(async () => {
  platform = await startPlatform();
  account = await platform.signup();
  agentId = (await platform.call("/agents", { key: account.key, body: { name: "Fan-out", user_id: "u1" } })).body.id;
});
afterAll(() => platform.close());

const auth = () => ({ authorization: `Bearer ${account.key}` });

const startRun = (body: Record<string, unknown>) =>
  platform.request("/runs?user_id=u1", {
    method: "POST",
    headers: { ...auth(), "content-type": "application/json" },
    body: JSON.stringify({ teammate_id: agentId, permission_mode: "autonomous", ...body }),
  });

const events = (runId: number, lastEventId?: string) =>
  platform.request(`/runs/${runId}/events?user_id=u1`, {
    headers: { ...auth(), ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
  });

const isDone = (frame: Frame) => frame.data.type === "done";

async function durableLog(runId: number) {
  const rows = await platform.database.prisma.platformRunEvent.findMany({ where: { runId }, orderBy: { id: "asc" } });
  return rows.map((row) => ({ id: row.id.toString(), type: row.type }));
}

/** Resolves once the run's log holds at least `count` words. */
const untilWords = (runId: number, count: number) =>
  pollUntil(async () => (await durableLog(runId)).filter((row) => row.type === "content_block_delta").length, (words) => words >= count, `${count} words of run ${runId}`);

function expectStrictlyIncreasing(frames: Frame[]) {
  const ids = frames.map((frame) => BigInt(frame.id!));
  for (let index = 1; index < ids.length; index++) expect(ids[index]! > ids[index - 1]!).toBe(true);
}

describe("in-process fan-out of run frames", () => {
  it("gives readers attaching mid-run the log so far, then live frames, with no gap and no duplicate", async () => {
    const post = await startRun({ message: "::delay 15\n::words 60" });
    const runId = Number(post.headers.get("x-run-id"));
    // The POST's own stream, read to the end in the background.
    const ownFrames = readFrames(post, { until: isDone });
    // Attach once the run is well under way: part of what these readers see is in the log already,
    // the rest arrives while they are attached.
    await untilWords(runId, 10);
    const early = await durableLog(runId);
    expect(early.at(-1)!.type).not.toBe("done");
    const fromStart = readFrames(await events(runId), { until: isDone });
    const cursor = early[4]!.id;
    const fromCursor = readFrames(await events(runId, cursor), { until: isDone });
    const [own, all, after] = await Promise.all([ownFrames, fromStart, fromCursor]);

    const log = await durableLog(runId);
    expect(log.at(-1)!.type).toBe("done");
    // More frames arrived while attached than were in the log when the readers attached.
    expect(log.length).toBeGreaterThan(early.length + 10);
    for (const frames of [own, all]) {
      expectStrictlyIncreasing(frames);
      expect(frames.map((frame) => ({ id: frame.id, type: frame.data.type }))).toEqual(log);
    }
    expectStrictlyIncreasing(after);
    expect(after.map((frame) => ({ id: frame.id, type: frame.data.type }))).toEqual(log.filter((row) => BigInt(row.id) > BigInt(cursor)));
    expect(own.filter((frame) => frame.data.type === "content_block_delta")).toHaveLength(60);
  });

  it("does not trust a batch that does not join the reader's cursor: the reader reads the log instead", async () => {
    const post = await startRun({ message: "::delay 20\n::words 40", stream: false });
    const run = (await post.json()) as { id: number };
    const reading = readFrames(await events(run.id), { until: isDone });
    await untilWords(run.id, 3);
    // A batch claiming to follow an event the reader never saw (as after a writer it did not hear
    // from): taking it would skip rows, and its frame is in no log.
    const far = 10n ** 15n;
    const { bus } = await platform.runtime();
    await bus.publish(run.id, { after: far, events: [{ id: far + 1n, frame: { type: "run_status", status: "running" } }] });
    const frames = await reading;
    expect(frames.map((frame) => ({ id: frame.id, type: frame.data.type }))).toEqual(await durableLog(run.id));
  });

  it("ends a held stream when the run is cancelled, with the cancel's frames at their durable ids", async () => {
    const post = await startRun({ message: "::delay 50\n::words 200", stream: false });
    const run = (await post.json()) as { id: number };
    const reading = readFrames(await events(run.id), { until: isDone });
    await untilWords(run.id, 1);
    const cancelled = await platform.call(`/runs/${run.id}/cancel`, { key: account.key, method: "POST", query: { user_id: "u1" } });
    expect(cancelled.status).toBe(200);
    const frames = await reading;
    expect(frames.at(-1)!.data).toMatchObject({ type: "done", completion_state: "cancelled" });
    expectStrictlyIncreasing(frames);
    const log = await durableLog(run.id);
    const seen = new Set(frames.map((frame) => frame.id));
    // Every frame the reader got is a row of the log under the same id and type.
    const byId = new Map(log.map((row) => [row.id, row.type]));
    for (const frame of frames) expect(byId.get(frame.id!)).toBe(frame.data.type);
    // And the reader missed nothing the log holds up to its done.
    const doneId = BigInt(frames.at(-1)!.id!);
    expect(log.filter((row) => BigInt(row.id) <= doneId).every((row) => seen.has(row.id))).toBe(true);
  });

  it("fails the run when its frames cannot be written, instead of streaming on past the hole", async () => {
    const post = await startRun({ message: "::delay 20\n::words 60", stream: false });
    const run = (await post.json()) as { id: number };
    const reading = readFrames(await events(run.id), { until: isDone });
    await untilWords(run.id, 3);
    const { events: writer } = await platform.runtime();
    const append = writer.append;
    let refused = 0;
    writer.append = (runId, frames) => {
      if (runId === run.id && refused === 0 && frames.some((frame) => frame.type === "content_block_delta")) {
        refused += 1;
        return Promise.reject(new Error("the log refused these frames"));
      }
      return append(runId, frames);
    };
    try {
      const frames = await reading;
      expect(refused).toBe(1);
      expect(frames.at(-1)!.data).toMatchObject({ type: "done", completion_state: "failed" });
      const final = await platform.call(`/runs/${run.id}`, { key: account.key, query: { user_id: "u1" } });
      expect(final.body).toMatchObject({ status: "failed", error: "the log refused these frames" });
      // Nothing the model said after the refused frames was written: the log ends with the failure.
      const log = await durableLog(run.id);
      expect(log.slice(-2).map((row) => row.type)).toEqual(["run_status", "done"]);
      expect(log.filter((row) => row.type === "content_block_delta").length).toBeLessThan(60);
      expect(frames.map((frame) => ({ id: frame.id, type: frame.data.type }))).toEqual(log);
    } finally {
      writer.append = append;
    }
  });
});

describe("a wake-up that never comes", () => {
  it("an idle stream finds what reached the log at its next keep-alive", async () => {
    // Keep-alives every 200 ms instead of 15 s, so the test waits for one.
    const quick = await startPlatform({ runs: { keepAliveMs: 200 } });
    try {
      const owner = await quick.signup();
      const headers = { authorization: `Bearer ${owner.key}` };
      const agent = (await quick.call("/agents", { key: owner.key, body: { name: "Idle", user_id: "u1" } })).body.id;
      const post = await quick.request("/runs?user_id=u1", {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ teammate_id: agent, permission_mode: "autonomous", message: "::ask Which one? | A | B" }),
      });
      const runId = Number(post.headers.get("x-run-id"));
      await readFrames(post, { until: (frame) => frame.data.type === "run_status" && frame.data.status === "awaiting_approval" });

      // Attached to a run waiting for its answer: the stream reads the log to its end, then idles.
      const stream = await quick.request(`/runs/${runId}/events?user_id=u1`, { headers });
      const lost = { type: "content_block_delta", id: "lost", delta: { type: "text_delta", text: "never announced" } } as const;
      let caughtUp = false;
      const received = readFrames(stream, {
        until: (frame) => {
          if (frame.data.type === "run_status" && frame.data.status === "awaiting_approval") caughtUp = true;
          return frame.data.id === "lost";
        },
      });
      await pollUntil(async () => caughtUp, Boolean, "the stream to read the log to its end");
      // A frame committed with no wake-up, as when another instance's NOTIFY is lost.
      await (await quick.runtime()).events.append(runId, [lost]);
      const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error("the frame did not arrive within 5 s")), 5_000));
      const frames = await Promise.race([received, timeout]);
      expect(frames.at(-1)!.data).toEqual(lost);
    } finally {
      await quick.close();
    }
  });
});
