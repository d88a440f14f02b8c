// A response sent before the request's body was read (413, or 401/404/405/415 with a body) must leave
// the keep-alive connection usable or close it cleanly: the next request on that connection is either
// answered or never executed, so a client that retries it does not pay twice.
import http from "node:http";
import { Readable } from "node:stream";
import { Agent, fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let account: Account;
let agentId: number;

beforeAll(async () => {
  platform = await startPlatform();
  account = await platform.signup();
  agentId = (await platform.call("/agents", { key: account.key, body: { name: "Kept", user_id: "u1" } })).body.id;
});
afterAll(() => platform.close());

const KB = 1024;
const MB = 1024 * KB;

interface Rejection {
  name: string;
  status: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Body size in bytes. */
  size: number;
  /** Sent in chunks over this many milliseconds, without a content-length. */
  dribbleMs?: number;
}

const json = { "content-type": "application/json" };
const rejections: Rejection[] = [
  { name: "413, a 1 MB body", status: 413, method: "POST", path: "/agents", headers: json, size: MB },
  { name: "413, a 80 MB body", status: 413, method: "POST", path: "/agents", headers: json, size: 80 * MB },
  { name: "401, a 200 KB body", status: 401, method: "POST", path: "/agents", headers: { ...json, authorization: "Bearer nope" }, size: 200 * KB },
  { name: "404, a 200 KB body", status: 404, method: "POST", path: "/no-such-thing", headers: json, size: 200 * KB },
  { name: "405, a 200 KB body", status: 405, method: "PUT", path: "/agents", headers: json, size: 200 * KB },
  {
    name: "415, a 200 KB body",
    status: 415,
    method: "POST",
    path: "/agents",
    headers: { "content-type": "text/plain", authorization: "Bearer KEY" },
    size: 200 * KB,
  },
  // No content-length: the limit counts the body as it is read.
  { name: "413, a 400 KB body dribbled without a length", status: 413, method: "POST", path: "/agents", headers: json, size: 400 * KB, dribbleMs: 400 },
  {
    name: "401, a body dribbled over 1.5 s",
    status: 401,
    method: "POST",
    path: "/agents",
    headers: { ...json, authorization: "Bearer nope" },
    size: 150 * KB,
    dribbleMs: 1500,
  },
];

/** `size` bytes of a JSON string, whole or dribbled in 10 KB chunks. */
function bodyOf(rejection: Rejection): Buffer | Readable {
  const whole = Buffer.from(`"${"x".repeat(rejection.size - 2)}"`);
  if (!rejection.dribbleMs) return whole;
  const chunks: Buffer[] = [];
  for (let at = 0; at < whole.length; at += 10 * KB) chunks.push(whole.subarray(at, at + 10 * KB));
  const pause = rejection.dribbleMs / chunks.length;
  return Readable.from(
    (async function* () {
      for (const chunk of chunks) {
        yield chunk;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    })(),
  );
}

/** The rejection's headers, with the account's key for "Bearer KEY". */
const headersOf = (rejection: Rejection) =>
  Object.fromEntries(
    Object.entries(rejection.headers).map(([name, value]) => [name, value.replace("Bearer KEY", `Bearer ${account.key}`)]),
  );

async function runCount(): Promise<number> {
  const { body } = await platform.call("/runs", { key: account.key, query: { user_id: "u1", limit: 100 } });
  return body.data.length;
}

const runBody = () => JSON.stringify({ teammate_id: agentId, message: "after a rejection", stream: false, permission_mode: "autonomous" });
const runHeaders = () => ({ ...json, authorization: `Bearer ${account.key}` });

describe("after an early rejection, with Node's fetch (undici) on one keep-alive connection", () => {
  it.each(rejections)("$name: the next POST /runs is answered, and runs once", async (rejection) => {
    const dispatcher = new Agent({ connections: 1, pipelining: 1 });
    try {
      const before = await runCount();
      // Whether the body still being sent when the answer comes is an error is the client's business;
      // the rejection's status is all that matters here.
      const rejected = await undiciFetch(`${platform.baseUrl}${rejection.path}`, {
        method: rejection.method,
        headers: headersOf(rejection),
        body: bodyOf(rejection),
        duplex: "half",
        dispatcher,
      });
      expect(rejected.status).toBe(rejection.status);
      expect((await rejected.json()) as object).toMatchObject({ error: { code: rejection.status } });

      const run = await undiciFetch(`${platform.baseUrl}/runs?user_id=u1`, {
        method: "POST",
        headers: runHeaders(),
        body: runBody(),
        dispatcher,
      });
      expect(run.status).toBe(200);
      await run.json();
      expect(await runCount()).toBe(before + 1);
    } finally {
      await dispatcher.close();
    }
  });
});

/** One request on `agent`, resolving with the status and body, or the socket error. */
function send(agent: http.Agent, rejection: Pick<Rejection, "method" | "path" | "headers"> & { body: Buffer | Readable }) {
  return new Promise<{ status: number; body: string } | { error: string }>((resolve) => {
    const request = http.request(`${platform.baseUrl}${rejection.path}`, {
      agent,
      method: rejection.method,
      headers: rejection.headers,
    });
    request.on("response", (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      response.on("error", (error) => resolve({ error: error.message }));
    });
    request.on("error", (error) => resolve({ error: error.message }));
    if (Buffer.isBuffer(rejection.body)) request.end(rejection.body);
    else rejection.body.pipe(request);
  });
}

describe("after an early rejection, with a keep-alive node:http agent", () => {
  it.each(rejections)("$name: the next POST /runs is answered, and runs once", async (rejection) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const before = await runCount();
      const rejected = await send(agent, { ...rejection, headers: headersOf(rejection), body: bodyOf(rejection) });
      // node:http reports an error when the server answers and closes before the body is sent; then
      // nothing of it ran, which is all the sequence needs.
      if ("status" in rejected) expect(rejected.status).toBe(rejection.status);

      // Queued right behind the rejection on the one socket, as a client under load would.
      const run = await send(agent, { method: "POST", path: "/runs?user_id=u1", headers: runHeaders(), body: Buffer.from(runBody()) });
      expect(run).toMatchObject({ status: 200 });
      expect(await runCount()).toBe(before + 1);
    } finally {
      agent.destroy();
    }
  });

  it("two requests queued behind a 413 on one socket are both answered, each run once", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const before = await runCount();
      const oversized = Buffer.from(`"${"x".repeat(MB)}"`);
      const results = await Promise.all([
        send(agent, { method: "POST", path: "/agents", headers: json, body: oversized }),
        send(agent, { method: "POST", path: "/runs?user_id=u1", headers: runHeaders(), body: Buffer.from(runBody()) }),
        send(agent, { method: "POST", path: "/runs?user_id=u1", headers: runHeaders(), body: Buffer.from(runBody()) }),
      ]);
      expect(results.slice(1)).toMatchObject([{ status: 200 }, { status: 200 }]);
      expect(await runCount()).toBe(before + 2);
    } finally {
      agent.destroy();
    }
  });
});
