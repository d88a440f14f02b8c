// The compiled platform (server/platform-build.ts, what `npm run build` writes and production runs):
// plain node, no TypeScript loader, in production mode, as a deploy starts it: the migration step, then
// a web and a worker on one PostgreSQL database. The run's own build of it (tests/setup/compiled-platform.ts),
// in a directory under dist/ where node_modules resolve as they do from dist/platform/.
import { spawn, type ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createEmptyPostgresDatabase } from "../../helpers/database";

const root = path.resolve(import.meta.dirname, "../../..");
let outdir: string;
let database: { url: string; drop(): Promise<void> };
const children: ChildProcess[] = [];

beforeAll(async () => {
  outdir = inject("compiledPlatform");
  database = await createEmptyPostgresDatabase();
}, 60_000);

afterAll(async () => {
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }),
  );
  await database?.drop();
});

/** Runs dist's <name>.js with plain node from the checkout's root; resolves with its first stdout line. */
async function start(name: string, args: string[] = []): Promise<{ child: ChildProcess; first: string }> {
  const child = spawn(process.execPath, [path.join(outdir, `${name}.js`), ...args], {
    cwd: root,
    env: {
      // eslint-disable-next-line no-restricted-properties -- the child inherits the test's environment
      ...process.env,
      NODE_ENV: "production",
      // Production closes POST /signup by default; this test signs up as a deployment's first user would.
      INLAY_SIGNUP: "open",
      NEXTAUTH_SECRET: "compiled-test-secret-compiled-test-secret",
      DATABASE_URL: database.url,
      OUTBOUND_ALLOW_LOOPBACK: "",
      LOG_LEVEL: "warn",
      // No loader inherited from the test's own process.
      NODE_OPTIONS: "",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`${name}.js exited with ${code}: ${stderr}`)));
  });
  return { child, first };
}

describe("the compiled platform", () => {
  it("migrates once, then runs a web and a worker that answer their probes and check a script in the sandbox", async () => {
    const migrate = await start("migrate");
    expect(migrate.first).toBe("migrations applied");
    const migrated = await new Promise<number | null>((resolve) => migrate.child.once("exit", resolve));
    expect(migrated).toBe(0);

    const web = await start("standalone", ["--role", "web", "--port", "0"]);
    expect(web.first).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\/api\/v2$/);
    const baseUrl = web.first.slice("listening on ".length);
    const origin = new URL(baseUrl).origin;
    const worker = await start("standalone", ["--role", "worker", "--probe-port", "0"]);
    expect(worker.first).toMatch(/^worker ready, probes on http:\/\/127\.0\.0\.1:\d+$/);
    const probes = worker.first.slice("worker ready, probes on ".length);

    for (const [url, role] of [
      [origin, "web"],
      [probes, "worker"],
    ] as const) {
      const alive = await fetch(`${url}/healthz`);
      expect(alive.status).toBe(200);
      // Both ports keep an idle connection longer than what sits in front of them (http/server-timeouts.ts).
      expect(alive.headers.get("keep-alive"), role).toBe("timeout=65");
      expect(await alive.json()).toEqual({ status: "ok", role });
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ ready: true, role });
    }

    // docs/errors.md is read from the working directory at run time.
    const errors = await fetch(`${baseUrl}/docs/errors`);
    expect(errors.status).toBe(200);
    expect(await errors.text()).toContain("# Errors");

    // A script server is checked in the Pyodide sandbox at create: its worker thread (worker.mjs,
    // copied beside the bundle) and pyodide from node_modules must load from the compiled process.
    const signup = await fetch(`${baseUrl}/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "compiled@example.test", first_name: "C", require_end_user_id: false }),
    });
    expect(signup.status).toBe(201);
    const { api_key: key } = (await signup.json()) as { api_key: string };
    const create = (source: string) =>
      fetch(`${baseUrl}/mcp-servers`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ name: "S", url: "https://api.example.com", kind: "script", tool_defs: ["shout"], script_source: source }),
      });
    const good = await create("def shout(text):\n    return text.upper()\n");
    expect(good.status).toBe(201);
    const bad = await create("def whisper(text):\n    return text.lower()\n");
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { error: { error_code: string } }).error.error_code).toBe("tool_server_invalid_script");

    const exited = new Promise<number | null>((resolve) => web.child.once("exit", resolve));
    web.child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 120_000);

  it("loads at start none of the packages only some requests use: each is imported where it is first used", async () => {
    const bundle = await readFile(path.join(outdir, "standalone.js"), "utf8");
    // esbuild writes the external imports it keeps static at the top of the file, one statement each.
    const atStart = new Set([...bundle.matchAll(/^import\s(?:[^;]*?\sfrom\s)?"([^"]+)";$/gm)].map((match) => match[1]));
    expect(atStart.size).toBeGreaterThan(10);
    const lazy = [
      "stripe",
      "nodemailer",
      "imapflow",
      "mailparser",
      "smtp-server",
      "@electric-sql/pglite",
      "pglite-prisma-adapter",
      "@opentelemetry/sdk-trace-node",
      "@opentelemetry/exporter-trace-otlp-http",
      "@opentelemetry/resources",
      "@ai-sdk/otel",
      "@ai-sdk/mcp",
      "undici",
    ];
    for (const name of lazy) {
      expect(atStart.has(name), name).toBe(false);
      expect(bundle, name).toContain(`import("${name}")`);
    }
  });
});
