// isWriteConflict against errors PostgreSQL really raises through Prisma's adapter: a deadlock it
// breaks (admissions run again on it) is told apart from a statement that is simply wrong. And
// isDatabaseUnavailable against a database that is away, gone mid-statement or too slow.
import { createServer, type AddressInfo } from "node:net";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PrismaClient } from "@/server/generated/prisma/client";
import { isDatabaseUnavailable, isStatementTimeout, isWriteConflict } from "@/server/shared/db-errors";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform.close());

const prisma = () => platform.database.prisma;

describe("isWriteConflict", () => {
  it("is true for the deadlock PostgreSQL breaks between two transactions, false for other errors", async () => {
    const a = await platform.signup();
    const b = await platform.signup();
    // Each transaction locks one account and then the other's: one of them is chosen to fail.
    let bothLockedFirst!: () => void;
    let lockedFirst = 0;
    const firstLocks = new Promise<void>((resolve) => (bothLockedFirst = resolve));
    const crossing = (first: number, second: number) =>
      prisma().$transaction(async (tx) => {
        await tx.$executeRaw`UPDATE platform_accounts SET held_micros = held_micros WHERE id = ${first}`;
        if (++lockedFirst === 2) bothLockedFirst();
        await firstLocks;
        await tx.$executeRaw`UPDATE platform_accounts SET held_micros = held_micros WHERE id = ${second}`;
      });
    const outcomes = await Promise.allSettled([crossing(a.id, b.id), crossing(b.id, a.id)]);
    const failures = outcomes.filter((outcome) => outcome.status === "rejected").map((outcome) => outcome.reason as unknown);
    expect(failures).toHaveLength(1);
    expect(isWriteConflict(failures[0])).toBe(true);

    const wrong = await prisma().$executeRaw`UPDATE platform_accounts SET held_micros = 'x' WHERE id = ${a.id}`.catch((error: unknown) => error);
    expect(wrong).toBeInstanceOf(Error);
    expect(isWriteConflict(wrong)).toBe(false);
    expect(isWriteConflict(new Error("connection lost"))).toBe(false);
  });

  it("is true for the same deadlock raised by pg directly (the hot statements of repositories/direct.ts)", async () => {
    const a = await platform.signup();
    const b = await platform.signup();
    const pool = (platform.database.driver as { kind: "postgres"; pool: pg.Pool }).pool;
    const [one, two] = [await pool.connect(), await pool.connect()];
    try {
      await one.query("BEGIN");
      await two.query("BEGIN");
      await one.query("UPDATE platform_accounts SET held_micros = held_micros WHERE id = $1", [a.id]);
      await two.query("UPDATE platform_accounts SET held_micros = held_micros WHERE id = $1", [b.id]);
      const outcomes = await Promise.allSettled([
        one.query("UPDATE platform_accounts SET held_micros = held_micros WHERE id = $1", [b.id]),
        two.query("UPDATE platform_accounts SET held_micros = held_micros WHERE id = $1", [a.id]),
      ]);
      const failures = outcomes.filter((outcome) => outcome.status === "rejected").map((outcome) => outcome.reason as unknown);
      expect(failures).toHaveLength(1);
      expect(isWriteConflict(failures[0])).toBe(true);
    } finally {
      await one.query("ROLLBACK").catch(() => {});
      await two.query("ROLLBACK").catch(() => {});
      one.release();
      two.release();
    }
  });
});

describe("isDatabaseUnavailable", () => {
  const failureOf = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

  it("is true for a server that does not listen, through pg and through Prisma's adapter", async () => {
    // A port where nothing listens (the kernel's pick, closed again).
    const closed = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const url = `postgres://postgres@127.0.0.1:${closed}/inlay`;
    const pool = new pg.Pool({ connectionString: url });
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
    try {
      const direct = await failureOf(pool.query("SELECT 1"));
      expect(isDatabaseUnavailable(direct)).toBe(true);
      const viaPrisma = await failureOf(prisma.$queryRaw`SELECT 1`);
      expect(viaPrisma).toBeInstanceOf(Error);
      expect(isDatabaseUnavailable(viaPrisma)).toBe(true);
    } finally {
      await prisma.$disconnect();
      await pool.end();
    }
  });

  it("is true for a connection the server ends mid-statement and a pool with no connection in time; a statement timeout is its own", async () => {
    const pool = (platform.database.driver as { kind: "postgres"; pool: pg.Pool }).pool;
    const victim = new pg.Client({ connectionString: pool.options.connectionString });
    victim.on("error", () => {});
    await victim.connect();
    const pid = (await victim.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
    const cut = failureOf(victim.query("SELECT pg_sleep(10)"));
    await pool.query("SELECT pg_terminate_backend($1)", [pid]);
    expect(isDatabaseUnavailable(await cut)).toBe(true);
    await victim.end().catch(() => {});

    const slow = new pg.Client({ connectionString: pool.options.connectionString, statement_timeout: 50 });
    await slow.connect();
    try {
      const cancelled = await failureOf(slow.query("SELECT pg_sleep(1)"));
      expect(isStatementTimeout(cancelled)).toBe(true);
      expect(isDatabaseUnavailable(cancelled)).toBe(false);
    } finally {
      await slow.end();
    }

    // A second (the time it waits for the one connection, also what opening that one may take on a busy machine).
    const small = new pg.Pool({ connectionString: pool.options.connectionString, max: 1, connectionTimeoutMillis: 1_000 });
    const held = await small.connect();
    try {
      expect(isDatabaseUnavailable(await failureOf(small.query("SELECT 1")))).toBe(true);
    } finally {
      held.release();
      await small.end();
    }
  });

  it("is false for a statement the database refuses for what it says", async () => {
    const a = await platform.signup();
    const wrong = await failureOf(prisma().$executeRaw`UPDATE platform_accounts SET held_micros = 'x' WHERE id = ${a.id}`);
    expect(wrong).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(wrong)).toBe(false);
    const pool = (platform.database.driver as { kind: "postgres"; pool: pg.Pool }).pool;
    const missing = await failureOf(pool.query("SELECT * FROM no_such_table"));
    expect(isDatabaseUnavailable(missing)).toBe(false);
    expect(isStatementTimeout(missing)).toBe(false);
    expect(isDatabaseUnavailable(new Error("agent 4 no longer exists"))).toBe(false);
  });
});
