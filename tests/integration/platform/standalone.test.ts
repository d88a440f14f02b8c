// `npm run platform` as a user runs it: a real process, real HTTP.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it } from "vitest";
import { createEmptyPostgresDatabase, testDatabaseKind } from "../../helpers/database";

const children: ChildProcess[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(cleanups.map((cleanup) => cleanup()));
});

async function startStandalone(args: string[], extraEnv: Record<string, string> = {}) {
  const child = spawn(process.execPath, ["--import", "tsx", "server/platform/standalone.ts", ...args], {
    // eslint-disable-next-line no-restricted-properties -- the child inherits the test's environment
    env: { ...process.env, NODE_ENV: "development", LOG_LEVEL: "warn", ...extraEnv },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`platform exited with ${code}: ${stderr}`)));
  });
  return { child, first };
}

describe("npm run platform", () => {
  it("prints one listening line and serves /api/v2 on a fresh database", async () => {
    const port = 4100 + Math.floor(Math.random() * 800);
    let args = ["--port", String(port)];
    let extraEnv: Record<string, string> = {};
    if (testDatabaseKind === "postgres") {
      const empty = await createEmptyPostgresDatabase();
      cleanups.push(empty.drop);
      extraEnv = { DATABASE_URL: empty.url };
    } else {
      args = [...args, "--data-dir", path.join(await mkdtemp(path.join(tmpdir(), "inlay-platform-")), "db")];
    }
    const { child, first } = await startStandalone(args, extraEnv);
    expect(first).toBe(`listening on http://127.0.0.1:${port}/api/v2`);

    const openapi = await fetch(`http://127.0.0.1:${port}/api/v2/openapi.json`);
    expect(openapi.status).toBe(200);
    expect(((await openapi.json()) as { openapi: string }).openapi).toBe("3.1.0");

    const missing = await fetch(`http://127.0.0.1:${port}/api/v2/nope`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { type: string } }).error.type).toBe("not_found");

    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("refuses a port that is not a number", async () => {
    await expect(startStandalone(["--port", "eighty"])).rejects.toThrow(/--port must be a number/);
  });
});
