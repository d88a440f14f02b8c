import { availableParallelism } from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";

// Integration tests run on PGlite and, when TEST_DATABASE_URL is set, on PostgreSQL.
// tests/helpers/database.ts reads INLAY_TEST_DB to know which.
// The workspace packages resolve to their sources, as tsconfig.json's paths say (the app builds them in).
const alias = {
  "@": path.resolve(import.meta.dirname),
  "@inlay/core": path.resolve(import.meta.dirname, "packages/core/src"),
  "@inlay/server": path.resolve(import.meta.dirname, "packages/server/src"),
  "@inlay/react": path.resolve(import.meta.dirname, "packages/react/src"),
};
// A worker keeps its modules from one test file to the next instead of importing the platform afresh
// for each (that import was a third of the suite's time). Every file starts its own platform on its own
// database and closes it, so no state is meant to carry over; a file that changes process-wide state
// (vi.stubEnv, globals) undoes it in afterEach. Set per project: projects do not inherit the root's.
const isolate = false;

// eslint-disable-next-line no-restricted-properties -- test configuration, outside the app
const postgres = Boolean(process.env.TEST_DATABASE_URL);
// With PostgreSQL at hand every file runs there (production's database), and on PGlite only the files
// that exercise PGlite's own paths: its driver and migrations, its one connection (transactions that
// queue behind each other, racing admissions), the in-process bus and signals that stand for
// LISTEN/NOTIFY, pg-boss over executeSql, and the embedded default that `npm run dev` starts. This is
// the one place that list lives. Without PostgreSQL (or with INLAY_TEST_PGLITE=all) every file runs on
// PGlite.
export const PGLITE_FILES = [
  "tests/integration/db/migrations.test.ts", // the migration runner and the PGlite driver
  "tests/integration/db/pglite-thread.pglite.test.ts", // PGlite on a thread of its own, as the servers run it
  "tests/integration/platform/standalone.test.ts", // `npm run platform -- --data-dir`: a PGlite process
  "tests/integration/framework/seed.test.ts", // the demo seed of the embedded default
  "tests/integration/framework/platform.test.ts", // the framework over its embedded platform
  "tests/integration/chat/bridge.test.ts", // the chat's stream from the embedded platform
  "tests/integration/platform/runs.test.ts", // runs and SSE over the in-process event bus
  "tests/integration/platform/run-recovery.test.ts", // leases and resumption on one connection
  "tests/integration/platform/run-fan-out.test.ts", // many readers of one run on the in-process bus
  "tests/integration/platform/billing.test.ts", // racing admissions serialized on one connection
  "tests/integration/platform/hot-cache.test.ts", // cache invalidation through the in-process signals
  "tests/integration/platform/jobs.test.ts", // pg-boss on PGlite (executeSql)
  "tests/integration/platform/webhooks.test.ts", // the outbox woken by the in-process notification
  "tests/integration/runtime/event-writer.test.ts", // batched event appends on one connection
];
// eslint-disable-next-line no-restricted-properties -- test configuration, outside the app
const pgliteEverywhere = !postgres || process.env.INLAY_TEST_PGLITE === "all";

const integration = (name: string, db: "pglite" | "postgres") => ({
  resolve: { alias },
  test: {
    name,
    isolate,
    include: db === "pglite" && !pgliteEverywhere ? PGLITE_FILES : ["tests/integration/**/*.test.ts"],
    // *.postgres.test.ts and *.redis.test.ts need the machine's servers (several instances sharing
    // PostgreSQL or Redis), so they run in the PostgreSQL project only; *.pglite.test.ts test PGlite
    // itself, in the PGlite project only.
    exclude:
      db === "pglite"
        ? ["tests/integration/**/*.postgres.test.ts", "tests/integration/**/*.redis.test.ts"]
        : ["tests/integration/**/*.pglite.test.ts"],
    env: { INLAY_TEST_DB: db },
    // Migrates one template database per run; each test file's database is a copy of it.
    // The compiled platform, for the tests that start platform processes (tests/setup/compiled-platform.ts).
    globalSetup: ["tests/setup/database-template.ts", "tests/setup/compiled-platform.ts"],
    setupFiles: ["tests/setup/pool-after-end.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

// The whole product as it is deployed: several processes of the compiled platform and of the app's
// production build (`npm run build`) behind nginx on PostgreSQL. tests/run-all.mjs runs it after the
// build, apart from the other projects.
const product = {
  resolve: { alias },
  test: {
    name: "product",
    isolate,
    include: ["tests/product/**/*.test.ts"],
    // One file at a time: each starts a whole cluster of processes, and two at once on two cores starve
    // each other's restarts.
    fileParallelism: false,
    env: { INLAY_TEST_DB: "postgres" },
    testTimeout: 30_000,
    hookTimeout: 240_000,
  },
};

export default defineConfig({
  resolve: { alias },
  test: {
    // Integration files mostly wait on databases, timers and sockets: one more file at a time than
    // there are cores (vitest's default is one fewer). On CI's two cores, three at a time took the Node
    // 22 stage from 445 s (24 % of the CPU idle, mostly a tail of long files) to 373 s.
    maxWorkers: availableParallelism() + 1,
    projects: [
      { resolve: { alias }, test: { name: "unit", isolate, include: ["tests/unit/**/*.test.ts"] } },
      integration("integration-pglite", "pglite"),
      ...(postgres ? [integration("integration-postgres", "postgres"), product] : []),
    ],
  },
});
