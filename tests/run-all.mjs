// `npm test`: typecheck and lint, the schema/migration check, vitest on Node 22 (unit, integration on
// PGlite and, when TEST_DATABASE_URL is set, on PostgreSQL), the runtime-sensitive suites again on the
// other supported Node releases, and Playwright. Runs every stage even after a failure, prints a table
// of the stages (wall time, test counts) and the slowest test files, writes them to
// test-results/stage-times.json, and ends with one line, "N passed, N failed", counting every test.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { installRuntime, MAIN_RUNTIME, OTHER_RUNTIMES } from "./runtimes/install.mjs";

const suiteStarted = Date.now();
mkdirSync("test-results", { recursive: true });
const stageTimesFile = "test-results/stage-times.json";
rmSync(stageTimesFile, { force: true });

// What depends on the Node release beneath it: the HTTP server and its keep-alive handling, SSE,
// child processes, undici and the outbound guard, the OAuth server, SMTP, the script sandboxes (WASM in
// worker threads), MCP, the Stripe SDK and the model providers. Not here, as plain logic over those:
// the outbox and webhooks, pg-boss jobs, run recovery, the sandbox's fair share. The whole suite passes
// on each release too (run it with `.runtimes/node-<version>/bin/node node_modules/vitest/vitest.mjs run`).
const runtimeSuites = [
  "--project=unit",
  "--project=integration-pglite",
  // Of the unit tests, the script sandboxes (WebAssembly in worker threads); the rest is plain logic.
  "tests/unit/platform/script-sandbox.test.ts",
  ...[
    "standalone",
    "early-rejection",
    "http-layer",
    "runs",
    "tool-server-runs",
    "server-oauth",
    "email",
    "payments",
    "outbound-guard",
  ].map((name) => `tests/integration/platform/${name}.test.ts`),
  "tests/integration/runtime/providers.test.ts",
  "tests/integration/framework/connections.test.ts",
];

/** A vitest stage on one Node release: its JSON report, problems outside tests and file times. */
function vitestStage(name, version, args, env = {}) {
  const slug = name.replace(/[^a-z0-9]+/gi, "-").toLowerCase();
  const report = `test-results/vitest-${slug}.json`;
  const reports = { vitest: report, problems: `test-results/vitest-${slug}.problems.txt`, files: `test-results/vitest-${slug}.files.json` };
  for (const file of Object.values(reports)) rmSync(file, { force: true });
  let binary;
  try {
    binary = installRuntime(version);
  } catch (error) {
    const message = `Node ${version} could not be installed: ${error.message}`;
    return { name, command: process.execPath, args: ["-e", `console.error(${JSON.stringify(message)}); process.exit(1)`], reports };
  }
  return {
    name,
    command: binary,
    args: [
      "node_modules/vitest/vitest.mjs",
      "run",
      ...args,
      `--outputFile.json=${report}`,
      "--reporter=json",
      "--reporter=./tests/reporters/run-problems.ts",
      "--reporter=./tests/reporters/file-times.ts",
    ],
    env: {
      // Child processes (npx, the standalone platform) find this release first too.
      PATH: `${path.dirname(binary)}${path.delimiter}${process.env.PATH}`,
      INLAY_TEST_PROBLEMS: reports.problems,
      INLAY_TEST_FILE_TIMES: reports.files,
      ...env,
    },
    reports,
  };
}

const e2eReport = "test-results/e2e-report.json";
// Outside the repository (Next would take the repository's lock file as the app's root).
const VENDOR_APP = path.join(os.tmpdir(), "inlay-vendor-app");
const e2eRemoteReport = "test-results/e2e-remote-report.json";
for (const report of [e2eReport, e2eRemoteReport]) rmSync(report, { force: true });

