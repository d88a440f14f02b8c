// The client's retry and resumption rules against a real platform, with faults injected by a fetch
// wrapper in front of it: a 429 with Retry-After, a 500 on a plain POST, a connection dropped after the
// server got a run-creating POST, and a run's stream cut in the middle.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConnectionError,
  IdempotentReplayTerminalError,
  InternalServerError,
  RateLimitError,
  createPlatformClient,
  type PlatformClient,
  type RunFrame,
} from "@inlay/core/platform-client";
import { connectionFailure, cutAfterFrames, envelope, faultyFetch } from "../../helpers/faults";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { pollUntil } from "../../helpers/poll";
import { readFrames } from "../../helpers/sse";

let platform: PlatformHarness;
let account: Account;
let agentId: number;
const USER = "resilient";

beforeAll(async () => {
  platform = await startPlatform();
  account = await platform.signup();
  const client = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: account.key }).forUser(USER);
  agentId = (await client.agents.create({ name: "Sturdy", default_permission_mode: "autonomous" })).id;
});
afterAll(async () => {
  // Let runs still executing (cut or aborted streams leave them going) end before the database closes.
  await pollUntil(
    () => platform.database.prisma.platformRun.count({ where: { accountId: account.id, status: "running" } }),
    (running) => running === 0,
    "the runs to end",
  );
  await platform.close();
});

const clientWith = (fetch: typeof globalThis.fetch, options: { maxRetries?: number } = {}): PlatformClient =>
  createPlatformClient({ baseUrl: platform.baseUrl, apiKey: account.key, fetch, ...options }).forUser(USER);

const runsOfAccount = () => platform.database.prisma.platformRun.count({ where: { accountId: account.id } });

/** The run's whole event log, read directly over HTTP (not through the client). */
async function eventLog(runId: number) {
  const response = await platform.request(`/runs/${runId}/events?user_id=${USER}`, {
    headers: { authorization: `Bearer ${account.key}` },
  });
  return readFrames(response);
}

describe("retries", () => {
  it("retries a GET after a 429, waiting as long as Retry-After says", async () => {
    const faulty = faultyFetch(async (request, real, _call, index) =>
      index === 0 ? envelope(429, "rate_limit_error", "slow down", { "retry-after": "2" }) : real(),
    );
    const agents = await clientWith(faulty.fetch).agents.list();
    expect(agents.data.map((agent) => agent.id)).toContain(agentId);
    expect(faulty.calls).toHaveLength(2);
    const waited = faulty.calls[1]!.at - faulty.calls[0]!.at;
    expect(waited).toBeGreaterThanOrEqual(1_950);
    // Backoff alone would have waited at most 500 ms; Retry-After was honoured, not added to.
    expect(waited).toBeLessThan(3_000);
  });

  it("reports the 429 as a RateLimitError with retryAfter once the retries are spent", async () => {
    const faulty = faultyFetch(async () => envelope(429, "rate_limit_error", "slow down", { "retry-after": "0" }));
    const error = await clientWith(faulty.fetch, { maxRetries: 1 }).agents.get(agentId).catch((caught) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, retryAfter: 0, requestId: "req_injected" });
    expect(faulty.calls).toHaveLength(2);
  });

  it("never retries a plain POST after a 500", async () => {
    const faulty = faultyFetch(async () => envelope(500, "api_error", "boom"));
    const error = await clientWith(faulty.fetch).agents.create({ name: "Once" }).catch((caught) => caught);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(faulty.calls).toHaveLength(1);
    // …nor a plain POST whose connection dropped: it may have happened.
    const dropped = faultyFetch(async (_request, real) => {
      await real();
      throw connectionFailure();
    });
    const lost = await clientWith(dropped.fetch).memories.create({ content: "once" }).catch((caught) => caught);
    expect(lost).toBeInstanceOf(ConnectionError);
    expect(dropped.calls).toHaveLength(1);
  });

  it("retries a GET after a 500 and a dropped connection", async () => {
    const faulty = faultyFetch(async (_request, real, _call, index) => {
      if (index === 0) return envelope(503, "api_error", "busy");
      if (index === 1) throw connectionFailure();
      return real();
    });
    expect((await clientWith(faulty.fetch).agents.get(agentId)).id).toBe(agentId);
    expect(faulty.calls).toHaveLength(3);
  });

  it("retries runs.create after the connection dropped once the server had the request: one run", async () => {
    const before = await runsOfAccount();
    const faulty = faultyFetch(async (_request, real, _call, index) => {
      const response = await real();
      if (index === 0) {
        await response.body?.cancel();
        throw connectionFailure();
      }
      return response;
    });
    const run = await clientWith(faulty.fetch).runs.create({ teammate_id: agentId, message: "exactly once", stream: false });
    expect(faulty.calls).toHaveLength(2);
    const [first, second] = faulty.calls;
    expect(first!.headers.get("idempotency-key")).toMatch(/^[0-9a-f-]{36}$/);
    expect(second!.headers.get("idempotency-key")).toBe(first!.headers.get("idempotency-key"));
    expect(await runsOfAccount()).toBe(before + 1);
    expect(run.idempotentReplay).toMatch(/^idempotent_replay/);
    // Client-side only: not part of the run as JSON.
    expect(Object.keys(run)).not.toContain("idempotentReplay");
  });

  it("does the same for a streaming runs.create: one run, and every frame once, from the log", async () => {
    const before = await runsOfAccount();
    const faulty = faultyFetch(async (_request, real, _call, index) => {
      const response = await real();
      if (index === 0) {
        await response.body?.cancel();
        throw connectionFailure();
      }
      return response;
    });
    const stream = await clientWith(faulty.fetch).runs.create({ teammate_id: agentId, message: "::words 12" });
    const frames = await stream.toArray();
    expect(await runsOfAccount()).toBe(before + 1);
    expect(frames).toEqual((await eventLog(stream.runId!)).map((frame) => frame.data));
    expect(faulty.calls.map((call) => `${call.method} ${call.url.pathname}`)).toEqual([
      "POST /api/v2/runs",
      "POST /api/v2/runs",
      `GET /api/v2/runs/${stream.runId}/events`,
    ]);
  });

  it("reports a reused key of a finished streaming run as idempotent_replay_terminal", async () => {
    const client = clientWith(fetch);
    const key = `reuse-${Date.now()}`;
    const first = await client.runs.create({ teammate_id: agentId, message: "finish me" }, { idempotencyKey: key });
    await first.toArray();
    const error = await client.runs
      .create({ teammate_id: agentId, message: "finish me" }, { idempotencyKey: key })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(IdempotentReplayTerminalError);
    expect(error).toMatchObject({ errorCode: "idempotent_replay_terminal", runId: first.runId });
    expect(error.run.status).toBe("completed");

    const replay = await client.runs.create(
      { teammate_id: agentId, message: "finish me", stream: false },
      { idempotencyKey: `${key}-json` },
    );
    await client.runs.events(replay.id).toArray();
    const again = await client.runs.create(
      { teammate_id: agentId, message: "finish me", stream: false },
      { idempotencyKey: `${key}-json` },
    );
    expect(again.id).toBe(replay.id);
    expect(again.idempotentReplay).toBe("idempotent_replay_terminal");
  });
});

