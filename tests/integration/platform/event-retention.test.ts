// Event-log retention (server/platform/jobs/event-retention.ts): the text deltas of runs finished
// long ago become one frame per text block, and a reader resuming anywhere in the log (inside a merged
// range too) still gets exactly the frames and text that followed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunFrame } from "@inlay/core/schemas/runs";
import { compactOldRunEvents } from "@/server/platform/jobs/event-retention";
import { eventsAfter } from "@/server/platform/repositories/run-events";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { pollUntil } from "../../helpers/poll";
import { readFrames, textOf } from "../../helpers/sse";

let platform: PlatformHarness;
let account: Account;
beforeAll(async () => {
  platform = await startPlatform();
  account = await platform.signup({ require_end_user_id: false });
});
afterAll(() => platform.close());

const DAY = 24 * 3600 * 1000;
const delta = (block: string, text: string): RunFrame => ({ type: "content_block_delta", id: block, delta: { type: "text_delta", text } });

async function finishedRun(finishedDaysAgo: number): Promise<number> {
  const agent = (await platform.call("/agents", { key: account.key, body: { name: "Old" } })).body;
  const run = await platform.database.prisma.platformRun.create({
    data: {
      accountId: account.id,
      agentId: agent.id,
      status: "completed",
      permissionMode: "autonomous",
      humanInTheLoop: false,
      model: "inlay/sim",
      effort: "max",
      maxTurns: 10,
      finishedAt: new Date(Date.now() - finishedDaysAgo * DAY),
    },
  });
  return run.id;
}

/** Appends frames to the runs' logs one at a time, in the order given, so their ids interleave. */
async function append(entries: [number, RunFrame][]) {
  for (const [runId, frame] of entries) {
    await platform.database.prisma.platformRunEvent.create({ data: { runId, type: frame.type, data: frame as object } });
  }
}

async function log(runId: number) {
  return eventsAfter(platform.database.prisma, runId, 0n, 10_000);
}

/** What a reader that has everything up to `after` reads next: the frames' ids, types and the text. */
function following(events: { id: bigint; frame: RunFrame }[], after: bigint) {
  const rest = events.filter((event) => event.id > after);
  return {
    text: rest.map(({ frame }) => (frame.type === "content_block_delta" ? frame.delta.text : `[${frame.type}]`)).join(""),
    others: rest.filter(({ frame }) => frame.type !== "content_block_delta").map(({ id, frame }) => `${id}:${frame.type}`),
  };
}

