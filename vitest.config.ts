import { availableParallelism } from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";

// Integration tests run once on PGlite and, when TEST_DATABASE_URL is set, again on PostgreSQL.
// tests/helpers/database.ts reads INLAY_TEST_DB to know which.
const alias = { "@": path.resolve(import.meta.dirname) };
// A worker keeps its modules from one test file to the next instead of importing the platform afresh
// for each (that import was a third of the suite's time). Every file starts its own platform on its own
// database and closes it, so no state is meant to carry over; a file that changes process-wide state
// (vi.stubEnv, globals) undoes it in afterEach. Set per project: projects do not inherit the root's.
const isolate = false;
const integration = (name: string, db: "pglite" | "postgres") => ({
  resolve: { alias },
  test: {
    name,
    isolate,
    include: ["tests/integration/**/*.test.ts"],
    // *.postgres.test.ts and *.redis.test.ts need the machine's servers (several instances sharing
    // PostgreSQL or Redis), so they run once, in the PostgreSQL project.
    exclude: db === "pglite" ? ["tests/integration/**/*.postgres.test.ts", "tests/integration/**/*.redis.test.ts"] : [],
    env: { INLAY_TEST_DB: db },
    // Migrates one template database per run; each test file's database is a copy of it.
    globalSetup: ["tests/setup/database-template.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

export default defineConfig({
  resolve: { alias },
  test: {
    // Integration files mostly wait on databases, timers and sockets: two at a time even on a two-core
    // machine (vitest's default there is one) roughly halves the suite's wall time.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      { resolve: { alias }, test: { name: "unit", isolate, include: ["tests/unit/**/*.test.ts"] } },
      integration("integration-pglite", "pglite"),
      // eslint-disable-next-line no-restricted-properties -- test configuration, outside the app
      ...(process.env.TEST_DATABASE_URL ? [integration("integration-postgres", "postgres")] : []),
    ],
  },
});
