// pg-boss records a job's outcome without awaiting the statement: when the database is gone by then
// (a restart, the pool closed at shutdown), that rejection would go unhandled and end the process.
// The queue's database (pg-boss-db.ts) answers it as "nothing changed" and logs it instead.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { logger } from "@/lib/logger";
import { openDatabase, type Database } from "@/server/shared/db";
import { createJobQueue, type JobQueue } from "@/server/platform/infrastructure/job-queue";
import { createEmptyPostgresDatabase } from "../../helpers/database";
import { pollUntil } from "../../helpers/poll";

let empty: Awaited<ReturnType<typeof createEmptyPostgresDatabase>>;
let database: Database;
let queue: JobQueue;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  empty = await createEmptyPostgresDatabase();
  database = await openDatabase({ url: empty.url, poolMax: 2 });
  queue = createJobQueue({ database, work: true, pollingIntervalSeconds: 0.5, stopTimeoutMs: 2_000 });
  await queue.start();
  process.on("unhandledRejection", onUnhandled);
});

afterAll(async () => {
  process.off("unhandledRejection", onUnhandled);
  vi.restoreAllMocks();
  await queue.stop();
  await empty.drop();
});

it("a job whose outcome cannot be recorded (the pool closed meanwhile) is logged, not an unhandled rejection", async () => {
  const warn = vi.spyOn(logger, "warn");
  let ran = false;
  await queue.register("fragile", async () => {
    ran = true;
    // The process's pool closes while the handler runs (what a shutdown or a lost database does).
    await database.close();
  });
  await queue.enqueue("fragile", {});
  const noted = () => warn.mock.calls.some(([, message]) => message === "could not record a job's outcome; it is retried once it expires");
  await pollUntil(async () => noted(), Boolean, "the outcome's failure to be logged");
  expect(ran).toBe(true);
  // The rejection, had it been dropped, is reported within a turn of the event loop.
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(unhandled).toEqual([]);
});
