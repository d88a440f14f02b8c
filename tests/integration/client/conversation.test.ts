// The client's newer run calls against a real platform: replies (streamed, JSON, cut and resumed,
// retried after a dropped connection), first sessions, attachments, the permission mode, and the
// money namespaces (usage and billing) checked against runs that completed.
import { pollUntil, waitForRun } from "../../helpers/poll";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConflictError,
  InternalServerError,
  createPlatformClient,
  type PlatformClient,
  type Run,
  type RunFrame,
} from "@inlay/core/platform-client";
import { connectionFailure, cutAfterFrames, envelope, faultyFetch } from "../../helpers/faults";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { readFrames } from "../../helpers/sse";

let platform: PlatformHarness;
let account: Account;
let agentId: number;
const USER = "talker";

beforeAll(async () => {
  platform = await startPlatform();
  account = await platform.signup();
  await platform.keepWebhookEvents(account.key, USER);
  agentId = (await clientWith(fetch).agents.create({ name: "Talker", default_permission_mode: "autonomous" })).id;
});
afterAll(async () => {
  await pollUntil(() => platform.database.prisma.platformRun.count({ where: { status: "running" } }), (running) => running === 0, "the runs to end");
  await platform.close();
});

function clientWith(fetch: typeof globalThis.fetch, key = account.key, user = USER): PlatformClient {
  return createPlatformClient({ baseUrl: platform.baseUrl, apiKey: key, fetch }).forUser(user);
}

async function settle(client: PlatformClient, runId: number, statuses: Run["status"][] = ["completed", "failed", "cancelled"]) {
  return waitForRun<Run>(client, runId, statuses);
}

/** The run's event log over plain HTTP (not through the client), from `after` to the next done. */
async function eventLog(runId: number, after?: string, key = account.key, user = USER) {
  const response = await platform.request(`/runs/${runId}/events?user_id=${user}`, {
    headers: { authorization: `Bearer ${key}`, ...(after !== undefined ? { "last-event-id": after } : {}) },
  });
  return readFrames(response);
}

/** A completed run and the id of its (first request's) done frame, where a reply's frames start after. */
async function finishedRun(client: PlatformClient, message = "first") {
  const run = await client.runs.create({ teammate_id: agentId, message, stream: false });
  await settle(client, run.id);
  const log = await eventLog(run.id);
  expect(log.at(-1)!.data).toMatchObject({ type: "done" });
  return { run, doneId: log.at(-1)!.id };
}

const textOf = (frames: RunFrame[]) =>
  frames.map((frame) => (frame.type === "content_block_delta" ? frame.delta.text : "")).join("");

const repliesOf = (runId: number) =>
  platform.database.prisma.platformWebhookEvent.count({ where: { runId, type: "run.message_received" } });

