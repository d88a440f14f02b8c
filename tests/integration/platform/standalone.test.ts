// `npm run platform` as a user runs it: a real process, real HTTP.
import { existsSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createEmptyPostgresDatabase, testDatabaseKind } from "../../helpers/database";
import { standaloneProcesses } from "../../helpers/standalone";

const { startStandalone, stopAll } = standaloneProcesses();
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  stopAll();
  await Promise.all(cleanups.map((cleanup) => cleanup()));
});

describe("npm run platform", () => {
  it("prints one listening line and serves /api/v2 on a fresh database, its links naming the port it bound", async () => {
    let args = ["--port", "0"];
    let dataDir: string | undefined;
    // JSON log lines at info: the run below must leave one that names its request, account and run.
    let extraEnv: Record<string, string> = { LOG_FORMAT: "json", LOG_LEVEL: "info" };
    if (testDatabaseKind === "postgres") {
      const empty = await createEmptyPostgresDatabase();
      cleanups.push(empty.drop);
      extraEnv = { ...extraEnv, DATABASE_URL: empty.url };
    } else {
      dataDir = path.join(await mkdtemp(path.join(tmpdir(), "inlay-platform-")), "db");
      args = [...args, "--data-dir", dataDir];
    }
    const { child, first, stderr } = await startStandalone(args, extraEnv);
    expect(first).toMatch(/^listening on http:\/\/127\.0\.0\.1:\d+\/api\/v2$/);
    const port = Number(new URL(first.slice("listening on ".length)).port);
    expect(port).toBeGreaterThan(0);

    const openapi = await fetch(`http://127.0.0.1:${port}/api/v2/openapi.json`);
    expect(openapi.status).toBe(200);
    expect(((await openapi.json()) as { openapi: string }).openapi).toBe("3.1.0");
    // Idle connections outlive a load balancer's or a client pool's idle timeout (commonly 60 s): the
    // server never closes one a client may be reusing (Node's default is 5 s).
    expect(openapi.headers.get("keep-alive")).toBe("timeout=65");

    const missing = await fetch(`http://127.0.0.1:${port}/api/v2/nope`);
    expect(missing.status).toBe(404);
    // Links the platform hands out (no INLAY_PLATFORM_PUBLIC_URL here) name where it listens, never port 0.
    expect(((await missing.json()) as { error: { type: string; doc_url: string } }).error).toMatchObject({
      type: "not_found",
      doc_url: `http://127.0.0.1:${port}/api/v2/docs/errors#not_found`,
    });

    // Probes for a load balancer or an orchestrator, outside /api/v2.
    const alive = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(alive.status).toBe(200);
    expect(await alive.json()).toEqual({ status: "ok", role: "all" });
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      ready: true,
      role: "all",
      checks: { database: { ok: true }, migrations: { ok: true }, runtime: { ok: true }, worker: { ok: true } },
    });

    // A run's lines carry the ids of the request that admitted it, its account and itself.
    const api = `http://127.0.0.1:${port}/api/v2`;
    const post = async (path: string, body: object, key?: string) => {
      const answer = await fetch(`${api}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body: JSON.stringify(body),
      });
      return { status: answer.status, body: (await answer.json()) as Record<string, any> };
    };
    const signup = await post("/signup", { email: "logs@example.test", first_name: "Logs", password: "correct-horse", require_end_user_id: false });
    expect(signup.status).toBe(201);
    const agent = await post("/agents", { name: "Logged" }, signup.body.api_key);
    const run = await post("/runs", { teammate_id: agent.body.id, message: "::words 3", stream: false }, signup.body.api_key);
    expect(run.status).toBe(200);
    const passEnded = () =>
      stderr()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((entry) => entry.msg === "run pass ended" && entry.runId === run.body.id);
    await expect.poll(passEnded, { timeout: 20_000 }).toBeDefined();
    expect(passEnded()).toMatchObject({ level: 30, runId: run.body.id, accountId: expect.any(Number), requestId: expect.stringMatching(/^req_/) });

    if (dataDir) {
      // A second process on the running one's PGlite directory would corrupt it: it is turned away, and says why.
      await expect(startStandalone(["--port", "0", "--data-dir", dataDir])).rejects.toThrow(
        new RegExp(`^platform exited with 1: the data directory ${dataDir} is in use by a running Inlay \\(pid ${child.pid}\\); stop it`),
      );
    }

    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    // The lock goes with the process that held it.
    if (dataDir) expect(existsSync(path.join(dataDir, "inlay.pid"))).toBe(false);
    // A process that loads the platform with tsx and migrates a fresh database: past 30 s on a busy machine.
  }, 90_000);

  it("refuses a port that is not a number", async () => {
    await expect(startStandalone(["--port", "eighty"])).rejects.toThrow(/--port must be a number/);
  });

  it("names an unknown option with the usage instead of a stack trace", async () => {
    await expect(startStandalone(["--prot", "80"])).rejects.toThrow(/Unknown option '--prot'[\s\S]*usage: npm run platform/);
  });

  it("refuses an unknown role, and web or worker roles on PGlite (one process owns it)", async () => {
    await expect(startStandalone(["--role", "janitor"])).rejects.toThrow(/--role must be one of web, worker, all/);
    await expect(startStandalone(["--role", "worker"], { DATABASE_URL: "" })).rejects.toThrow(/--role worker needs DATABASE_URL/);
    // Two processes started through tsx, one after the other: past 30 s on a busy machine.
  }, 90_000);

  it("refuses --data-dir together with DATABASE_URL instead of picking one", async () => {
    await expect(
      startStandalone(["--data-dir", path.join(tmpdir(), "inlay-unused"), "--port", "0"], { DATABASE_URL: "postgres://postgres@127.0.0.1:5432/postgres" }),
    ).rejects.toThrow(/--data-dir \(PGlite\) and DATABASE_URL \(PostgreSQL\) name two databases/);
  });

});
