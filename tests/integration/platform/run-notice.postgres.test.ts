// Two instances on one PostgreSQL database: the frames one writes reach the other's readers in the
// event writer's NOTIFY (repositories/run-events.ts, parseRunNotice), so a reader on another instance is
// served without reading the log; frames too large for a NOTIFY are named by run alone and read.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunFrame } from "@inlay/core/schemas/runs";
import type { EventBatch } from "@/server/platform/infrastructure/event-bus";
import type { Db } from "@/server/platform/repositories/db";
import { findRunById } from "@/server/platform/repositories/runs";
import { endRunInOneStatement } from "@/server/platform/services/runs/run-end";
import { followRunLog } from "@/server/platform/runtime/follow-run";
import { startPlatform, untilHeard, type PlatformHarness } from "../../helpers/platform";
import { pollUntil } from "../../helpers/poll";

let writer: PlatformHarness;
let reader: PlatformHarness;
let accountId: number;
let agentId: number;

beforeAll(async () => {
  writer = await startPlatform();
  reader = await startPlatform({ database: writer.database, role: "web" });
  // Both LISTEN before any test relies on hearing the other.
  await untilHeard(writer, reader);
  const { prisma } = writer.database;
  accountId = (await prisma.platformAccount.create({ data: { email: `notice-${Date.now()}@example.test`, firstName: "N" } })).id;
  agentId = (await prisma.platformAgent.create({ data: { accountId, name: "Notice" } })).id;
});
afterAll(async () => {
  await reader?.close();
  await writer?.close();
});

async function newRun(holdMicros = 0n): Promise<number> {
  const run = await writer.database.prisma.platformRun.create({
    data: { accountId, agentId, status: "running", permissionMode: "autonomous", humanInTheLoop: false, model: "inlay/sim", effort: "max", maxTurns: 10, messages: [], holdMicros },
  });
  return run.id;
}

const word = (text: string): RunFrame => ({ type: "content_block_delta", id: "t", delta: { type: "text_delta", text } });
const done: RunFrame = { type: "done", completion_state: "completed", stop_reason: "end_turn", message_count: 2 };

async function log(runId: number) {
  const rows = await writer.database.prisma.platformRunEvent.findMany({ where: { runId }, orderBy: { id: "asc" } });
  return rows.map((row) => ({ id: row.id, frame: row.data as RunFrame }));
}