describe("runs.reply", () => {
  it("streams only the reply's frames, which are the log's frames after the first request's done", async () => {
    const client = clientWith(fetch);
    const { run, doneId } = await finishedRun(client);
    const stream = await client.runs.reply(run.id, { message: "again" });
    const frames = await stream.toArray();
    expect(stream.runId).toBe(run.id);
    expect(frames[0]).toEqual({ type: "run_status", status: "running", at: expect.any(String) });
    expect(frames.at(-1)).toMatchObject({ type: "done", completion_state: "completed" });
    expect(textOf(frames)).toBe("Echo: again");
    expect(frames).toEqual((await eventLog(run.id, doneId)).map((frame) => frame.data));
    const after = await client.runs.get(run.id);
    expect(after).toMatchObject({ id: run.id, status: "completed", interactive: false, output: "Echo: again" });
  });

  it("answers the run as JSON with stream: false, and is a ConflictError while the run is running", async () => {
    const client = clientWith(fetch);
    const { run } = await finishedRun(client);
    const replied = await client.runs.reply(run.id, { message: "::words 5\n::delay 40", stream: false });
    expect(replied).toMatchObject({ id: run.id, status: "running", interactive: false });
    expect(replied.idempotentReplay).toBeUndefined();
    const error = await client.runs.reply(run.id, { message: "too soon", stream: false }).catch((caught) => caught);
    expect(error).toBeInstanceOf(ConflictError);
    expect((await settle(client, run.id)).status).toBe("completed");
    // Scoped: another end-user's client cannot reply to it.
    const other = await clientWith(fetch, account.key, "someone-else").runs.reply(run.id, { message: "mine?", stream: false }).catch((caught) => caught);
    expect(other).toMatchObject({ status: 404 });
  });

  it("resumes a reply stream cut mid-way from the last frame seen, without loss or duplicates", async () => {
    const { run, doneId } = await finishedRun(clientWith(fetch));
    const faulty = faultyFetch(async (_request, real, _call, index) => {
      const response = await real();
      // The reply's own stream and the first reconnect are both cut.
      return index <= 1 ? cutAfterFrames(response, index === 0 ? 6 : 4) : response;
    });
    const stream = await clientWith(faulty.fetch).runs.reply(run.id, { message: "::words 30\n::delay 20" });
    const frames = await stream.toArray();
    expect(stream.reconnects).toBe(2);
    const log = await eventLog(run.id, doneId);
    expect(frames).toEqual(log.map((frame) => frame.data));
    expect(frames.filter((frame) => frame.type === "content_block_delta")).toHaveLength(30);
    expect(frames.filter((frame) => frame.type === "done")).toHaveLength(1);
    expect(faulty.calls.slice(1).map((call) => [call.url.pathname, call.headers.get("last-event-id")])).toEqual([
      [`/api/v2/runs/${run.id}/events`, log[5]!.id],
      [`/api/v2/runs/${run.id}/events`, log[9]!.id],
    ]);
  });

  it("resumes a reply stream cut before its first frame within the reply, not from the run's start", async () => {
    const client = clientWith(fetch);
    const { run } = await finishedRun(client);
    await client.runs.reply(run.id, { message: "second" }).then((stream) => stream.toArray());
    const secondDone = (await eventLog(run.id, (await eventLog(run.id)).at(-1)!.id)).at(-1)!.id;
    const faulty = faultyFetch(async (_request, real, _call, index) => {
      const response = await real();
      return index === 0 ? cutAfterFrames(response, 0) : response;
    });
    const stream = await clientWith(faulty.fetch).runs.reply(run.id, { message: "::words 8\n::delay 10" });
    const frames = await stream.toArray();
    expect(stream.reconnects).toBe(1);
    expect(textOf(frames)).not.toContain("first");
    expect(frames).toEqual((await eventLog(run.id, secondDone)).map((frame) => frame.data));
    expect(frames.filter((frame) => frame.type === "done")).toHaveLength(1);
  });

  it("retries a streaming reply whose connection dropped once the server had it: one reply, its frames once", async () => {
    const { run, doneId } = await finishedRun(clientWith(fetch));
    const faulty = faultyFetch(async (_request, real, _call, index) => {
      const response = await real();
      if (index === 0) {
        await response.body?.cancel();
        throw connectionFailure();
      }
      return response;
    });
    const stream = await clientWith(faulty.fetch).runs.reply(run.id, { message: "::words 6\n::delay 10" });
    const frames = await stream.toArray();
    const [first, second] = faulty.calls;
    expect(second!.method).toBe("POST");
    expect(second!.headers.get("idempotency-key")).toBe(first!.headers.get("idempotency-key"));
    expect(await repliesOf(run.id)).toBe(1);
    expect(frames).toEqual((await eventLog(run.id, doneId)).map((frame) => frame.data));
    expect(frames.filter((frame) => frame.type === "content_block_delta")).toHaveLength(6);
  });

  it("retries a JSON reply the same way: one reply, reported as a replay", async () => {
    const { run } = await finishedRun(clientWith(fetch));
    const faulty = faultyFetch(async (_request, real, _call, index) => {
      const response = await real();
      if (index === 0) {
        await response.body?.cancel();
        throw connectionFailure();
      }
      return response;
    });
    const replied = await clientWith(faulty.fetch).runs.reply(run.id, { message: "once only", stream: false });
    expect(faulty.calls).toHaveLength(2);
    expect(replied.idempotentReplay).toMatch(/^idempotent_replay/);
    expect(await repliesOf(run.id)).toBe(1);
    expect((await settle(clientWith(fetch), run.id)).output).toBe("Echo: once only");
  });
});