describe("streams", () => {
  it("resumes a stream cut in the middle through the event log, without loss or duplicates", async () => {
    const faulty = faultyFetch(async (request, real, _call, index) => {
      const response = await real();
      // The POST's own stream and the first reconnect are both cut.
      return index <= 1 ? cutAfterFrames(response, index === 0 ? 8 : 5) : response;
    });
    const stream = await clientWith(faulty.fetch).runs.create({ teammate_id: agentId, message: "::words 40\n::delay 20" });
    const frames: RunFrame[] = [];
    for await (const frame of stream) frames.push(frame);

    expect(stream.reconnects).toBe(2);
    const log = (await eventLog(stream.runId!)).map((frame) => frame.data);
    expect(frames).toEqual(log);
    expect(frames.filter((frame) => frame.type === "content_block_delta")).toHaveLength(40);
    const reconnects = faulty.calls.slice(1);
    expect(reconnects.map((call) => call.url.pathname)).toEqual([
      `/api/v2/runs/${stream.runId}/events`,
      `/api/v2/runs/${stream.runId}/events`,
    ]);
    expect(reconnects.map((call) => call.headers.get("last-event-id"))).toEqual([
      (await eventLog(stream.runId!))[7]!.id,
      (await eventLog(stream.runId!))[12]!.id,
    ]);
  });

  it("resumes runs.events the same way, from a given lastEventId", async () => {
    const run = await clientWith(fetch).runs.create({ teammate_id: agentId, message: "::words 20\n::delay 10", stream: false });
    const faulty = faultyFetch(async (_request, real, _call, index) => {
      const response = await real();
      return index === 0 ? cutAfterFrames(response, 4) : response;
    });
    const log = await clientWith(fetch).runs.events(run.id).toArray();
    const rawLog = await eventLog(run.id);
    const frames = await clientWith(faulty.fetch).runs.events(run.id, { lastEventId: rawLog[2]!.id }).toArray();
    expect(frames).toEqual(log.slice(3));
    expect(faulty.calls[0]!.headers.get("last-event-id")).toBe(rawLog[2]!.id);
  });

  it("abort() ends the iteration quietly and leaves the run running", async () => {
    const client = clientWith(fetch);
    const stream = await client.runs.create({ teammate_id: agentId, message: "::words 30\n::delay 30" });
    const frames: RunFrame[] = [];
    for await (const frame of stream) {
      frames.push(frame);
      if (frames.length === 3) stream.abort();
    }
    expect(frames).toHaveLength(3);
    expect((await client.runs.get(stream.runId!)).status).toBe("running");
    await client.runs.cancel(stream.runId!);
  });

  it("gives up with a ConnectionError when every reconnect fails", async () => {
    const faulty = faultyFetch(async (_request, real, _call, index) => {
      if (index === 0) return cutAfterFrames(await real(), 2);
      throw connectionFailure();
    });
    const stream = await clientWith(faulty.fetch, { maxRetries: 1 }).runs.create({
      teammate_id: agentId,
      message: "::words 10\n::delay 20",
    });
    const error = await stream.toArray().catch((caught) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    await clientWith(fetch).runs.cancel(stream.runId!).catch(() => {});
  });
});