// Each entry is a step: lanes that run side by side, each lane its stages one after another. Side by
// side where one stage leaves the cores idle: typecheck, lint and the schema check are one process each, and the
// runtime-sensitive suites mostly wait on sockets and timers while the production build computes.
const steps = [
  [
    [{ name: "typecheck", command: "npx", args: ["tsc", "--noEmit"] }],
    [
      { name: "lint", command: "npx", args: ["eslint", "--max-warnings", "0", "."] },
      { name: "import cycles", command: "npm", args: ["run", "check:cycles", "--silent"] },
    ],
    [{ name: "schema and migrations agree", command: "npx", args: ["tsx", "prisma/tools/migration.ts", "check"] }],
  ],
  [
    [
      vitestStage(`unit and integration tests (Node ${MAIN_RUNTIME})`, MAIN_RUNTIME, [
        // Not the product project: it needs the production build, below.
        "--project=unit",
        "--project=integration-pglite",
        "--project=integration-postgres",
        "--reporter=default",
      ]),
    ],
  ],
  [
    // The production build both Playwright passes serve.
    // The typecheck stage has checked these sources: the build skips its own pass over them.
    [{ name: "production build", command: "npm", args: ["run", "build", "--silent"], env: { INLAY_BUILD_TYPECHECKED: "1" } }],
    // The packages as a vendor gets them: packed, installed into an app create-next-app generates, built
    // (tests/vendor-app/generate.mjs, cached by the tarballs' hashes); the remote pass drives it. On
    // Node ${MAIN_RUNTIME}: the AI SDK the packages depend on asks for Node 22.
    [
      {
        name: "a vendor's app (packages packed, create-next-app, next build)",
        command: installRuntime(MAIN_RUNTIME),
        args: ["tests/vendor-app/generate.mjs", "--out", VENDOR_APP, "--overlay", "tests/vendor-app/overlay", "--pack", "--build"],
      },
    ],
    OTHER_RUNTIMES.map((version) =>
      // PGlite for every listed file here, as on a machine without PostgreSQL (vitest.config.ts).
      vitestStage(`runtime-sensitive suites (Node ${version})`, version, [...runtimeSuites, "--reporter=dot"], { INLAY_TEST_PGLITE: "all" }),
    ),
  ],
  [
    // The two Playwright passes side by side, each on its own ports (a browser mostly waits on the app),
    // and after the shorter one the whole product as deployed.
    [
      {
        name: "end-to-end tests",
        command: "npx",
        args: ["playwright", "test"],
        env: { E2E_SKIP_BUILD: "1" },
        reports: { playwright: e2eReport },
      },
    ],
    [
      // The specs that need a platform of their own (one that may call loopback fakes), with the
      // framework pointed at a platform started separately (`npm run platform`), and, to even out the
      // two lanes, the ones that start servers of their own (playwright.config.ts)...
      {
        name: "end-to-end tests against a separate platform",
        command: "npx",
        args: ["playwright", "test"],
        env: {
          E2E_REMOTE_PLATFORM: "1",
          E2E_SKIP_BUILD: "1",
          E2E_REPORT: e2eRemoteReport,
          E2E_VENDOR_APP: VENDOR_APP,
          E2E_PORT: "3110",
          E2E_STRIPE_FAKE_PORT: "3197",
          E2E_OUTPUT_DIR: "test-results/e2e-remote-artifacts",
        },
        reports: { playwright: e2eRemoteReport },
      },
      // ...then the whole product (PostgreSQL only): apps on the same build and the compiled platform
      // behind nginx, every process restarted under load.
      ...(process.env.TEST_DATABASE_URL
        ? [vitestStage(`the whole product, deployed (Node ${MAIN_RUNTIME})`, MAIN_RUNTIME, ["--project=product", "--reporter=default"])]
        : []),
    ],
  ],
];

function run(stage, buffered) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(stage.command, stage.args, {
      stdio: buffered ? ["ignore", "pipe", "pipe"] : "inherit",
      env: { ...process.env, ...stage.env },
    });
    let output = "";
    if (buffered) {
      child.stdout.on("data", (chunk) => (output += chunk));
      child.stderr.on("data", (chunk) => (output += chunk));
    }
    child.on("close", (code) => resolve({ ok: code === 0, seconds: (Date.now() - started) / 1000, output }));
    child.on("error", (error) => resolve({ ok: false, seconds: (Date.now() - started) / 1000, output: `${error.message}\n` }));
  });
}

const readJson = (file) => (existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined);

