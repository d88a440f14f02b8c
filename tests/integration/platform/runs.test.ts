import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { logger } from "@/lib/logger";
import { openStreams } from "@/server/platform/observability/metrics";
import { createPlatformClient } from "@inlay/core/platform-client";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { readFrames, textOf } from "../../helpers/sse";

let platform: PlatformHarness;
let account: Account;
let other: Account;
let agentId: number;

beforeAll(async () => {
  platform = await startPlatform();
  account = await platform.signup();
  other = await platform.signup();
  agentId = (await platform.call("/agents", { key: account.key, body: { name: "Runner", user_id: "u1" } })).body.id;
});
afterAll(() => platform.close());

const startRun = (body: Record<string, unknown>, key = account.key) =>
  platform.request("/runs?user_id=u1", {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ teammate_id: agentId, ...body }),
  });

async function waitForStatus(runId: number, statuses: string[], key = account.key) {
  return platform.waitForRun(key, runId, statuses, { user_id: "u1" });
}

describe("POST /runs", () => {
  it("streams the sim's echo as SSE frames with monotonic ids, ending with done", async () => {
    const response = await startRun({ message: "hello there", permission_mode: "autonomous" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
    const frames = await readFrames(response, { until: (frame) => frame.data.type === "done" });
    expect(textOf(frames)).toBe("Echo: hello there");
    expect(frames.filter((frame) => frame.data.type === "content_block_delta").length).toBeGreaterThan(1);
    const ids = frames.map((frame) => Number(frame.id));
    expect(ids.every((id, index) => index === 0 || id > ids[index - 1]!)).toBe(true);
    expect(frames.at(-1)!.data).toMatchObject({ type: "done", completion_state: "completed" });
  });

  it("answers stream=false with the run in status running, and the run completes", async () => {
    const response = await startRun({ message: "poll me", stream: false, permission_mode: "autonomous" });
    expect(response.status).toBe(200);
    const run = (await response.json()) as { id: number; status: string; output: unknown; teammate_id: number; user_id: string };
    expect(run).toMatchObject({ status: "running", output: null, teammate_id: agentId, user_id: "u1" });
    const done = await waitForStatus(run.id, ["completed", "failed"]);
    expect(done).toMatchObject({ status: "completed", output: "Echo: poll me" });
    expect(done.usage.input_tokens).toBeGreaterThan(0);
  });

  it("rejects human_in_the_loop=false outside autonomous mode", async () => {
    const response = await startRun({ message: "x", permission_mode: "approval", human_in_the_loop: false });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
  });

  it("answers 404 for another account's agent and 422 for an unknown skill", async () => {
    expect((await startRun({ message: "x" }, other.key)).status).toBe(404);
    const skill = await startRun({ message: "x", skill: "nope" });
    expect(skill.status).toBe(422);
  });

  it("creates the agent a request names by name, deciding the run from its defaults, and none when the request is refused", async () => {
    const agents = async () => (await platform.call("/agents", { key: account.key, query: { user_id: "u1", limit: 100 } })).body.data.length;
    const before = await agents();
    const errorOf = async (response: Response) => ({ status: response.status, ...((await response.json()) as { error: { type: string; message: string } }).error });
    // A new agent's default mode is approval, so human_in_the_loop false is refused, as is a model nobody has.
    expect(await errorOf(await startRun({ teammate_id: undefined, name: "Never", message: "x", human_in_the_loop: false }))).toMatchObject({
      status: 400,
      type: "invalid_request_error",
      message: "human_in_the_loop: false is only valid with permission_mode autonomous",
    });
    expect(await errorOf(await startRun({ teammate_id: undefined, name: "Never", message: "x", model: "no-such-model" }))).toMatchObject({
      type: "validation_error",
      message: 'model: unknown model "no-such-model"; see GET /models',
    });
    expect(await agents()).toBe(before);

    const response = await startRun({ teammate_id: undefined, name: "Inline", instructions: "Be brief.", message: "hi", stream: false });
    expect(response.status).toBe(200);
    const run = (await response.json()) as { teammate_id: number };
    expect(run).toMatchObject({ permission_mode: "approval", human_in_the_loop: true, user_id: "u1" });
    expect(await agents()).toBe(before + 1);
    const agent = await platform.call(`/agents/${run.teammate_id}`, { key: account.key, query: { user_id: "u1" } });
    expect(agent.body).toMatchObject({ name: "Inline", instructions: "Be brief.", default_permission_mode: "approval", user_id: "u1" });
  });
});

describe("GET /runs/{run_id}/events", () => {
  it("replays from Last-Event-ID exactly the frames after it", async () => {
    const response = await startRun({ message: "::words 30", permission_mode: "autonomous" });
    const all = await readFrames(response, { until: (frame) => frame.data.type === "done" });
    const runId = (await platform.database.prisma.platformRun.findFirstOrThrow({ orderBy: { id: "desc" } })).id;
    const cut = all[10]!;
    const resumed = await platform.request(`/runs/${runId}/events?user_id=u1`, {
      headers: { authorization: `Bearer ${account.key}`, "last-event-id": cut.id! },
    });
    const rest = await readFrames(resumed, { until: (frame) => frame.data.type === "done" });
    expect(rest.map((frame) => frame.id)).toEqual(all.slice(11).map((frame) => frame.id));
  });
});

describe("a client that leaves mid-stream", () => {
  it("stops the stream's following at once, quietly, and the run goes on for a client that resumes", async () => {
    const failures = vi.spyOn(logger, "error");
    try {
      const open = async () => (await openStreams.get()).values[0]?.value ?? 0;
      const before = await open();
      const response = await startRun({ message: "::delay 30\n::words 40", permission_mode: "autonomous" });
      expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
      expect(response.headers.get("cache-control")).toBe("no-cache");
      const runId = Number(response.headers.get("x-run-id"));
      // A few words in, the client goes away (readFrames cancels the body when it stops).
      const seen = await readFrames(response, { until: (frame) => frame.data.type === "content_block_delta" && frame.data.delta.text.length > 0, limit: 5 });
      await vi.waitFor(async () => expect(await open()).toBe(before), { timeout: 5_000 });
      const run = await waitForStatus(runId, ["completed"]);
      expect(run.status).toBe("completed");
      expect(failures).not.toHaveBeenCalled();
      const resumed = await platform.request(`/runs/${runId}/events?user_id=u1`, {
        headers: { authorization: `Bearer ${account.key}`, "last-event-id": seen.at(-1)!.id! },
      });
      const rest = await readFrames(resumed, { until: (frame) => frame.data.type === "done" });
      expect(textOf([...seen, ...rest]).split(" ")).toHaveLength(40);
    } finally {
      failures.mockRestore();
    }
  });
});

describe("approvals and questions", () => {
  it("pauses a tool call in approval mode, resumes on allow", async () => {
    const response = await startRun({ message: '::tool calculator {"expression":"6*7"}', permission_mode: "approval", stream: false });
    const run = (await response.json()) as { id: number };
    const paused = await waitForStatus(run.id, ["awaiting_approval", "completed", "failed"]);
    expect(paused.status).toBe("awaiting_approval");
    const requests = await platform.call(`/runs/${run.id}/permissions`, { key: account.key, query: { user_id: "u1" } });
    const [request] = requests.body.data;
    expect(request).toMatchObject({ tool_name: "calculator", status: "pending", kind: "tool" });

    const approved = await platform.call(`/runs/${run.id}/approve`, {
      key: account.key,
      query: { user_id: "u1" },
      body: { request_id: request.request_id, decision: "allow" },
    });
    expect(approved.body).toMatchObject({ status: "allowed" });
    const done = await waitForStatus(run.id, ["completed", "failed"]);
    expect(done.status).toBe("completed");
    expect(done.output).toMatch(/^Tool calculator returned .*42/);
  });

  it("asks with ::ask and continues with the chosen option", async () => {
    const response = await startRun({ message: "::ask Which colour? | Red | Blue", permission_mode: "autonomous", stream: false });
    const run = (await response.json()) as { id: number };
    expect((await waitForStatus(run.id, ["awaiting_approval", "completed", "failed"])).status).toBe("awaiting_approval");
    const answered = await platform.call(`/runs/${run.id}/answer`, {
      key: account.key,
      query: { user_id: "u1" },
      body: { answers: { "Which colour?": "Blue" } },
    });
    expect(answered.status).toBe(200);
    const done = await waitForStatus(run.id, ["completed", "failed"]);
    expect(done.output).toBe("You chose Blue");
  });
});

describe("POST /runs/{run_id}/cancel", () => {
  it("cancels a running run, and a second cancel is 409", async () => {
    const response = await startRun({ message: "::delay 50\n::words 100", permission_mode: "autonomous", stream: false });
    const run = (await response.json()) as { id: number };
    const cancelled = await platform.call(`/runs/${run.id}/cancel`, { key: account.key, method: "POST", query: { user_id: "u1" } });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe("cancelled");
    const again = await platform.call(`/runs/${run.id}/cancel`, { key: account.key, method: "POST", query: { user_id: "u1" } });
    expect(again.status).toBe(409);
    expect(again.body.error.type).toBe("conflict_error");
    // The stream of a cancelled run ends with done.
    const events = await platform.request(`/runs/${run.id}/events?user_id=u1`, { headers: { authorization: `Bearer ${account.key}` } });
    const frames = await readFrames(events, { until: (frame) => frame.data.type === "done" });
    expect(frames.at(-1)!.data).toMatchObject({ type: "done", completion_state: "cancelled" });
  });

  it("is 404 for another account", async () => {
    const response = await startRun({ message: "mine", permission_mode: "autonomous", stream: false });
    const run = (await response.json()) as { id: number };
    expect((await platform.call(`/runs/${run.id}/cancel`, { key: other.key, method: "POST", query: { user_id: "u1" } })).status).toBe(404);
    expect((await platform.call(`/runs/${run.id}`, { key: other.key, query: { user_id: "u1" } })).status).toBe(404);
  });
});

describe("reconnecting after the end", () => {
  const events = (runId: number, headers: Record<string, string> = {}, query = "") =>
    platform.request(`/runs/${runId}/events?user_id=u1${query}`, { headers: { authorization: `Bearer ${account.key}`, ...headers } });

  async function finishedRun() {
    const response = await startRun({ message: "short", permission_mode: "autonomous" });
    const frames = await readFrames(response, { until: (frame) => frame.data.type === "done" });
    const runId = (await platform.database.prisma.platformRun.findFirstOrThrow({ orderBy: { id: "desc" } })).id;
    await waitForStatus(runId, ["completed"]);
    return { runId, frames };
  }

  it("answers 204 (an EventSource stops reconnecting) when the cursor is at or past the done frame", async () => {
    const { runId, frames } = await finishedRun();
    const last = frames.at(-1)!.id!;
    for (const cursor of [{ "last-event-id": last }, { "last-event-id": String(BigInt(last) + 1000n) }]) {
      const after = await events(runId, cursor);
      expect(after.status, JSON.stringify(cursor)).toBe(204);
      expect(await after.text()).toBe("");
    }
    const byQuery = await events(runId, {}, `&starting_after=${last}`);
    expect(byQuery.status).toBe(204);
  });

  it("still replays a finished run to a client that has not seen it all, with 200", async () => {
    const { runId, frames } = await finishedRun();
    const first = await events(runId);
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toContain("text/event-stream");
    const replayed = await readFrames(first, { until: (frame) => frame.data.type === "done" });
    expect(replayed.map((frame) => frame.id)).toEqual(frames.map((frame) => frame.id));
    const rest = await events(runId, { "last-event-id": frames.at(-2)!.id! });
    expect(rest.status).toBe(200);
    expect((await readFrames(rest, { until: (frame) => frame.data.type === "done" })).map((frame) => frame.id)).toEqual([frames.at(-1)!.id]);
  });

  it("reads a 204 as the end through the client, without reconnecting", async () => {
    const { runId, frames } = await finishedRun();
    const client = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: account.key }).forUser("u1");
    const stream = client.runs.events(runId, { lastEventId: frames.at(-1)!.id! });
    expect(await stream.toArray()).toEqual([]);
    expect(stream.reconnects).toBe(0);
  });
});
