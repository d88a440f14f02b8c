// A session checked out of the pool (pg-boss's statement lists, the migrations) whose connection the
// server ends (a restart, a failover, an admin's pg_terminate_backend): pg emits "error" on it, and
// without a listener that error would crash the process (a worker exited so during a database restart).
import pg from "pg";
import { afterAll, beforeAll, expect, it, onTestFinished } from "vitest";
import { checkOutSession } from "@/server/shared/db";
import { createMigratedPostgresDatabase } from "../../helpers/database";

let database: { url: string; drop(): Promise<void> };
let pool: pg.Pool;

beforeAll(async () => {
  database = await createMigratedPostgresDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 3 });
  pool.on("error", () => {});
});
afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

it("keeps the process up when a checked-out session's connection is ended, and fails only its own statements", async () => {
  const { client, release } = await checkOutSession(pool);
  onTestFinished(() => release(true));
  const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
  // (events.once would reject on the "error" this is about.)
  const ended = new Promise((resolve) => client.once("end", resolve));
  await pool.query("SELECT pg_terminate_backend($1)", [rows[0]!.pid]);
  await ended;
  await expect(client.query("SELECT 1")).rejects.toThrow();
  // The pool goes on with new connections.
  expect((await pool.query<{ one: number }>("SELECT 1 AS one")).rows[0]!.one).toBe(1);
});
