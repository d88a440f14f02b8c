// The round trips one simple run makes to PostgreSQL, per role, held to a ceiling: a change that adds
// one fails here. Counted by bench/round-trips.ts (a web and a worker instance, each on its own pool;
// one warm-up run, then one counted). `npm run bench -- round-trips` lists the statements.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { measureRunRoundTrips, type RoundTripReport } from "@/bench/round-trips";
import { createMigratedPostgresDatabase } from "../../helpers/database";

// Lower it when you cut a round trip. Frame appends and reads of the log are held apart: how many a
// run takes depends on timing (the event writer puts the first token alone, then whatever came
// meanwhile, and the statement that ends the pass takes the rest; a web reader reads the log only when
// a NOTIFY came before it subscribed), while every other statement is a fixed cost of the run, and any
// one added to it fails here.
const CEILING = {
  streaming: { web: { other: 1, logReads: 2 }, worker: { other: 2, appends: 3 } },
  nonStreaming: { web: { other: 1, logReads: 0 }, worker: { other: 2, appends: 3 } },
  // A plan-mode run to its pause: its tool-call step is metered as it ends, and the pause's frames and
  // the lease's release go with the pause's statement.
  paused: { web: { other: 1, logReads: 0 }, worker: { other: 3, appends: 3 } },
  // An end-user's run (user_id): the web also finds the end-user; the worker's claim reads the
  // end-user's user_id that the run's webhook event carries.
  endUser: { web: { other: 2, logReads: 0 }, worker: { other: 2, appends: 3 } },
};
// One instance of role all: admission (which also reads what the pass reads, the run being leased to
// this instance's worker) and the pass's end; the frames apart, as above.
const ONE_PROCESS_CEILING = { other: 2, appends: 3 };

/** The event writer's statement (repositories/run-events.ts, appendEventsOfRuns). */
const isAppend = (sql: string) => /^WITH input AS \( SELECT \(f\.value->>\?\)::int AS run_id, f\.value->\? AS frame/.test(sql);
/** A read of run logs (runtime/follow-run.ts, infrastructure/run-followers.ts). */
const isLogRead = (sql: string) => sql.startsWith("SELECT") && sql.includes("platform_run_events");

let report: RoundTripReport;
let drop: () => Promise<void>;
beforeAll(async () => {
  const database = await createMigratedPostgresDatabase();
  drop = database.drop;
  report = await measureRunRoundTrips(database.url);
}, 120_000);
afterAll(() => drop?.());

describe("round trips of one run (sim model)", () => {
  for (const mode of ["streaming", "nonStreaming", "paused", "endUser"] as const) {
    it(`${mode}: each role sends at most its ceiling`, () => {
      const statements = { web: report[mode].web.statements, worker: report[mode].worker.statements };
      const count = (role: "web" | "worker", which: (sql: string) => boolean) =>
        statements[role].filter(([sql]) => which(sql)).reduce((sum, [, times]) => sum + times, 0);
      const other = (sql: string) => !isAppend(sql) && !isLogRead(sql);
      // On failure, what was sent: the new statement is among them.
      const listed = (role: "web" | "worker") => statements[role].map(([sql, times]) => `${times}x ${sql.slice(0, 140)}`).join("\n");
      expect(count("web", other), listed("web")).toBeLessThanOrEqual(CEILING[mode].web.other);
      expect(count("web", isLogRead), listed("web")).toBeLessThanOrEqual(CEILING[mode].web.logReads);
      expect(count("worker", other), listed("worker")).toBeLessThanOrEqual(CEILING[mode].worker.other);
      expect(count("worker", isAppend), listed("worker")).toBeLessThanOrEqual(CEILING[mode].worker.appends);
      // Every statement is one of the three kinds, and the totals are the report's.
      expect(count("web", () => true)).toBe(report[mode].web.roundTrips);
      expect(count("worker", () => true)).toBe(report[mode].worker.roundTrips);
      // The counter sees the run: admission on the web, the pass and its settlement on the worker.
      expect(statements.web.some(([sql]) => sql.includes("platform_runs"))).toBe(true);
      expect(statements.worker.some(([sql]) => sql.includes("platform_usage_records"))).toBe(true);
    });
  }

  for (const mode of ["streaming", "nonStreaming"] as const) {
    it(`${mode}, one instance of role all: at most its ceiling`, () => {
      const { statements, roundTrips } = report.oneProcess[mode];
      const count = (which: (sql: string) => boolean) => statements.filter(([sql]) => which(sql)).reduce((sum, [, times]) => sum + times, 0);
      const listed = statements.map(([sql, times]) => `${times}x ${sql.slice(0, 140)}`).join("\n");
      expect(count((sql) => !isAppend(sql) && !isLogRead(sql)), listed).toBeLessThanOrEqual(ONE_PROCESS_CEILING.other);
      expect(count(isAppend), listed).toBeLessThanOrEqual(ONE_PROCESS_CEILING.appends);
      expect(count(isLogRead), listed).toBe(0);
      expect(count(() => true)).toBe(roundTrips);
      // The counter sees the run: its admission and its settlement.
      expect(statements.some(([sql]) => sql.includes("platform_runs"))).toBe(true);
      expect(statements.some(([sql]) => sql.includes("platform_usage_records"))).toBe(true);
    });
  }
});
