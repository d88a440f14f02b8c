// Readers of run logs on one instance share one follower per run (infrastructure/run-followers.ts): a
// bare wake-up (another instance's NOTIFY) is one read of the log for all of them, the wake-ups of many
// runs that arrive together one statement, and what a lost wake-up left unread is still delivered (the
// readers' idle read). Every reader sees the durable log: each frame once, in order, to its `done`.
import { EventEmitter } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunFrame } from "@inlay/core/schemas/runs";
import type { PrismaClient } from "@/server/generated/prisma/client";
import { createRunEventBus, eventBatch, type EventBatch, type RunEventBus } from "@/server/platform/infrastructure/event-bus";
import { createRunEventWriter } from "@/server/platform/infrastructure/event-writer";
import { createLiveContent } from "@/server/platform/infrastructure/live-content";
import { createRunFollowers } from "@/server/platform/infrastructure/run-followers";
import { createSignals } from "@/server/platform/infrastructure/signals";
import { followRunLog } from "@/server/platform/runtime/follow-run";
import { createTestDatabase, type TestDatabase } from "../../helpers/database";
import { pollUntil } from "../../helpers/poll";

let database: TestDatabase;
let accountId: number;
let agentId: number;

beforeAll(async () => {
  database = await createTestDatabase();
  const { prisma } = database;
  accountId = (await prisma.platformAccount.create({ data: { email: `followers-${Date.now()}@example.test`, firstName: "F" } })).id;
  agentId = (await prisma.platformAgent.create({ data: { accountId, name: "Followers" } })).id;
});
afterAll(() => database.dispose());

async function newRun(): Promise<number> {
  const run = await database.prisma.platformRun.create({
    data: { accountId, agentId, status: "running", permissionMode: "autonomous", humanInTheLoop: false, model: "inlay/sim", effort: "max", maxTurns: 10, messages: [] },
  });
  return run.id;
}

const word = (text: string): RunFrame => ({ type: "content_block_delta", id: "t", delta: { type: "text_delta", text } });
const done: RunFrame = { type: "done", completion_state: "completed", stop_reason: "end_turn", message_count: 2 };

