import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "@/server/shared/db";
import { createEmptyPostgresDatabase } from "../../helpers/database";

describe("instances starting together on one PostgreSQL", () => {
  let empty: Awaited<ReturnType<typeof createEmptyPostgresDatabase>>;
  const opened: Database[] = [];

  beforeAll(async () => {
    empty = await createEmptyPostgresDatabase();
  });
  afterAll(async () => {
    await Promise.all(opened.map((database) => database.close()));
    await empty.drop();
  });

  it("apply each migration exactly once", async () => {
    const results = await Promise.allSettled(Array.from({ length: 4 }, () => openDatabase({ url: empty.url })));
    for (const result of results) if (result.status === "fulfilled") opened.push(result.value);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "fulfilled", "fulfilled", "fulfilled"]);

    const [first] = opened;
    const counts = await first!.prisma.$queryRawUnsafe<{ migration_name: string; n: number }[]>(
      `SELECT migration_name, count(*)::int AS n FROM "_prisma_migrations" GROUP BY migration_name`,
    );
    expect(counts.length).toBeGreaterThan(0);
    expect(counts.every((row) => row.n === 1)).toBe(true);
  });
});
