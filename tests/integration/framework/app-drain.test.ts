// The app's drain on SIGTERM (server/framework/lifecycle.ts), in a real process: streams end, requests
// in flight finish, idle keep-alive connections close, nothing new is accepted, the closers run and
// the process exits 0; a request that never ends is cut at INLAY_DRAIN_TIMEOUT_MS.
import { spawn } from "node:child_process";
import http from "node:http";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";

async function start(env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ["--import", "tsx", "tests/integration/framework/fixtures/drain-server.ts"], {
    // eslint-disable-next-line no-restricted-properties -- the child inherits the test's environment
    env: { ...process.env, NODE_ENV: "development", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const reader = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    reader.on("line", (line) => {
      lines.push(line);
      if (line.startsWith("port ")) resolve(Number(line.slice(5)));
    });
    child.once("exit", (code) => reject(new Error(`exited with ${code}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, port, lines, exited };
}

const agent = new http.Agent({ keepAlive: true });

function get(port: number, path: string, onData?: (text: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path, agent }, (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          body += chunk;
          onData?.(body);
        });
        response.on("end", () => resolve(body));
        response.on("error", reject);
      })
      .on("error", reject);
  });
}

describe("the app's drain (SIGTERM)", () => {
  it("ends streams, lets requests in flight finish, closes idle connections, runs its closers and exits 0", async () => {
    const app = await start({ INLAY_DRAIN_TIMEOUT_MS: "10000" });
    // A keep-alive connection left idle in the agent's pool, as a balancer's would be.
    expect(await get(app.port, "/")).toBe("ok");
    let streaming!: () => void;
    const streamStarted = new Promise<void>((resolve) => (streaming = resolve));
    const stream = get(app.port, "/stream", () => streaming());
    await streamStarted;
    const slow = get(app.port, "/slow");
    await new Promise((resolve) => setTimeout(resolve, 50));
    app.child.kill("SIGTERM");
    expect(await stream).toMatch(/^start \.* interrupted$/);
    expect(await slow).toBe("slow done");
    expect(await app.exited).toBe(0);
    expect(app.lines).toEqual(expect.arrayContaining(["drain 10000", "closed"]));
    expect(app.lines.indexOf("drain 10000")).toBeLessThan(app.lines.indexOf("closed"));
    // Nothing listens any more.
    await expect(get(app.port, "/")).rejects.toThrow();
  });

  it("cuts a request that outlives INLAY_DRAIN_TIMEOUT_MS, then exits", async () => {
    const app = await start({ INLAY_DRAIN_TIMEOUT_MS: "300" });
    const hanging = get(app.port, "/hang").catch((error: Error) => error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    app.child.kill("SIGTERM");
    expect(await hanging).toBeInstanceOf(Error);
    expect(await app.exited).toBe(0);
    expect(app.lines).toContain("closed");
  });
});