/** Test counts of a stage from its report; undefined for a stage that runs no tests. */
function counts(stage) {
  if (stage.reports?.vitest) {
    const report = readJson(stage.reports.vitest);
    if (!report) return { passed: 0, failed: 0, skipped: 0 };
    return { passed: report.numPassedTests, failed: report.numFailedTests, skipped: report.numPendingTests + report.numTodoTests };
  }
  if (stage.reports?.playwright) {
    const stats = readJson(stage.reports.playwright)?.stats;
    if (!stats) return { passed: 0, failed: 0, skipped: 0 };
    return { passed: stats.expected + stats.flaky, failed: stats.unexpected, skipped: stats.skipped };
  }
  return undefined;
}

/** Per-file seconds of a stage: vitest's from the file-times reporter, Playwright's summed per spec file. */
function fileTimes(stage) {
  if (stage.reports?.files) {
    return (readJson(stage.reports.files) ?? []).map((entry) => ({ stage: stage.name, ...entry }));
  }
  if (stage.reports?.playwright) {
    const report = readJson(stage.reports.playwright);
    const perFile = new Map();
    const walk = (suite) => {
      for (const spec of suite.specs ?? []) {
        for (const test of spec.tests ?? []) {
          const ms = (test.results ?? []).reduce((sum, result) => sum + (result.duration ?? 0), 0);
          const file = path.join("tests/e2e", spec.file ?? suite.file);
          perFile.set(file, (perFile.get(file) ?? 0) + ms);
        }
      }
      for (const child of suite.suites ?? []) walk(child);
    };
    for (const suite of report?.suites ?? []) walk(suite);
    return [...perFile].map(([file, ms]) => ({ stage: stage.name, project: "playwright", file, seconds: ms / 1000 }));
  }
  return [];
}

