// A run survives `kill -9` of the process executing it: `npm run platform` as a real child process on
// PostgreSQL, killed mid-run; the next process re-claims the run and completes it from its checkpoint.
// Short leases through the environment keep it quick.
import type { ChildProcess } from "node:child_process";
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEmptyPostgresDatabase } from "../../helpers/database";
import { readFrames, textOf } from "../../helpers/sse";
import { standaloneProcesses } from "../../helpers/standalone";

const { startStandalone, stopAll } = standaloneProcesses();
let database: Awaited<ReturnType<typeof createEmptyPostgresDatabase>>;
beforeAll(async () => {
  database = await createEmptyPostgresDatabase();
});
afterAll(async () => {
  stopAll();
  await database.drop();
});

async function startProcess(): Promise<{ child: ChildProcess; baseUrl: string }> {
  const { child, first } = await startStandalone(["--port", "0"], {
    DATABASE_URL: database.url,
    RUN_LEASE_MS: "1500",
    RUN_SWEEP_GRACE_MS: "200",
    RUN_SWEEP_EVERY_MS: "200",
  });
  return { child, baseUrl: first.replace(/^listening on /, "") };
}

async function call(baseUrl: string, path: string, key: string | null, body?: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe("a run whose process is killed", () => {
  it("is re-claimed by the next process and completes, its log without repeats", async () => {
    const first = await startProcess();
    const signup = await call(first.baseUrl, "/signup", null, {
      email: `crash-${Date.now()}@example.test`,
      first_name: "Crash",
      password: "correct-horse",
      require_end_user_id: false,
    });
    expect(signup.status).toBe(201);
    const key: string = signup.body.api_key;
    const agent = await call(first.baseUrl, "/agents", key, { name: "Survivor" });
    const message = '::tool calculator {"expression":"6*7"}\n::delay 40\n::words 80';
    const created = await call(first.baseUrl, "/runs", key, { teammate_id: agent.body.id, message, stream: false, permission_mode: "autonomous" });
    expect(created.status).toBe(200);
    const runId: number = created.body.id;

    // Kill it in the middle of the answer, after the tool step.
    const seen = await readFrames(await fetch(`${first.baseUrl}/runs/${runId}/events`, { headers: { authorization: `Bearer ${key}` } }), {
      until: (frame) => frame.data.type === "content_block_delta" && frame.data.delta.text.startsWith("kilo"),
    });
    expect(seen.some((frame) => frame.data.type === "tool_result")).toBe(true);
    const exited = new Promise((resolve) => first.child.once("exit", resolve));
    first.child.kill("SIGKILL");
    await exited;
    expect((await fetch(`${first.baseUrl}/openapi.json`).catch(() => null))?.status).toBeUndefined();

    const second = await startProcess();
    let run: any;
    for (let tries = 0; tries < 100; tries++) {
      run = (await call(second.baseUrl, `/runs/${runId}`, key)).body;
      if (run.status !== "running") break;
      await delay(200);
    }
    expect(run).toMatchObject({ status: "completed", turns_used: 2 });
    expect(run.output).toMatch(/^Tool calculator returned \{"result":42\}\nalpha bravo .* papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu alpha bravo$/);
    expect(run.metadata).toBeNull();

    const log = await readFrames(await fetch(`${second.baseUrl}/runs/${runId}/events`, { headers: { authorization: `Bearer ${key}` } }), {
      until: (frame) => frame.data.type === "done",
    });
    expect(log.filter((frame) => frame.data.type === "tool_use")).toHaveLength(1);
    expect(log.filter((frame) => frame.data.type === "tool_result")).toHaveLength(1);
    expect(log.filter((frame) => frame.data.resumed)).toEqual([
      expect.objectContaining({ data: { type: "run_status", status: "running", resumed: true, attempt: 1, discard_after: expect.any(String) } }),
    ]);
    expect(textOf(log)).toBe(run.output);
    expect(log.at(-1)!.data).toMatchObject({ type: "done", completion_state: "completed" });
  });
});