describe("runs.firstSession", () => {
  it("starts a run in which the agent introduces itself, streamed or as JSON", async () => {
    const client = clientWith(fetch);
    const stream = await client.runs.firstSession({ teammate_id: agentId });
    const frames = await stream.toArray();
    expect(textOf(frames)).toMatch(/^Echo: This is our first session\. Introduce yourself/);
    const run = await client.runs.firstSession({ teammate_id: agentId, stream: false });
    expect(run).toMatchObject({ teammate_id: agentId, user_id: USER, status: "running" });
    expect(run.id).not.toBe(stream.runId);
    expect((await settle(client, run.id)).output).toMatch(/^Echo: This is our first session\./);
  });
});

describe("attachments", () => {
  const notes = () => new File(["the secret word is plover\nsecond line"], "notes.txt", { type: "text/plain" });

  it("createWithFiles sends a text file the sim echoes, streamed", async () => {
    const stream = await clientWith(fetch).runs.createWithFiles({ teammate_id: agentId, message: "read this", files: [notes()] });
    const frames = await stream.toArray();
    expect(textOf(frames)).toBe("Echo: read this\nAttachment notes.txt (text/plain): the secret word is plover");
    const run = await clientWith(fetch).runs.get(stream.runId!);
    expect(run.user_id).toBe(USER);
  });

  it("retries createWithFiles after a dropped connection with the same form: one run", async () => {
    const runs = () => platform.database.prisma.platformRun.count({ where: { accountId: account.id } });
    const before = await runs();
    const faulty = faultyFetch(async (_request, real, _call, index) => {
      const response = await real();
      if (index === 0) {
        await response.body?.cancel();
        throw connectionFailure();
      }
      return response;
    });
    const blob = new Blob(["plain words\n"], { type: "text/plain" });
    const run = await clientWith(faulty.fetch).runs.createWithFiles({
      teammate_id: agentId,
      message: "a blob",
      files: [blob],
      stream: false,
    });
    expect(faulty.calls).toHaveLength(2);
    expect(run.idempotentReplay).toMatch(/^idempotent_replay/);
    expect(await runs()).toBe(before + 1);
    expect((await settle(clientWith(fetch), run.id)).output).toBe("Echo: a blob\nAttachment blob (text/plain): plain words");
  });

  it("replyWithFiles attaches files to a reply", async () => {
    const client = clientWith(fetch);
    const { run, doneId } = await finishedRun(client);
    const replied = await client.runs.replyWithFiles(run.id, { message: "and this", files: [notes()], stream: false });
    expect(replied).toMatchObject({ id: run.id, status: "running" });
    expect((await settle(client, run.id)).output).toBe("Echo: and this\nAttachment notes.txt (text/plain): the secret word is plover");
    const streamed = await client.runs.replyWithFiles(run.id, { message: "once more", files: [notes()] });
    const frames = await streamed.toArray();
    expect(textOf(frames)).toBe("Echo: once more\nAttachment notes.txt (text/plain): the secret word is plover");
    expect(frames[0]).toEqual({ type: "run_status", status: "running", at: expect.any(String) });
    expect((await eventLog(run.id, doneId)).at(-1)!.data).toMatchObject({ type: "done" });
  });
});

describe("runs.setPermissionMode", () => {
  it("switches a paused run to autonomous, which resumes it; 409 once the run is over", async () => {
    const client = clientWith(fetch);
    const run = await client.runs.create({
      teammate_id: agentId,
      message: '::tool calculator {"expression":"6*7"}',
      permission_mode: "approval",
      stream: false,
    });
    await settle(client, run.id, ["awaiting_approval"]);
    const changed = await client.runs.setPermissionMode(run.id, "autonomous");
    expect(changed).toMatchObject({ id: run.id, permission_mode: "autonomous" });
    expect((await settle(client, run.id)).output).toBe('Tool calculator returned {"result":42}');
    const error = await client.runs.setPermissionMode(run.id, "approval").catch((caught) => caught);
    expect(error).toBeInstanceOf(ConflictError);
  });

  it("is sent once, never retried (a PATCH)", async () => {
    const faulty = faultyFetch(async () => envelope(500, "api_error", "boom"));
    const error = await clientWith(faulty.fetch).runs.setPermissionMode(1, "autonomous").catch((caught) => caught);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(faulty.calls).toHaveLength(1);
    expect(faulty.calls[0]).toMatchObject({ method: "PATCH" });
    expect(faulty.calls[0]!.url.searchParams.get("user_id")).toBe(USER);
  });
});

