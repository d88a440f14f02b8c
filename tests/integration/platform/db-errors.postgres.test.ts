// isWriteConflict against errors PostgreSQL really raises through Prisma's adapter: a deadlock it
// breaks (admissions run again on it) is told apart from a statement that is simply wrong.
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isWriteConflict } from "@/server/shared/db-errors";
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