describe("frames in the event writer's NOTIFY", () => {
  it("hands another instance the frames as stored, with the run's event before them", async () => {
    const runId = await newRun();
    const heard: (EventBatch | undefined)[] = [];
    const stop = (await reader.runtime()).bus.subscribe(runId, (batch) => heard.push(batch));
    const events = (await writer.runtime()).events;
    await events.append(runId, [word("one "), word("two ")]);
    await events.append(runId, [word("three ")]);
    await pollUntil(async () => heard.length, (count) => count >= 2, "both NOTIFYs at the other instance");
    stop();
    const stored = await log(runId);
    expect(heard).toEqual([
      { after: 0n, events: stored.slice(0, 2) },
      { after: stored[1]!.id, events: stored.slice(2) },
    ]);
  });

  it("the statement that ends a pass hands over its last frames the same way, only when it ends the run", async () => {
    // The run holds part of a balance, as an admitted run does: its end gives the hold back.
    const runId = await newRun(1_000n);
    await writer.database.prisma.platformAccount.update({ where: { id: accountId }, data: { balanceMicros: { increment: 1_000n }, heldMicros: { increment: 1_000n } } });
    const heard: (EventBatch | undefined)[] = [];
    const stop = (await reader.runtime()).bus.subscribe(runId, (batch) => heard.push(batch));
    const runtime = await writer.runtime();
    const prisma = writer.database.prisma as unknown as Db;
    await runtime.events.append(runId, [word("one ")]);
    // Both ends start from the run as the pass read it (running).
    const latest = (await findRunById(prisma, runId))!;
    const end = (frames: RunFrame[]) =>
      endRunInOneStatement(prisma, latest, "complete", { finishedAt: new Date(), leaseOwner: null, leaseExpiresAt: null }, {
        events: { frames, wake: runtime.events.wake },
      });
    const ended = await end([word("two "), done]);
    expect(ended.ended?.status).toBe("completed");
    await pollUntil(async () => heard.length, (count) => count >= 2, "the append's and the end's NOTIFYs at the other instance");
    const stored = await log(runId);
    expect(stored.map((event) => event.frame)).toEqual([word("one "), word("two "), done]);
    expect(ended).toMatchObject({ appended: { after: stored[0]!.id, ids: [stored[1]!.id, stored[2]!.id], othersWoken: true } });
    expect(heard).toEqual([
      { after: 0n, events: stored.slice(0, 1) },
      { after: stored[0]!.id, events: stored.slice(1) },
    ]);
    // The run ended: another end writes and sends nothing. NOTIFYs arrive in the order their
    // statements committed, so once a later append's has come, one of the late end would have too.
    expect(await end([word("late ")])).toEqual({ ended: null });
    await runtime.events.append(runId, [word("after ")]);
    await pollUntil(async () => heard.length, (count) => count >= 3, "the later append's NOTIFY at the other instance");
    stop();
    expect(heard).toHaveLength(3);
    expect(heard[2]).toMatchObject({ events: [{ frame: word("after ") }] });
    expect((await log(runId)).map((event) => event.frame)).toEqual([word("one "), word("two "), done, word("after ")]);
  });

  it("serves another instance's readers without reading the log, each frame once and in order", async () => {
    const runId = await newRun();
    const runtime = await reader.runtime();
    const deps = { prisma: reader.database.prisma, followers: runtime.followers, live: runtime.live, keepAliveMs: 60_000 };
    const events = (await writer.runtime()).events;
    await events.append(runId, [word("start ")]);
    const readsBefore = runtime.followers.reads;
    const abort = new AbortController();
    const readers = Array.from({ length: 5 }, () => {
      const ids: bigint[] = [];
      const finished = (async () => {
        for await (const item of followRunLog(deps, runId, 0n, abort.signal)) if ("events" in item) ids.push(...item.events.map((event) => event.id));
      })();
      return { ids, finished };
    });
    // The readers start on the log's first frame (their own first read), then take every batch from the NOTIFYs.
    await pollUntil(async () => readers.every((one) => one.ids.length > 0), (all) => all, "every reader's first read");
    for (let round = 0; round < 10; round++) await events.append(runId, [word(`a${round} `), word(`b${round} `)]);
    await events.append(runId, [done]);
    await Promise.all(readers.map((one) => one.finished));
    const ids = (await log(runId)).map((event) => event.id);
    expect(ids).toHaveLength(22);
    for (const one of readers) expect(one.ids).toEqual(ids);
    expect(runtime.followers.reads - readsBefore).toBe(0);
  });

  it("names a run alone when its frames do not fit in a NOTIFY, and its readers read them from the log", async () => {
    const runId = await newRun();
    const runtime = await reader.runtime();
    const heard: (EventBatch | undefined)[] = [];
    const stop = runtime.bus.subscribe(runId, (batch) => heard.push(batch));
    const readsBefore = runtime.followers.reads;
    const deps = { prisma: reader.database.prisma, followers: runtime.followers, live: runtime.live, keepAliveMs: 60_000 };
    const abort = new AbortController();
    const got: RunFrame[] = [];
    const events = (await writer.runtime()).events;
    await events.append(runId, [word("start ")]);
    const finished = (async () => {
      for await (const item of followRunLog(deps, runId, 0n, abort.signal)) if ("events" in item) got.push(...item.events.map((event) => event.frame));
    })();
    // The reader has read the log itself once (the first frame) before the frame that does not fit comes.
    await pollUntil(async () => got.length, (count) => count > 0, "the reader's first read");
    const long = word("x".repeat(9_000));
    await events.append(runId, [long]);
    await events.append(runId, [done]);
    await finished;
    // The reader may have read both frames on the first wake-up, before the second NOTIFY came.
    await pollUntil(async () => heard.length, (count) => count >= 3, "the three NOTIFYs at the other instance");
    stop();
    expect(heard[0]).toMatchObject({ events: [{ frame: word("start ") }] });
    expect(heard[1]).toBeUndefined();
    expect(heard[2]).toMatchObject({ events: [{ frame: done }] });
    expect(got).toEqual([word("start "), long, done]);
    expect(runtime.followers.reads - readsBefore).toBeGreaterThanOrEqual(1);
  });

  it("remembers the frames of a run nobody follows yet, so a reader handed its first event reads them", async () => {
    const runId = await newRun();
    const runtime = await reader.runtime();
    const events = (await writer.runtime()).events;
    const first = word("first ");
    const [firstId] = (await events.append(runId, [first])).ids;
    await events.append(runId, [word("early ")]);
    await pollUntil(async () => runtime.bus.heardAfter(runId, firstId!), (heard) => heard, "the early word's NOTIFY at the other instance");
    const deps = { prisma: reader.database.prisma, followers: runtime.followers, live: runtime.live, keepAliveMs: 60_000 };
    const abort = new AbortController();
    const got: bigint[] = [];
    const finished = (async () => {
      for await (const item of followRunLog(deps, runId, 0n, abort.signal, [{ id: firstId!, frame: first }])) {
        if ("events" in item) got.push(...item.events.map((event) => event.id));
      }
    })();
    await pollUntil(async () => got.length, (count) => count >= 2, "the early word at the late reader");
    await events.append(runId, [done]);
    await finished;
    expect(got).toEqual((await log(runId)).map((event) => event.id));
  });
});