describe("client.usage and client.billing", () => {
  it("agree with completed runs, and a forUser client sees its end-user's usage only", async () => {
    const own = await platform.signup();
    const account = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: own.key });
    const [ada, bob] = [account.forUser("ada"), account.forUser("bob")];
    const agentOf = async (client: PlatformClient) =>
      (await client.agents.create({ name: "Meter", default_permission_mode: "autonomous" })).id;
    const runFor = async (client: PlatformClient, message: string) => {
      const stream = await client.runs.create({ teammate_id: await agentOf(client), message });
      await stream.toArray();
      return settle(client, stream.runId!);
    };
    const adaRun = await runFor(ada, "::words 20");
    const bobRuns = [await runFor(bob, "::words 5"), await runFor(bob, "hello")];
    const all = [adaRun, ...bobRuns];
    const sum = (runs: Run[], field: "input_tokens" | "output_tokens") => runs.reduce((total, run) => total + run.usage[field], 0);
    const micros = (usd: string) => Math.round(Number(usd) * 1_000_000);

    // Settlement gives back each run's hold once it has ended.
    const balance = await pollUntil(() => account.billing.balance(), (now) => now.held_micros === 0, "the holds to be given back");
    const debits = balance.transactions.filter((entry) => entry.type === "debit");
    expect(debits.map((entry) => entry.run_id).sort()).toEqual(all.map((run) => run.id).sort());
    const charged = -debits.reduce((total, entry) => total + entry.amount_micros, 0);
    expect(charged).toBe(all.reduce((total, run) => total + micros(run.usage.cost_usd), 0));
    const topup = balance.transactions.find((entry) => entry.type === "topup")!;
    expect(balance).toMatchObject({ balance_micros: topup.amount_micros - charged, held_micros: 0, currency: "usd" });
    expect(balance.available_micros).toBe(balance.balance_micros);

    // GET /usage is the account's, whichever client asks.
    const usage = await ada.usage.get();
    expect(usage).toMatchObject({
      runs_used: 3,
      input_tokens: sum(all, "input_tokens"),
      output_tokens: sum(all, "output_tokens"),
      cost_used_micros: charged,
      balance_micros: balance.balance_micros,
      concurrent_runs: 0,
    });

    const everyone = await account.usage.endUsers.listAll();
    expect(everyone.map((row) => row.user_id).sort()).toEqual(["ada", "bob"]);
    // Paged one at a time with for await, the same rows.
    const walked = [];
    for await (const row of account.usage.endUsers.list({ limit: 1 })) walked.push(row);
    expect(walked).toEqual(everyone);
    const adaRows = (await ada.usage.endUsers.list()).data;
    expect(adaRows).toHaveLength(1);
    expect(adaRows[0]).toMatchObject({
      user_id: "ada",
      runs_used: 1,
      input_tokens: adaRun.usage.input_tokens,
      output_tokens: adaRun.usage.output_tokens,
      cost_used_micros: micros(adaRun.usage.cost_usd),
    });
    expect((await bob.usage.endUsers.listAll()).map((row) => [row.user_id, row.runs_used])).toEqual([["bob", 2]]);
    await expect(ada.usage.endUsers.list({ user_id: "bob" })).rejects.toThrow(TypeError);

    const today = new Date().toISOString().slice(0, 10);
    const series = await account.usage.timeseries({ start_date: today, end_date: today, group_by: "model" });
    expect(series.buckets).toHaveLength(1);
    expect(series.totals).toMatchObject({ input_tokens: sum(all, "input_tokens"), output_tokens: sum(all, "output_tokens") });
    expect(series.totals.models?.map((slice) => slice.model)).toEqual(["inlay/sim"]);
    const bobSeries = await bob.usage.timeseries({ start_date: today, end_date: today });
    expect(bobSeries.totals).toMatchObject({ input_tokens: sum(bobRuns, "input_tokens"), output_tokens: sum(bobRuns, "output_tokens") });
    expect(micros(bobSeries.totals.cost_usd)).toBe(bobRuns.reduce((total, run) => total + micros(run.usage.cost_usd), 0));
  });
});
