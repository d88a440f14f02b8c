// The Next.js app's probes (server/framework/health.ts): with the embedded platform the app is that
// platform's process, so its readiness is the platform's (database, migrations, runtime, worker) and the
// app's own (the platform answers its key, the run ledger's webhook is registered).
import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, test } from "@playwright/test";

test("the app answers /healthz and /readyz for a load balancer", async ({ request }) => {
  const alive = await request.get("/healthz");
  expect(alive.status()).toBe(200);
  expect(await alive.json()).toEqual({ status: "ok", role: "all" });
  const ready = await request.get("/readyz");
  expect(ready.status()).toBe(200);
  expect(await ready.json()).toEqual({
    ready: true,
    role: "all",
    checks: {
      database: { ok: true },
      migrations: { ok: true },
      // Not draining (server/framework/lifecycle.ts).
      app: { ok: true },
      platform: { ok: true },
      ledger_webhook: { ok: true },
      runtime: { ok: true },
      worker: { ok: true },
    },
    // A production process on the sim model says so, and stays ready.
    warnings: [expect.stringContaining("INLAY_MODEL_PROVIDER is sim")],
  });
});

test("one scrape of the app's /metrics shows the app's and the embedded platform's metrics", async ({ request }) => {
  // A route handler of the app and one of the platform's, each in its own Next.js bundle.
  expect((await request.get("/api/chat?runId=1")).status()).toBe(401);
  expect((await request.get("/api/v2/openapi.json")).status()).toBe(200);
  expect((await request.get("/metrics")).status()).toBe(401);
  const scrape = await request.get("/metrics", { headers: { authorization: "Bearer e2e-only-metrics-token" } });
  expect(scrape.status()).toBe(200);
  const text = await scrape.text();
  expect(text).toMatch(/^inlay_app_http_request_duration_seconds_count\{method="GET",route="\/api\/chat",status="401"\} [1-9]/m);
  expect(text).toMatch(/^inlay_http_request_duration_seconds_count\{method="GET",route="\/api\/v2\/openapi\.json",status="200"\} [1-9]/m);
  // A collector start-up registered (instrumentation.ts's bundle), run by this route's scrape.
  expect(text).toMatch(/^inlay_app_ledger_admissions_open 0$/m);
  // One registry: each metric once, however many bundles loaded its module.
  expect(text.match(/^# TYPE inlay_process_resident_memory_bytes /gm)).toHaveLength(1);
});

// A second server from the same build that cannot start (tests/unit/framework/start-failure.test.ts has the
// why): it must exit with the reason, not stay up answering 500 to every request, /healthz included.
async function startFailing(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const port = test.info().config.metadata.sparePort as number;
  // eslint-disable-next-line no-restricted-properties -- the child inherits the runner's environment, less the app's secret
  const { NEXTAUTH_SECRET: _unset, ...inherited } = process.env;
  const server = spawn(process.execPath, ["node_modules/next/dist/bin/next", "start", "--port", String(port)], {
    env: { ...inherited, NEXT_TELEMETRY_DISABLED: "1", PGLITE_DATA_DIR: "memory://", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  server.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  server.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => server.once("exit", resolve));
  return { code, output };
}

test("a server without NEXTAUTH_SECRET in production exits at start naming it", async () => {
  test.setTimeout(90_000);
  const { code, output } = await startFailing({});
  expect(code).toBe(1);
  expect(output).toMatch(/The app cannot start: Invalid environment[\s\S]*NEXTAUTH_SECRET: is required in production/);
});

test("a server on a PGlite directory it cannot open exits at start naming it", async () => {
  test.setTimeout(90_000);
  const notADirectory = path.join(test.info().outputDir, "not-a-directory");
  await mkdir(path.dirname(notADirectory), { recursive: true });
  await writeFile(notADirectory, "");
  const { code, output } = await startFailing({ NEXTAUTH_SECRET: "e2e-only-secret", PGLITE_DATA_DIR: notADirectory });
  expect(code).toBe(1);
  expect(output).toContain(`The app cannot start: could not open the PGlite database in ${notADirectory} (PGLITE_DATA_DIR)`);
});
