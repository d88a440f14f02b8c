// `npm test`: typecheck, lint, the schema/migration check, vitest (unit + integration on PGlite, and
// on PostgreSQL when TEST_DATABASE_URL is set), the runtime-sensitive suites again on the other
// supported Node releases, and Playwright. Runs every stage even after a failure, then ends with one
// line, "N passed, N failed", counting every test that ran.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { installRuntime, RUNTIMES } from "./runtimes/install.mjs";

mkdirSync("test-results", { recursive: true });
const vitestReport = "test-results/vitest-report.json";
const e2eReport = "test-results/e2e-report.json";
const e2eRemoteReport = "test-results/e2e-remote-report.json";
const runtimeReport = (version) => `test-results/vitest-node-${version}.json`;
const vitestReports = [vitestReport, ...RUNTIMES.map(runtimeReport)];
// What failed a vitest stage outside any test (tests/reporters/run-problems.ts), per stage.
const problemsFile = (report) => report.replace(/\.json$/, ".problems.txt");
const problemsReporter = (report) => ["--reporter=./tests/reporters/run-problems.ts", { INLAY_TEST_PROBLEMS: problemsFile(report) }];
for (const report of [...vitestReports, e2eReport, e2eRemoteReport]) rmSync(report, { force: true });
for (const report of vitestReports) rmSync(problemsFile(report), { force: true });

// What depends on the Node release beneath it: the HTTP server and its keep-alive handling, SSE,
// child processes, undici, the OAuth server, SMTP, the script sandboxes (WASM in worker threads),
// MCP, pg-boss, the Stripe SDK and the model providers. The whole suite passes on each release too
// (run it with `.runtimes/node-<version>/bin/node node_modules/vitest/vitest.mjs run`).
const runtimeSuites = [
  "--project=unit",
  "--project=integration-pglite",
  "tests/unit",
  ...[
    "standalone",
    "early-rejection",
    "http-layer",
    "runs",
    "run-recovery",
    "tool-server-runs",
    "server-oauth",
    "email",
    "webhooks",
    "jobs",
    "payments",
    "outbound-guard",
  ].map((name) => `tests/integration/platform/${name}.test.ts`),
  "tests/integration/runtime/providers.test.ts",
  "tests/integration/framework/connections.test.ts",
];
const runtimeStages = RUNTIMES.map((version) => {
  let binary;
  try {
    binary = installRuntime(version);
  } catch (error) {
    const message = `Node ${version} could not be installed: ${error.message}`;
    return [`runtime-sensitive suites on Node ${version}`, process.execPath, ["-e", `console.error(${JSON.stringify(message)}); process.exit(1)`]];
  }
  return [
    `runtime-sensitive suites on Node ${version}`,
    binary,
    [
      "node_modules/vitest/vitest.mjs",
      "run",
      ...runtimeSuites,
      "--reporter=dot",
      "--reporter=json",
      `--outputFile.json=${runtimeReport(version)}`,
      problemsReporter(runtimeReport(version))[0],
    ],
    // Child processes (npx, the standalone platform) find this release first too.
    { PATH: `${path.dirname(binary)}${path.delimiter}${process.env.PATH}`, ...problemsReporter(runtimeReport(version))[1] },
  ];
});

const stages = [
  ["typecheck", "npx", ["tsc", "--noEmit"]],
  ["lint", "npx", ["eslint", "--max-warnings", "0", "."]],
  ["schema and migrations agree", "npx", ["tsx", "prisma/tools/migration.ts", "check"]],
  [
    "unit and integration tests",
    "npx",
    ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${vitestReport}`, problemsReporter(vitestReport)[0]],
    problemsReporter(vitestReport)[1],
  ],
  ...runtimeStages,
  ["end-to-end tests", "npx", ["playwright", "test"]],
  // The same suite with the framework pointed at a platform started separately (`npm run platform`),
  // reusing the build of the pass before.
  [
    "end-to-end tests against a separate platform",
    "npx",
    ["playwright", "test"],
    { E2E_REMOTE_PLATFORM: "1", E2E_SKIP_BUILD: "1", E2E_REPORT: e2eRemoteReport },
  ],
];

const failedStages = [];
const durations = [];
for (const [name, command, args, env = {}] of stages) {
  console.log(`\n=== ${name} ===`);
  const started = Date.now();
  const result = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, ...env } });
  durations.push(`${name}: ${Math.round((Date.now() - started) / 1000)} s`);
  if (result.status !== 0) failedStages.push(name);
}
// Each stage's wall time, to keep CI within its budget.
console.log(`\n${durations.join("\n")}`);

let passed = 0;
let failed = 0;
for (const file of vitestReports) {
  if (!existsSync(file)) continue;
  const report = JSON.parse(readFileSync(file, "utf8"));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
}
for (const report of [e2eReport, e2eRemoteReport]) {
  if (!existsSync(report)) continue;
  const { stats } = JSON.parse(readFileSync(report, "utf8"));
  passed += stats.expected + stats.flaky;
  failed += stats.unexpected;
}
if (!existsSync("/usr/bin/chromium") && !process.env.CHROMIUM_PATH) {
  console.log("\nThe end-to-end tests need Debian's Chromium: apt-get install -y chromium");
}
for (const report of vitestReports) {
  const problems = existsSync(problemsFile(report)) ? readFileSync(problemsFile(report), "utf8") : "";
  if (problems) console.log(`\nOutside any test (${report}):\n${problems}`);
}
if (failedStages.length > 0) console.log(`\nFailed: ${failedStages.join(", ")}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failedStages.length > 0 ? 1 : 0);
