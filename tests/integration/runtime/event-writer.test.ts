// The event writer appends every run's frames of one turn in one statement; each caller must still get
// exactly its own frames' ids and its run's event before them, and one run's failure must not lose or
// double another run's frames.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunFrame } from "@inlay/core/schemas/runs";
import type { PrismaClient } from "@/server/generated/prisma/client";
import { createRunEventWriter } from "@/server/platform/infrastructure/event-writer";
import { createTestDatabase, type TestDatabase } from "../../helpers/database";

let database: TestDatabase;
let accountId: number;
let agentId: number;

beforeAll(async () => {
  database = await createTestDatabase();
  const { prisma } = database;
  accountId = (await prisma.platformAccount.create({ data: { email: `writer-${Date.now()}@example.test`, firstName: "W" } })).id;
  agentId = (await prisma.platformAgent.create({ data: { accountId, name: "Writer" } })).id;
});
afterAll(() => database.dispose());

async function newRun(): Promise<number> {
  const run = await database.prisma.platformRun.create({
    data: {
      accountId,
      agentId,
      status: "running",
      permissionMode: "autonomous",
      humanInTheLoop: false,
      model: "inlay/sim",
      effort: "max",
      maxTurns: 10,
      messages: [],
    },
  });
  return run.id;
}

const word = (text: string): RunFrame => ({ type: "content_block_delta", id: "t", delta: { type: "text_delta", text } });

async function log(runId: number) {
  const rows = await database.prisma.platformRunEvent.findMany({ where: { runId }, orderBy: { id: "asc" } });
  return rows.map((row) => ({ id: row.id, text: (row.data as { delta?: { text?: string } }).delta?.text }));
}

/** The database's client, counting raw statements and failing the next ones when told to. */
function countingClient() {
  const counter = { statements: 0, fail: [] as Error[] };
  const prisma = new Proxy(database.prisma, {
    get(target, property, receiver) {
      if (property === "$queryRaw") {
        return (...args: unknown[]) => {
          counter.statements += 1;
          const failure = counter.fail.shift();
          if (failure) return Promise.reject(failure);
          return (target.$queryRaw as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        };
      }
      return Reflect.get(target, property, receiver);
    },
  }) as PrismaClient;
  return { prisma, counter };
}

describe("run event writer", () => {
  it("writes the appends of one turn in one statement, each with its own ids and its run's previous event", async () => {
    const [a, b] = [await newRun(), await newRun()];
    const { prisma, counter } = countingClient();
    const writer = createRunEventWriter(prisma);
    const before = await writer.append(a, [word("a0")]);
    expect(before.after).toBe(0n);
    counter.statements = 0;

    const results = await Promise.all([
      writer.append(a, [word("a1"), word("a2")]),
      writer.append(b, [word("b1")]),
      writer.append(a, [word("a3")]),
    ]);
    expect(counter.statements).toBe(1);

    const [logA, logB] = [await log(a), await log(b)];
    expect(logA.map((row) => row.text)).toEqual(["a0", "a1", "a2", "a3"]);
    expect(logB.map((row) => row.text)).toEqual(["b1"]);
    expect(results[0]).toEqual({ after: before.ids[0], ids: [logA[1]!.id, logA[2]!.id] });
    expect(results[1]).toEqual({ after: 0n, ids: [logB[0]!.id] });
    // The second append of a run in the statement follows the first one's frames.
    expect(results[2]).toEqual({ after: logA[2]!.id, ids: [logA[3]!.id] });
  });

  it("fails only the append whose run the database refuses; the others are written once", async () => {
    const [a, b] = [await newRun(), await newRun()];
    const gone = await newRun();
    await database.prisma.platformRun.delete({ where: { id: gone } });
    const writer = createRunEventWriter(database.prisma);

    const outcomes = await Promise.allSettled([
      writer.append(a, [word("a1")]),
      writer.append(gone, [word("lost")]),
      writer.append(b, [word("b1"), word("b2")]),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((await log(a)).map((row) => row.text)).toEqual(["a1"]);
    expect((await log(b)).map((row) => row.text)).toEqual(["b1", "b2"]);
    const [logA, logB] = [await log(a), await log(b)];
    expect((outcomes[0] as PromiseFulfilledResult<unknown>).value).toEqual({ after: 0n, ids: [logA[0]!.id] });
    expect((outcomes[2] as PromiseFulfilledResult<unknown>).value).toEqual({ after: 0n, ids: logB.map((row) => row.id) });
  });

  it("rejects every append of a statement whose outcome is unknown, and writes none of them again", async () => {
    const [a, b] = [await newRun(), await newRun()];
    const { prisma, counter } = countingClient();
    const writer = createRunEventWriter(prisma);
    // No SQLSTATE: as when the connection drops, the statement may or may not have committed.
    counter.fail.push(new Error("Connection terminated unexpectedly"));

    const outcomes = await Promise.allSettled([writer.append(a, [word("a1")]), writer.append(b, [word("b1")])]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["rejected", "rejected"]);
    expect(counter.statements).toBe(1);

    // The writer goes on with later appends.
    const next = await writer.append(a, [word("a2")]);
    expect((await log(a)).map((row) => row.text)).toEqual(["a2"]);
    expect(next.after).toBe(0n);
  });

  it("starts an urgent append's statement at once, and waits for the loop's next turn with the others", async () => {
    const a = await newRun();
    const { prisma, counter } = countingClient();
    const writer = createRunEventWriter(prisma);
    const microtasks = async () => {
      for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => queueMicrotask(resolve));
    };

    const batched = writer.append(a, [word("a1")]);
    await microtasks();
    expect(counter.statements).toBe(0);
    await batched;
    expect(counter.statements).toBe(1);

    const urgent = writer.append(a, [word("a2")], { urgent: true });
    await microtasks();
    expect(counter.statements).toBe(2);
    await urgent;
    expect((await log(a)).map((row) => row.text)).toEqual(["a1", "a2"]);
  });
});