describe("run event retention", () => {
  it("merges an old run's deltas per text block, keeping the last id, and resumes exactly anywhere", async () => {
    const old = await finishedRun(40);
    const recent = await finishedRun(2);
    await append([
      [old, { type: "run_status", status: "running" }],
      [old, delta("t1", "Hel")],
      [recent, delta("r1", "not ")],
      [old, delta("t1", "lo ")],
      [recent, delta("r1", "touched")],
      [old, delta("t1", "world")],
      [old, { type: "tool_use", id: "call_1", name: "calculator", input: { expression: "1+1" } }],
      [old, { type: "tool_result", tool_use_id: "call_1", content: "2", result: 2 }],
      [old, delta("t2", "It is ")],
      [old, delta("t2", "2.")],
      [old, delta("t3", " Bye")],
      [old, delta("t3", "!")],
      [old, delta("t3", "")],
      [old, delta("t4", "alone")],
      [old, { type: "done", completion_state: "complete", stop_reason: "end_turn", message_count: 2 }],
    ]);
    const before = await log(old);
    const recentBefore = await log(recent);

    const result = await compactOldRunEvents(platform.database.prisma, { olderThanDays: 30 });
    expect(result).toMatchObject({ runs: 1, more: false });
    expect(result.removed).toBe(5); // t1: 3 → 1, t2: 2 → 1, t3: 3 → 1

    const after = await log(old);
    // run_status, t1, tool_use, tool_result, t2, t3, t4, done.
    expect(after.map(({ frame }) => frame.type)).toEqual([
      "run_status",
      "content_block_delta",
      "tool_use",
      "tool_result",
      "content_block_delta",
      "content_block_delta",
      "content_block_delta",
      "done",
    ]);
    // A merged frame keeps the id of its block's last delta; nothing else changes id.
    const lastOf = (block: string) => before.filter(({ frame }) => frame.type === "content_block_delta" && frame.id === block).at(-1)!.id;
    expect(after.filter(({ frame }) => frame.type === "content_block_delta").map(({ id }) => id)).toEqual(["t1", "t2", "t3", "t4"].map(lastOf));
    expect(after[1]!.frame).toEqual(delta("t1", "Hello world"));
    expect(after[5]!.frame).toEqual(delta("t3", " Bye!"));
    // Resuming after any id the run ever had (inside merged ranges too) yields the same frames and text.
    for (const cursor of [0n, ...before.map(({ id }) => id)]) {
      const read = await eventsAfter(platform.database.prisma, old, cursor, 10_000);
      expect(following(read, cursor), `after ${cursor}`).toEqual(following(before, cursor));
    }
    // A run that finished recently is left alone, and a second pass finds nothing to do.
    expect(await log(recent)).toEqual(recentBefore);
    expect(await compactOldRunEvents(platform.database.prisma, { olderThanDays: 30 })).toEqual({ runs: 0, removed: 0, more: false });
    expect(await log(old)).toEqual(after);

    // Over HTTP: a client resuming with a Last-Event-ID in the middle of "Hello world" gets the rest.
    const middle = before[2]!.id; // the "lo " delta
    const response = await platform.request(`/runs/${old}/events`, {
      headers: { authorization: `Bearer ${account.key}`, "last-event-id": middle.toString() },
    });
    const frames = await readFrames(response, { until: (frame) => frame.data.type === "done" });
    expect(textOf(frames)).toBe("worldIt is 2. Bye!alone");
    expect(frames[0]).toMatchObject({ id: lastOf("t1").toString(), data: delta("t1", "world") });
  });

  it("works through the backlog in batches, and stops at its deadline leaving the rest", async () => {
    const runs = [await finishedRun(50), await finishedRun(49), await finishedRun(48)];
    for (const runId of runs) await append([[runId, delta("a", "x")], [runId, delta("a", "y")]]);

    const first = await compactOldRunEvents(platform.database.prisma, { olderThanDays: 30, batch: 1, deadline: 0 });
    expect(first).toEqual({ runs: 1, removed: 1, more: true });
    const rest = await compactOldRunEvents(platform.database.prisma, { olderThanDays: 30, batch: 1 });
    expect(rest).toEqual({ runs: 2, removed: 2, more: false });
    for (const runId of runs) expect((await log(runId)).map(({ frame }) => frame)).toEqual([delta("a", "xy")]);
  });

  it("merges a real run's deltas, and again after a reply once the run has finished long enough", async () => {
    const { prisma } = platform.database;
    const agent = (await platform.call("/agents", { key: account.key, body: { name: "Talker", user_id: "u1" } })).body;
    // Completed, and the log holds the request's last frame: on PostgreSQL the frames are written on a
    // connection of their own, so they may commit just after the status.
    const waitCompleted = (runId: number, requests: number) =>
      pollUntil(
        async () => ({
          status: (await platform.call(`/runs/${runId}`, { key: account.key, query: { user_id: "u1" } })).body.status,
          done: (await log(runId)).filter(({ frame }) => frame.type === "done").length,
        }),
        ({ status, done }) => status === "completed" && done >= requests,
        `run ${runId} to complete with ${requests} done frames`,
      );
    const age = (runId: number) => prisma.platformRun.update({ where: { id: runId }, data: { finishedAt: new Date(Date.now() - 40 * DAY) } });
    const deltas = async (runId: number) =>
      (await log(runId)).flatMap(({ frame }) => (frame.type === "content_block_delta" ? [frame.delta.text] : []));

    const run = (
      await platform.call("/runs", { key: account.key, query: { user_id: "u1" }, body: { teammate_id: agent.id, stream: false, message: "hello big world", permission_mode: "autonomous" } })
    ).body as { id: number };
    await waitCompleted(run.id, 1);
    expect((await deltas(run.id)).length).toBeGreaterThan(1);
    await age(run.id);
    expect((await compactOldRunEvents(prisma, { olderThanDays: 30 })).runs).toBe(1);
    expect(await deltas(run.id)).toEqual(["Echo: hello big world"]);

    const replied = await platform.call(`/runs/${run.id}/reply`, { key: account.key, query: { user_id: "u1" }, body: { message: "and again" } });
    expect(replied.status).toBe(200);
    expect((await prisma.platformRun.findUniqueOrThrow({ where: { id: run.id } })).eventsCompactedAt).toBeNull();
    await waitCompleted(run.id, 2);
    await age(run.id);
    expect((await compactOldRunEvents(prisma, { olderThanDays: 30 })).runs).toBe(1);
    expect(await deltas(run.id)).toEqual(["Echo: hello big world", "Echo: and again"]);
  });
});