/** The database's client, counting the statements that read run logs. */
function countingClient() {
  const counter = { reads: 0 };
  const prisma = new Proxy(database.prisma, {
    get(target, property, receiver) {
      if (property === "$queryRaw") {
        return (...args: unknown[]) => {
          const sql = args[0] as { sql?: string; text?: string };
          if (/FROM platform_run_events/.test(sql.sql ?? sql.text ?? "")) counter.reads += 1;
          return (target.$queryRaw as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        };
      }
      return Reflect.get(target, property, receiver);
    },
  }) as PrismaClient;
  return { prisma, counter };
}

/** A bus whose wake-ups the test sends, as another instance's NOTIFY arrives: bare, without events. */
function remoteBus() {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  const bus: RunEventBus = {
    publish: async (runId: number, batch?: EventBatch) => void emitter.emit(`run:${runId}`, batch),
    subscribe(runId, listener) {
      emitter.on(`run:${runId}`, listener);
      return () => void emitter.off(`run:${runId}`, listener);
    },
    heardAfter: () => false,
    close: async () => void emitter.removeAllListeners(),
  };
  return { bus, wake: (runId: number) => emitter.emit(`run:${runId}`) };
}

async function logIds(runId: number) {
  const rows = await database.prisma.platformRunEvent.findMany({ where: { runId }, orderBy: { id: "asc" }, select: { id: true } });
  return rows.map((row) => row.id);
}

/** `count` readers of the run from the start, each collecting the ids it was given until `done`. */
function startReaders(deps: Parameters<typeof followRunLog>[0], runId: number, count: number) {
  const abort = new AbortController();
  const readers = Array.from({ length: count }, () => {
    const ids: bigint[] = [];
    const finished = (async () => {
      for await (const item of followRunLog(deps, runId, 0n, abort.signal)) if ("events" in item) ids.push(...item.events.map((event) => event.id));
    })();
    return { ids, finished };
  });
  return { readers, abort };
}

const allHave = (readers: { ids: bigint[] }[], count: number, what: string) =>
  pollUntil(async () => Math.min(...readers.map((reader) => reader.ids.length)), (least) => least >= count, what);

describe("run followers", () => {
  it("reads a run's log once per wake-up for all of the instance's readers, and the woken runs in one statement", async () => {
    const runs = [await newRun(), await newRun()];
    const writer = createRunEventWriter(database.prisma);
    for (const runId of runs) await writer.append(runId, [word("first ")]);
    const { prisma, counter } = countingClient();
    const { bus, wake } = remoteBus();
    const live = createLiveContent();
    const followers = createRunFollowers({ prisma, bus, live });
    const deps = { prisma, followers, live, keepAliveMs: 60_000 };
    const held = runs.map((runId) => startReaders(deps, runId, 10));
    const readers = held.flatMap((run) => run.readers);
    // Each reader reads the log once when it starts.
    await allHave(readers, 1, "every reader's first frame");
    expect(counter.reads).toBe(20);

    for (let round = 1; round <= 5; round++) {
      counter.reads = 0;
      for (const runId of runs) await writer.append(runId, [word(`a${round} `), word(`b${round} `)]);
      // Wake-ups that arrive together (one NOTIFY naming both runs, a repeated one) make one read.
      for (const runId of runs) wake(runId);
      wake(runs[0]!);
      await allHave(readers, 1 + 2 * round, `round ${round}'s frames at every reader`);
      expect(counter.reads).toBe(1);
    }
    expect(followers.reads).toBe(5);

    for (const runId of runs) await writer.append(runId, [done]);
    for (const runId of runs) wake(runId);
    await Promise.all(readers.map((reader) => reader.finished));
    for (const [index, runId] of runs.entries()) {
      const log = await logIds(runId);
      for (const reader of held[index]!.readers) expect(reader.ids).toEqual(log);
    }
    followers.close();
  });

  it("reads again once for the wake-ups that arrive while a read is in flight", async () => {
    const runId = await newRun();
    const writer = createRunEventWriter(database.prisma);
    await writer.append(runId, [word("first ")]);
    const { prisma, counter } = countingClient();
    const { bus, wake } = remoteBus();
    const live = createLiveContent();
    const followers = createRunFollowers({ prisma, bus, live });
    const { readers } = startReaders({ prisma, followers, live, keepAliveMs: 60_000 }, runId, 10);
    await allHave(readers, 1, "every reader's first frame");
    counter.reads = 0;
    await writer.append(runId, [word("one ")]);
    wake(runId);
    // The read has started (after the current task); these three wait for it and then read together.
    await Promise.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    await writer.append(runId, [word("two ")]);
    wake(runId);
    wake(runId);
    wake(runId);
    await allHave(readers, 3, "both words at every reader");
    expect(counter.reads).toBeLessThanOrEqual(2);
    expect(followers.reads).toBeLessThanOrEqual(2);
    await writer.append(runId, [done]);
    wake(runId);
    await Promise.all(readers.map((reader) => reader.finished));
    const log = await logIds(runId);
    for (const reader of readers) expect(reader.ids).toEqual(log);
    followers.close();
  });

  it("delivers what a lost wake-up left unread: the readers read the log after an idle wait, and the next wake-up joins them", async () => {
    const runId = await newRun();
    const writer = createRunEventWriter(database.prisma);
    await writer.append(runId, [word("first ")]);
    const { bus, wake } = remoteBus();
    const live = createLiveContent();
    const followers = createRunFollowers({ prisma: database.prisma, bus, live });
    const { readers } = startReaders({ prisma: database.prisma, followers, live, keepAliveMs: 300 }, runId, 5);
    await allHave(readers, 1, "every reader's first frame");
    // Written, and its NOTIFY lost: nobody is woken.
    await writer.append(runId, [word("lost ")]);
    await allHave(readers, 2, "the unannounced word at every reader");
    // The follower had not seen that word: the next wake-up's read starts before it, and no reader
    // is given it twice.
    await writer.append(runId, [word("next "), done]);
    wake(runId);
    await Promise.all(readers.map((reader) => reader.finished));
    const log = await logIds(runId);
    for (const reader of readers) expect(reader.ids).toEqual(log);
    followers.close();
  });

  describe("a reader handed the run's first events (a new run's POST)", () => {
    /** This process's bus, and a writer that publishes what it commits on it, as the worker's frame sink does. */
    async function localWriting() {
      const signals = createSignals(database);
      const bus = createRunEventBus(database, signals);
      const events = createRunEventWriter(database.prisma);
      const write = async (runId: number, frames: RunFrame[]) => {
        const appended = await events.append(runId, frames);
        await bus.publish(runId, eventBatch(appended, frames));
        return appended;
      };
      return { bus, write, close: async () => (await bus.close(), await signals.close()) };
    }

    function handedReader(deps: Parameters<typeof followRunLog>[0], runId: number, known: { id: bigint; frame: RunFrame }[]) {
      const abort = new AbortController();
      const ids: bigint[] = [];
      const finished = (async () => {
        for await (const item of followRunLog(deps, runId, 0n, abort.signal, known)) if ("events" in item) ids.push(...item.events.map((event) => event.id));
      })();
      return { ids, finished };
    }

    it("starts from them without reading the log", async () => {
      const runId = await newRun();
      const { bus, write, close } = await localWriting();
      const first = word("first ");
      const [id] = (await write(runId, [first])).ids;
      const { prisma, counter } = countingClient();
      const live = createLiveContent();
      const followers = createRunFollowers({ prisma, bus, live });
      const reader = handedReader({ prisma, followers, live, keepAliveMs: 60_000 }, runId, [{ id: id!, frame: first }]);
      await write(runId, [word("a "), word("b ")]);
      await write(runId, [done]);
      await reader.finished;
      expect(reader.ids).toEqual(await logIds(runId));
      expect(counter.reads).toBe(0);
      followers.close();
      await close();
    });

    it("reads the log when the run's frames came before it subscribed", async () => {
      const runId = await newRun();
      const { bus, write, close } = await localWriting();
      const first = word("first ");
      const [id] = (await write(runId, [first])).ids;
      // Written and announced before the reader subscribes; nothing more comes until it has them.
      await write(runId, [word("early ")]);
      const { prisma, counter } = countingClient();
      const live = createLiveContent();
      const followers = createRunFollowers({ prisma, bus, live });
      const reader = handedReader({ prisma, followers, live, keepAliveMs: 60_000 }, runId, [{ id: id!, frame: first }]);
      await pollUntil(async () => reader.ids.length, (count) => count >= 2, "the early word, from the log");
      expect(counter.reads).toBe(1);
      await write(runId, [done]);
      await reader.finished;
      expect(reader.ids).toEqual(await logIds(runId));
      followers.close();
      await close();
    });
  });
});
