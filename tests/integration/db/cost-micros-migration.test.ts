// Migration framework_cost_micros: the framework's cost counters (usage per tenant and member, run
// admissions, tenant runs) move from whole cents to micro-USD with every stored amount kept exactly.
import { cp, mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { migrate } from "@/server/shared/db";
import { readMigrations } from "@/server/shared/migrate";
import { createTestDatabase, type TestDatabase } from "../../helpers/database";

const MIGRATION = "framework_cost_micros";
let database: TestDatabase | undefined;
afterAll(() => database?.dispose());

describe("migration framework_cost_micros", () => {
  it("turns every stored cent into 10,000 micro-USD, on all four tables", async () => {
    const all = (await readdir("prisma/migrations", { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
    const index = all.findIndex((name) => name.endsWith(`_${MIGRATION}`));
    expect(index).toBeGreaterThan(0);
    const dir = await mkdtemp(path.join(tmpdir(), "inlay-cost-micros-"));
    for (const name of all.slice(0, index)) await cp(path.join("prisma/migrations", name), path.join(dir, name), { recursive: true });
    database = await createTestDatabase({ migrationsDir: dir });
    const sql = (text: string) => database!.prisma.$executeRawUnsafe(text);

    const tenant = "00000000-0000-4000-8000-000000000001";
    const user = "00000000-0000-4000-8000-000000000002";
    const admission = "00000000-0000-4000-8000-000000000003";
    await sql(`INSERT INTO tenants (id, slug, name, updated_at) VALUES ('${tenant}', 'acme', 'Acme', now())`);
    await sql(`INSERT INTO users (id, email, updated_at) VALUES ('${user}', 'm@acme.test', now())`);
    // 300,000,000 cents ($3M) is past what an INTEGER of micro-USD could hold.
    await sql(`INSERT INTO tenant_usage (tenant_id, period, runs, cost_cents) VALUES ('${tenant}', '2026-11', 17, 300000000)`);
    await sql(`INSERT INTO member_usage (tenant_id, user_id, period, runs, cost_cents) VALUES ('${tenant}', '${user}', '2026-11', 3, 3)`);
    await sql(`INSERT INTO run_admissions (id, tenant_id, user_id, period, cost_cents) VALUES ('${admission}', '${tenant}', '${user}', '2026-11', 1)`);
    await sql(`INSERT INTO tenant_runs (tenant_id, platform_run_id, user_id, cost_cents, updated_at) VALUES ('${tenant}', 7, '${user}', 2, now())`);

    await cp(path.join("prisma/migrations", all[index]!), path.join(dir, all[index]!), { recursive: true });
    expect((await migrate(database.driver, await readMigrations(dir))).applied).toEqual([all[index]]);

    // Read with SQL: the Prisma client knows columns later migrations add, which this database lacks.
    const costOf = async (table: string, where = "true") =>
      ((await database!.prisma.$queryRawUnsafe(`SELECT cost_micros FROM ${table} WHERE ${where}`)) as { cost_micros: bigint }[])[0]?.cost_micros;
    expect(await costOf("tenant_usage")).toBe(3_000_000_000_000n);
    expect(await costOf("member_usage")).toBe(30_000n);
    expect(await costOf("run_admissions")).toBe(10_000n);
    expect(await costOf("tenant_runs")).toBe(20_000n);
    // New rows start at zero, as before.
    await sql(`INSERT INTO tenant_usage (tenant_id, period) VALUES ('${tenant}', '2026-12')`);
    expect(await costOf("tenant_usage", "period = '2026-12'")).toBe(0n);
  });
});
