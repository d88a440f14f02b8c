// The round trips one simple run makes to PostgreSQL, per role, held to a ceiling: a change that adds
// one fails here. Counted by bench/round-trips.ts (a web and a worker instance, each on its own pool;
// one warm-up run, then one counted). `npm run bench -- round-trips` lists the statements.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { measureRunRoundTrips, type RoundTripReport } from "@/bench/round-trips";
import { createMigratedPostgresDatabase } from "../../helpers/database";

// Lower it when you cut a round trip.
// The web's streamed figure includes its reads of the log: one when it starts following (and, when
// that finds nothing yet, a check for `done`), then one per wake-up the worker's NOTIFYs give it, which
// a timing can merge. Its ceiling is the most that can be: two at the start and one per wake-up.
const CEILING = {
  streaming: { web: 7, worker: 6 },
  nonStreaming: { web: 1, worker: 5 },
};

let report: RoundTripReport;
let drop: () => Promise<void>;
beforeAll(async () => {
  const database = await createMigratedPostgresDatabase();
  drop = database.drop;
  report = await measureRunRoundTrips(database.url);
}, 120_000);
afterAll(() => drop?.());

describe("round trips of one run (sim model, no tools)", () => {
  for (const mode of ["streaming", "nonStreaming"] as const) {
    it(`${mode}: each role sends at most its ceiling`, () => {
      const counted = { web: report[mode].web.roundTrips, worker: report[mode].worker.roundTrips };
      const statements = { web: report[mode].web.statements, worker: report[mode].worker.statements };
      // On failure, what was sent: the new statement is among them.
      const listed = (role: "web" | "worker") => statements[role].map(([sql, count]) => `${count}x ${sql.slice(0, 140)}`).join("\n");
      expect(counted.web, listed("web")).toBeLessThanOrEqual(CEILING[mode].web);
      expect(counted.worker, listed("worker")).toBeLessThanOrEqual(CEILING[mode].worker);
      // The counter sees the run: admission on the web, the pass and its settlement on the worker.
      expect(statements.web.some(([sql]) => sql.includes("platform_runs"))).toBe(true);
      expect(statements.worker.some(([sql]) => sql.includes("platform_usage_records"))).toBe(true);
    });
  }
});