/** Each failed test of a stage with the first line of its error, so the end of the output names them. */
function failures(stage) {
  const first = (message) => String(message ?? "").replace(/\x1b\[[0-9;]*m/g, "").split("\n").find((line) => line.trim()) ?? "";
  if (stage.reports?.vitest) {
    return (readJson(stage.reports.vitest)?.testResults ?? []).flatMap((file) => {
      const name = path.relative(process.cwd(), file.name);
      const tests = (file.assertionResults ?? []).filter((test) => test.status === "failed");
      // A file that failed outside its tests (a hook, an import) has no failed test to name.
      if (tests.length === 0) return file.status === "failed" ? [`${name}: ${first(file.message)}`] : [];
      return tests.map((test) => `${name} › ${test.fullName}: ${first(test.failureMessages?.[0])}`);
    });
  }
  if (stage.reports?.playwright) {
    const found = [];
    const walk = (suite) => {
      for (const spec of suite.specs ?? []) {
        for (const test of spec.tests ?? []) {
          if (test.status !== "unexpected") continue;
          const error = test.results?.find((result) => result.error)?.error;
          // Which assertion, on which line, and what it saw: a CI log is often all there is of a failure.
          const where = error?.location ? ` (line ${error.location.line})` : "";
          const detail = String(error?.message ?? "")
            .replace(/\x1b\[[0-9;]*m/g, "")
            .split("\n")
            .filter((line) => /^(Locator|Expected|Received)[^:]*:/.test(line.trim()))
            .map((line) => `\n      ${line.trim().slice(0, 300)}`)
            .join("");
          found.push(`tests/e2e/${spec.file ?? suite.file} › ${spec.title}${where}: ${first(error?.message)}${detail}`);
        }
      }
      for (const child of suite.suites ?? []) walk(child);
    };
    for (const suite of readJson(stage.reports.playwright)?.suites ?? []) walk(suite);
    return found;
  }
  return [];
}

const results = [];
// One row per step: its wall time, and for lanes run side by side, each stage's own time beneath it.
const rows = [];
for (const lanes of steps) {
  const together = lanes.length > 1;
  const started = Date.now();
  const runLane = async (lane) => {
    const outcomes = [];
    for (const stage of lane) {
      if (!together) console.log(`\n=== ${stage.name} ===`);
      const outcome = await run(stage, together);
      // Stages run side by side print their output whole, once each has finished.
      if (together) console.log(`\n=== ${stage.name} (${outcome.ok ? "ok" : "failed"}) ===\n${outcome.output.trimEnd()}`);
      outcomes.push({ stage, ...outcome, counts: counts(stage) });
    }
    return outcomes;
  };
  if (together) console.log(`\n=== side by side: ${lanes.map((lane) => lane.map((stage) => stage.name).join(", then ")).join(" | ")} ===`);
  const outcomes = (await Promise.all(lanes.map(runLane))).flat();
  results.push(...outcomes);
  const row = ({ stage, ok, seconds, counts: tests }) => ({ name: stage.name, ok, seconds: Math.round(seconds), ...tests });
  if (!together) rows.push(row(outcomes[0]));
  else {
    const sum = (key) => (outcomes.some((outcome) => outcome.counts) ? outcomes.reduce((total, outcome) => total + (outcome.counts?.[key] ?? 0), 0) : undefined);
    rows.push({
      name: outcomes.map((outcome) => outcome.stage.name).join(" + "),
      ok: outcomes.every((outcome) => outcome.ok),
      seconds: Math.round((Date.now() - started) / 1000),
      passed: sum("passed"),
      failed: sum("failed"),
      skipped: sum("skipped"),
      parts: outcomes.map(row),
    });
  }
}

const slowest = results
  .flatMap(({ stage }) => fileTimes(stage))
  .sort((a, b) => b.seconds - a.seconds)
  .slice(0, 20);
const table = {
  stages: rows,
  seconds: Math.round((Date.now() - suiteStarted) / 1000),
  slowestFiles: slowest.map((entry) => ({ ...entry, seconds: Math.round(entry.seconds * 10) / 10 })),
};
writeFileSync(stageTimesFile, `${JSON.stringify(table, null, 1)}\n`);

const pad = (value, width) => String(value).padStart(width);
const lines = table.stages.flatMap((stage) => [{ ...stage, label: stage.parts ? "side by side:" : stage.name }, ...(stage.parts ?? []).map((part) => ({ ...part, label: `  ${part.name}` }))]);
const width = Math.max(...lines.map((line) => line.label.length), 5);
console.log(`\n${"stage".padEnd(width)}    time  passed  failed  skipped`);
for (const line of lines) {
  const tests = line.passed === undefined ? "" : `${pad(line.passed, 6)}  ${pad(line.failed, 6)}  ${pad(line.skipped, 7)}`;
  console.log(`${line.label.padEnd(width)}  ${pad(`${line.seconds} s`, 6)}  ${tests}${line.ok ? "" : "  FAILED"}`);
}
console.log(`${"total (wall)".padEnd(width)}  ${pad(`${table.seconds} s`, 6)}  (${stageTimesFile})`);
console.log("\nSlowest test files:");
for (const entry of table.slowestFiles) console.log(`${pad(`${entry.seconds.toFixed(1)} s`, 8)}  ${entry.file} (${entry.project}; ${entry.stage})`);

let passed = 0;
let failed = 0;
for (const { counts: tests } of results) {
  passed += tests?.passed ?? 0;
  failed += tests?.failed ?? 0;
}
if (!existsSync("/usr/bin/chromium") && !process.env.CHROMIUM_PATH) {
  console.log("\nThe end-to-end tests need Debian's Chromium: apt-get install -y chromium");
}
for (const { stage } of results) {
  const problems = stage.reports?.problems && existsSync(stage.reports.problems) ? readFileSync(stage.reports.problems, "utf8") : "";
  if (problems) console.log(`\nOutside any test (${stage.name}):\n${problems}`);
}
const failedTests = results.flatMap(({ stage }) => failures(stage).map((line) => `  ${line} (${stage.name})`));
if (failedTests.length > 0) console.log(`\nFailed tests:\n${failedTests.join("\n")}`);
const failedStages = results.filter((result) => !result.ok).map((result) => result.stage.name);
if (failedStages.length > 0) console.log(`\nFailed: ${failedStages.join(", ")}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failedStages.length > 0 ? 1 : 0);
