// Run flows end to end over HTTP with the sim model: plan mode, output_schema, replies, first
// sessions, attachments, permission-mode changes, metadata_only retention and the webhook outbox.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { pollUntil } from "../../helpers/poll";
import { readFrames, textOf } from "../../helpers/sse";

let platform: PlatformHarness;
let account: Account;
let agentId: number;

beforeAll(async () => {
  platform = await startPlatform();
  account = await platform.signup();
  agentId = (await platform.call("/agents", { key: account.key, body: { name: "Flow", instructions: "Help with flows.", user_id: "u1" } })).body.id;
  await platform.keepWebhookEvents(account.key, "u1");
});
afterAll(() => platform.close());

const auth = (key = account.key) => ({ authorization: `Bearer ${key}` });

async function start(body: Record<string, unknown>, key = account.key) {
  const response = await platform.call("/runs", { key, query: { user_id: "u1" }, body: { teammate_id: agentId, stream: false, ...body } });
  expect(response.status).toBe(200);
  return response.body as { id: number; status: string };
}

async function waitFor(runId: number, statuses: string[], key = account.key, userId = "u1") {
  return platform.waitForRun(key, runId, statuses, { user_id: userId });
}

const permissions = async (runId: number) =>
  (await platform.call(`/runs/${runId}/permissions`, { key: account.key, query: { user_id: "u1" } })).body.data as {
    request_id: string;
    kind: string;
    tool_name: string;
    status: string;
    input: unknown;
  }[];

const answer = (runId: number, answers: Record<string, string>) =>
  platform.call(`/runs/${runId}/answer`, { key: account.key, query: { user_id: "u1" }, body: { answers } });

const reply = (runId: number, body: Record<string, unknown>, options: { key?: string; userId?: string; headers?: Record<string, string> } = {}) =>
  platform.call(`/runs/${runId}/reply`, {
    key: options.key ?? account.key,
    query: { user_id: options.userId ?? "u1" },
    body,
    headers: options.headers,
  });

function upload(path: string, payload: string | null, files: { name: string; type: string; content: string | Uint8Array<ArrayBuffer> }[], headers: Record<string, string> = {}) {
  const form = new FormData();
  if (payload !== null) form.append("payload", payload);
  for (const file of files) form.append("files", new Blob([file.content], { type: file.type }), file.name);
  return platform.request(`${path}?user_id=u1`, { method: "POST", headers: { ...auth(), ...headers }, body: form });
}

describe("plan mode", () => {
  it("writes a numbered plan, pauses with a plan request, and completes once the plan is approved", async () => {
    const run = await start({ message: 'Work out the product\n::tool calculator {"expression":"6*7"}', permission_mode: "plan" });
    const paused = await waitFor(run.id, ["awaiting_approval", "completed", "failed"]);
    expect(paused.status).toBe("awaiting_approval");
    // The pause's frames and the lease's release are written with the pause (runtime/run-pass.ts):
    // whoever sees awaiting_approval finds the request in the log and the run free to be claimed.
    const { prisma } = platform.database;
    expect((await prisma.platformRun.findUniqueOrThrow({ where: { id: run.id } })).leaseOwner).toBeNull();
    const tail = await prisma.platformRunEvent.findMany({ where: { runId: run.id }, orderBy: { id: "desc" }, take: 2 });
    expect(tail.reverse().map((event) => (event.data as { type: string }).type)).toEqual(["permission_request", "run_status"]);
    const [request] = await permissions(run.id);
    expect(request).toMatchObject({ kind: "plan", tool_name: "AskUserQuestion", status: "pending" });
    const events = await platform.request(`/runs/${run.id}/events?user_id=u1`, { headers: auth() });
    const frames = await readFrames(events, { until: (frame) => frame.data.type === "permission_request" });
    expect(textOf(frames)).toBe('1. Understand the request: "Work out the product".\n2. Call the tool calculator.\n3. Report the results.');

    expect((await answer(run.id, { "Plan Approval": "Approve" })).status).toBe(200);
    const done = await waitFor(run.id, ["completed", "failed"]);
    expect(done).toMatchObject({ status: "completed", output: 'Tool calculator returned {"result":42}' });
  });

  it("sending the plan back ends the run with the model asking what to change", async () => {
    const run = await start({ message: "Plan something", permission_mode: "plan" });
    await waitFor(run.id, ["awaiting_approval"]);
    expect((await answer(run.id, { "Plan Approval": "Revise" })).status).toBe(200);
    const done = await waitFor(run.id, ["completed", "failed"]);
    expect(done.output).toBe("The plan was not approved (Revise). Tell me what to change and I will write a new plan.");
    expect((await answer(run.id, { "Plan Approval": "Approve" })).status).toBe(409);
  });
});

describe("output_schema", () => {
  const schema = { type: "object", properties: { title: { type: "string" }, score: { type: "integer", minimum: 3 } }, required: ["title", "score"] };

  it("puts the structured result on the run and on the done frame", async () => {
    const response = await platform.request("/runs?user_id=u1", {
      method: "POST",
      headers: { ...auth(), "content-type": "application/json" },
      body: JSON.stringify({ teammate_id: agentId, message: "rate it", permission_mode: "autonomous", output_schema: schema }),
    });
    const frames = await readFrames(response, { until: (frame) => frame.data.type === "done" });
    const done = frames.at(-1)!.data;
    expect(done).toMatchObject({ type: "done", completion_state: "completed", output_data: { title: "sim", score: 3 } });
    const runId = (await platform.database.prisma.platformRun.findFirstOrThrow({ orderBy: { id: "desc" } })).id;
    expect((await waitFor(runId, ["completed"])).output_data).toEqual({ title: "sim", score: 3 });
  });

  it("rejects $ref, $defs and a schema that is not an object with 422 naming output_schema", async () => {
    for (const bad of [
      { type: "object", properties: { a: { $ref: "#/$defs/x" } } },
      { type: "object", $defs: { x: { type: "string" } } },
      { type: "array", items: { type: "string" } },
    ]) {
      const response = await platform.call("/runs", { key: account.key, query: { user_id: "u1" }, body: { teammate_id: agentId, message: "x", output_schema: bad } });
      expect(response.status).toBe(422);
      expect(response.body.error.message).toMatch(/^output_schema/);
    }
  });
});

describe("POST /runs/{run_id}/reply", () => {
  it("continues the same run: the model sees the earlier messages, and the reply streams only its own frames", async () => {
    const run = await start({ message: "my name is Ada", permission_mode: "autonomous" });
    await waitFor(run.id, ["completed"]);
    const response = await platform.request(`/runs/${run.id}/reply?user_id=u1`, {
      method: "POST",
      headers: { ...auth(), "content-type": "application/json" },
      body: JSON.stringify({ message: "what did I say?\n::recall" }),
    });
    expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
    const frames = await readFrames(response, { until: (frame) => frame.data.type === "done" });
    expect(frames[0]!.data).toMatchObject({ type: "run_status", status: "running" });
    expect(textOf(frames)).toBe('Echo: what did I say?\nYou said before: "my name is Ada"');
    const done = await waitFor(run.id, ["completed"]);
    expect(done).toMatchObject({ id: run.id, interactive: false, output: 'Echo: what did I say?\nYou said before: "my name is Ada"' });
    // Four messages: question, answer, reply, answer.
    expect(frames.at(-1)!.data.message_count).toBe(4);
  });

  it("is non-interactive: a reply on a plan-mode run neither plans nor asks", async () => {
    const run = await start({ message: "first", permission_mode: "plan" });
    await waitFor(run.id, ["awaiting_approval"]);
    await answer(run.id, { "Plan Approval": "Approve" });
    await waitFor(run.id, ["completed"]);
    const replied = await reply(run.id, { message: "::ask Which? | A | B", stream: false });
    expect(replied.status).toBe(200);
    expect(replied.body).toMatchObject({ id: run.id, status: "running", interactive: false });
    const done = await waitFor(run.id, ["completed", "failed", "awaiting_approval"]);
    // AskUserQuestion is withheld, so the sim's call fails as an unknown tool instead of pausing.
    expect(done.status).toBe("completed");
    expect(done.output).toMatch(/^Tool AskUserQuestion failed/);
    expect((await permissions(run.id)).filter((request) => request.status === "pending")).toEqual([]);
  });

  it("answers 409 while the run is still going, and 404 for another end-user's or account's run", async () => {
    const run = await start({ message: "::ask Colour? | Red", permission_mode: "autonomous" });
    await waitFor(run.id, ["awaiting_approval"]);
    const busy = await reply(run.id, { message: "again" });
    expect(busy.status).toBe(409);
    expect(busy.body.error.type).toBe("conflict_error");
    expect((await reply(run.id, { message: "x" }, { userId: "u2" })).status).toBe(404);
    const stranger = await platform.signup();
    expect((await reply(run.id, { message: "x" }, { key: stranger.key })).status).toBe(404);
    expect((await reply(run.id, {})).status).toBe(422);
  });

  it("continues a run cancelled while it waited for an approval", async () => {
    const run = await start({ message: '::tool calculator {"expression":"1+1"}', permission_mode: "approval" });
    await waitFor(run.id, ["awaiting_approval"]);
    await platform.call(`/runs/${run.id}/cancel`, { key: account.key, method: "POST", query: { user_id: "u1" } });
    const replied = await reply(run.id, { message: "never mind", stream: false });
    expect(replied.status).toBe(200);
    expect((await waitFor(run.id, ["completed", "failed"])).output).toBe("Echo: never mind");
  });

  it("supports Idempotency-Key: a retry replays the run instead of replying twice", async () => {
    const run = await start({ message: "hello", permission_mode: "autonomous" });
    await waitFor(run.id, ["completed"]);
    const headers = { "idempotency-key": `reply-${run.id}` };
    const first = await reply(run.id, { message: "once", stream: false }, { headers });
    expect(first.status).toBe(200);
    await waitFor(run.id, ["completed"]);
    const again = await reply(run.id, { message: "once", stream: false }, { headers });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replay")).toBe("true");
    expect(again.body).toMatchObject({ id: run.id, status: "completed", output: "Echo: once" });
    const row = await platform.database.prisma.platformRun.findUniqueOrThrow({ where: { id: run.id } });
    expect((row.messages as unknown[]).length).toBe(4);
    expect((await reply(run.id, { message: "different" }, { headers })).status).toBe(409);
  });
});

describe("a pass of several steps", () => {
  it("stores every step's messages: the tool call, its result and the answer, which a reply then sees", async () => {
    const run = await start({ message: '::tool calculator {"expression":"6*7"}', permission_mode: "autonomous" });
    await waitFor(run.id, ["completed"]);
    const row = await platform.database.prisma.platformRun.findUniqueOrThrow({ where: { id: run.id } });
    expect((row.messages as { role: string }[]).map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    // The reply's model counts the earlier call: its own call is the second, not a second "first".
    const replied = await reply(run.id, { message: '::tool calculator {"expression":"2*3"}', stream: false });
    expect(replied.status).toBe(200);
    await waitFor(run.id, ["completed"]);
    const after = await platform.database.prisma.platformRun.findUniqueOrThrow({ where: { id: run.id } });
    const calls = (after.messages as { role: string; content: unknown }[]).flatMap((message) =>
      message.role === "assistant" && Array.isArray(message.content)
        ? (message.content as { type: string; toolCallId?: string }[]).filter((part) => part.type === "tool-call").map((part) => part.toolCallId)
        : [],
    );
    expect(calls).toEqual(["sim-call-1", "sim-call-2"]);
  });
});

describe("POST /runs/first-session", () => {
  it("starts a run in which the agent introduces itself", async () => {
    const response = await platform.call("/runs/first-session", {
      key: account.key,
      query: { user_id: "u1" },
      body: { teammate_id: agentId, permission_mode: "autonomous", stream: false },
      headers: { "idempotency-key": "first-session-1" },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ teammate_id: agentId, status: "running", permission_mode: "autonomous" });
    const done = await waitFor(response.body.id, ["completed"]);
    expect(done.output).toMatch(/^Echo: This is our first session\. Introduce yourself/);
    const replay = await platform.call("/runs/first-session", {
      key: account.key,
      query: { user_id: "u1" },
      body: { teammate_id: agentId, permission_mode: "autonomous", stream: false },
      headers: { "idempotency-key": "first-session-1" },
    });
    expect(replay.body.id).toBe(response.body.id);
    expect((await platform.call("/runs/first-session", { key: account.key, query: { user_id: "u1" }, body: {} })).status).toBe(422);
    expect((await platform.call("/runs/first-session", { key: account.key, query: { user_id: "u2" }, body: { teammate_id: agentId } })).status).toBe(404);
  });
});

describe("attachments", () => {
  it("keeps a checkpoint's conversation with file references, not the files' bytes", async () => {
    // The tool step ends with a checkpoint; the slow answer after it keeps the run going to look at it.
    const message = '::tool calculator {"expression":"6*7"}\n::delay 150';
    const payload = JSON.stringify({ teammate_id: agentId, message, permission_mode: "autonomous", stream: false });
    const response = await upload("/runs/with-files", payload, [{ name: "notes.txt", type: "text/plain", content: "plover" }]);
    const run = (await response.json()) as { id: number };
    const { prisma } = platform.database;
    type Checkpoint = { messages?: { role: string; content: unknown }[] } | null;
    const readCheckpoint = async (): Promise<Checkpoint> => {
      const { checkpoint } = await prisma.platformRun.findUniqueOrThrow({ where: { id: run.id }, select: { checkpoint: true } });
      const json = (checkpoint as { messages_json?: string } | null)?.messages_json;
      return json === undefined ? null : { messages: JSON.parse(json) };
    };
    const checkpoint = await pollUntil(readCheckpoint, (now) => now?.messages !== undefined, "the run's checkpoint");
    expect(checkpoint?.messages?.[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: message },
        { type: "file", data: "inlay-file:0", mediaType: "text/plain", filename: "notes.txt" },
      ],
    });
    // The step's own messages follow: the tool call and its result.
    expect(checkpoint?.messages?.slice(1).map((each) => each.role)).toEqual(["assistant", "tool"]);
    expect((await waitFor(run.id, ["completed", "failed"])).status).toBe("completed");
  });

  it("gives a text file to the model and stores it with the run", async () => {
    const payload = JSON.stringify({ teammate_id: agentId, message: "read this", permission_mode: "autonomous", stream: false });
    const response = await upload("/runs/with-files", payload, [
      { name: "notes.txt", type: "text/plain", content: "the secret word is plover\nsecond line" },
      { name: "pixel.png", type: "image/png", content: new Uint8Array([137, 80, 78, 71, 1, 2, 3, 4]) },
    ]);
    expect(response.status).toBe(200);
    const run = (await response.json()) as { id: number };
    const done = await waitFor(run.id, ["completed", "failed"]);
    expect(done.output).toBe(
      "Echo: read this\nAttachment notes.txt (text/plain): the secret word is plover\nAttachment pixel.png (image/png, 8 bytes)",
    );
    const files = await platform.database.prisma.platformRunFile.findMany({ where: { runId: run.id }, orderBy: { id: "asc" } });
    expect(files.map((file) => [file.name, file.mimeType, file.sizeBytes])).toEqual([
      ["notes.txt", "text/plain", 37],
      ["pixel.png", "image/png", 8],
    ]);

    const replied = await upload(`/runs/${run.id}/reply/with-files`, JSON.stringify({ message: "and this", stream: false }), [
      { name: "more.md", type: "text/markdown", content: "# Heading" },
    ]);
    expect(replied.status).toBe(200);
    expect((await waitFor(run.id, ["completed", "failed"])).output).toBe("Echo: and this\nAttachment more.md (text/markdown): # Heading");
  });

  it("streams by default, like POST /runs", async () => {
    const response = await upload("/runs/with-files", JSON.stringify({ teammate_id: agentId, message: "hi", permission_mode: "autonomous" }), [
      { name: "a.txt", type: "text/plain", content: "alpha" },
    ]);
    expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
    const frames = await readFrames(response, { until: (frame) => frame.data.type === "done" });
    expect(textOf(frames)).toBe("Echo: hi\nAttachment a.txt (text/plain): alpha");
  });

  it("answers 422 naming the field for a bad payload, 413 for an oversize file, 415 for a JSON body", async () => {
    const notJson = await upload("/runs/with-files", "{nope", []);
    expect(notJson.status).toBe(422);
    expect(((await notJson.json()) as any).error.message).toBe("payload: is not valid JSON");
    const missing = await upload("/runs/with-files", JSON.stringify({ teammate_id: agentId }), []);
    expect(missing.status).toBe(422);
    expect(((await missing.json()) as any).error.message).toMatch(/^payload\.message: /);
    const noPayload = await upload("/runs/with-files", null, [{ name: "a.txt", type: "text/plain", content: "x" }]);
    expect(((await noPayload.json()) as any).error.message).toBe("payload: is required");
    const binary = await upload("/runs/with-files", JSON.stringify({ teammate_id: agentId, message: "x" }), [
      { name: "a.zip", type: "application/zip", content: new Uint8Array([80, 75, 3, 4]) },
    ]);
    expect(binary.status).toBe(422);
    expect(((await binary.json()) as any).error.message).toMatch(/^files: /);

    const big = await upload("/runs/with-files", JSON.stringify({ teammate_id: agentId, message: "x" }), [
      { name: "big.txt", type: "text/plain", content: "a".repeat(5 * 1024 * 1024 + 1) },
    ]);
    expect(big.status).toBe(413);
    const body = (await big.json()) as any;
    expect(body.error).toMatchObject({ type: "payload_too_large", code: 413 });
    const tooMuch = await upload(
      "/runs/with-files",
      JSON.stringify({ teammate_id: agentId, message: "x" }),
      Array.from({ length: 5 }, (_, index) => ({ name: `f${index}.txt`, type: "text/plain", content: "b".repeat(5 * 1024 * 1024) })),
    );
    expect(tooMuch.status).toBe(413);

    const json = await platform.call("/runs/with-files", { key: account.key, query: { user_id: "u1" }, body: { teammate_id: agentId, message: "x" } });
    expect(json.status).toBe(415);
    // Nothing was started by any of these.
    expect(await platform.database.prisma.platformRunFile.count({ where: { name: { in: ["big.txt", "a.zip", "f0.txt"] } } })).toBe(0);
  });

  it("replays a with-files retry with the same Idempotency-Key, whatever the multipart boundary", async () => {
    const payload = JSON.stringify({ teammate_id: agentId, message: "idem", permission_mode: "autonomous", stream: false });
    const files = [{ name: "a.txt", type: "text/plain", content: "same" }];
    const headers = { "idempotency-key": "with-files-1" };
    const first = (await (await upload("/runs/with-files", payload, files, headers)).json()) as { id: number };
    const again = await upload("/runs/with-files", payload, files, headers);
    expect(again.headers.get("idempotent-replay")).toBe("true");
    expect(((await again.json()) as { id: number }).id).toBe(first.id);
    const changed = await upload("/runs/with-files", payload, [{ name: "a.txt", type: "text/plain", content: "other" }], headers);
    expect(changed.status).toBe(409);
  });
});

describe("PATCH /runs/{run_id}/permission-mode", () => {
  it("switching a paused approval run to autonomous runs the pending and the next tool without approval", async () => {
    const run = await start({
      message: '::tool calculator {"expression":"2*3"}\n::tool calculator {"expression":"4*5"}',
      permission_mode: "approval",
    });
    await waitFor(run.id, ["awaiting_approval"]);
    expect(await permissions(run.id)).toHaveLength(1);
    const changed = await platform.call(`/runs/${run.id}/permission-mode`, {
      key: account.key,
      method: "PATCH",
      query: { user_id: "u1" },
      body: { permission_mode: "autonomous" },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: run.id, permission_mode: "autonomous" });
    const done = await waitFor(run.id, ["completed", "failed", "awaiting_approval"]);
    expect(done.status).toBe("completed");
    expect(done.output).toBe('Tool calculator returned {"result":6}\nTool calculator returned {"result":20}');
    const requests = await permissions(run.id);
    expect(requests.map((request) => request.status)).toEqual(["allowed"]);

    const terminal = await platform.call(`/runs/${run.id}/permission-mode`, {
      key: account.key,
      method: "PATCH",
      query: { user_id: "u1" },
      body: { permission_mode: "approval" },
    });
    expect(terminal.status).toBe(409);
    const invalid = await platform.call(`/runs/${run.id}/permission-mode`, { key: account.key, method: "PATCH", query: { user_id: "u1" }, body: { permission_mode: "yolo" } });
    expect(invalid.status).toBe(422);
    expect((await platform.call(`/runs/${run.id}/permission-mode`, { key: account.key, method: "PATCH", query: { user_id: "u2" }, body: { permission_mode: "plan" } })).status).toBe(404);
  });
});

describe("metadata_only retention", () => {
  it("stores no content of the run, while the live stream still shows it and a pause resumes in-process", async () => {
    const zdr = await platform.signup();
    expect((await platform.call("/settings", { key: zdr.key, method: "PATCH", body: { retention_mode: "metadata_only" } })).status).toBe(200);
    await platform.keepWebhookEvents(zdr.key, "z1");
    const agent = (await platform.call("/agents", { key: zdr.key, body: { name: "Quiet", user_id: "z1" } })).body.id;
    const secret = "zebracorn";
    const response = await platform.request("/runs?user_id=z1", {
      method: "POST",
      headers: { ...auth(zdr.key), "content-type": "application/json" },
      body: JSON.stringify({
        teammate_id: agent,
        permission_mode: "approval",
        message: `${secret} please\n::tool calculator {"expression":"1234567*3"}\n::ask Which ${secret}? | ${secret}-one | two`,
      }),
    });
    const firstPart = await readFrames(response, { until: (frame) => frame.data.type === "run_status" && frame.data.status === "awaiting_approval" });
    const [approval] = firstPart.filter((frame) => frame.data.type === "permission_request");
    expect(approval!.data).toMatchObject({ tool_name: "calculator", input: { expression: "1234567*3" } });
    const runId = (await platform.database.prisma.platformRun.findFirstOrThrow({ where: { accountId: zdr.id } })).id;
    const decided = await platform.call(`/runs/${runId}/approve`, {
      key: zdr.key,
      query: { user_id: "z1" },
      body: { request_id: approval!.data.request_id, decision: "allow" },
    });
    expect(decided.status).toBe(200);
    // The question is pending once the approved call has run and the run paused again.
    const pending = await pollUntil(
      async () => (await platform.call(`/runs/${runId}/permissions`, { key: zdr.key, query: { user_id: "z1" } })).body.data.filter((request: any) => request.status === "pending"),
      (requests) => requests.length > 0,
      "the run's question",
    );
    expect(pending[0]).toMatchObject({ kind: "question", input: {} });
    await platform.call(`/runs/${runId}/answer`, { key: zdr.key, query: { user_id: "z1" }, body: { answers: { q: `${secret}-one` } } });
    const done = await waitFor(runId, ["completed", "failed"], zdr.key, "z1");
    expect(done).toMatchObject({ status: "completed", output: null });
    expect(done.usage.input_tokens).toBeGreaterThan(0);

    // The live stream of this process still shows the answer (from memory).
    const live = await platform.request(`/runs/${runId}/events?user_id=z1`, { headers: auth(zdr.key) });
    const liveFrames = await readFrames(live, { until: (frame) => frame.data.type === "done" });
    expect(liveFrames.some((frame) => JSON.stringify(frame.data).includes(secret))).toBe(true);

    // Nothing of it is stored: the run, its list entry, its requests, its events' rows, the outbox.
    expect(JSON.stringify(done)).not.toContain(secret);
    const list = await platform.call("/runs", { key: zdr.key, query: { user_id: "z1" } });
    expect(list.body.data[0]).toMatchObject({ id: runId, latest_message_preview: null, first_message_preview: null, closing_preview: null });
    expect(JSON.stringify(list.body)).not.toContain(secret);
    const requests = await platform.call(`/runs/${runId}/permissions`, { key: zdr.key, query: { user_id: "z1" } });
    expect(JSON.stringify(requests.body)).not.toContain(secret);
    expect(requests.body.data.map((request: any) => request.tool_name)).toEqual(["calculator", "AskUserQuestion"]);
    const prisma = platform.database.prisma;
    const rows = [
      await prisma.platformRun.findUniqueOrThrow({ where: { id: runId } }),
      await prisma.platformRunEvent.findMany({ where: { runId } }),
      await prisma.platformPermissionRequest.findMany({ where: { runId } }),
      await prisma.platformRunFile.findMany({ where: { runId } }),
      await prisma.platformWebhookEvent.findMany({ where: { runId } }),
    ];
    // Timestamps are left out, and the result (3703701) is one no id, count or timestamp can equal by chance.
    const stored = JSON.stringify(rows, (key, value: unknown) =>
      key.endsWith("At") ? undefined : typeof value === "bigint" ? value.toString() : value,
    );
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain("1234567*3");
    expect(stored).not.toContain("3703701");
    expect(stored).toContain("calculator");

    // And a reply cannot continue a conversation that was never kept.
    const replied = await platform.call(`/runs/${runId}/reply`, { key: zdr.key, query: { user_id: "z1" }, body: { message: "more" } });
    expect(replied.status).toBe(409);
    expect(replied.body.error.error_code).toBe("conversation_not_retained");
  });

  it("does not store attachments of a metadata_only run", async () => {
    const zdr = await platform.signup();
    await platform.call("/settings", { key: zdr.key, method: "PATCH", body: { retention_mode: "metadata_only" } });
    const agent = (await platform.call("/agents", { key: zdr.key, body: { name: "Quiet", user_id: "z1" } })).body.id;
    const form = new FormData();
    form.append("payload", JSON.stringify({ teammate_id: agent, message: "see file", permission_mode: "autonomous" }));
    form.append("files", new Blob(["the hidden word is quokka"], { type: "text/plain" }), "hidden.txt");
    const response = await platform.request("/runs/with-files?user_id=z1", { method: "POST", headers: auth(zdr.key), body: form });
    const frames = await readFrames(response, { until: (frame) => frame.data.type === "done" });
    expect(textOf(frames)).toBe("Echo: see file\nAttachment hidden.txt (text/plain): the hidden word is quokka");
    const runId = (await platform.database.prisma.platformRun.findFirstOrThrow({ where: { accountId: zdr.id } })).id;
    await waitFor(runId, ["completed"], zdr.key, "z1");
    expect(await platform.database.prisma.platformRunFile.count({ where: { runId } })).toBe(0);
    const row = await platform.database.prisma.platformRun.findUniqueOrThrow({ where: { id: runId } });
    expect(JSON.stringify(row.messages)).not.toContain("quokka");
    expect(JSON.stringify(row.messages)).not.toContain("see file");
  });
});

describe("webhook outbox", () => {
  it("writes run.started, run.awaiting_input, run.completed, run.failed and run.message_received rows", async () => {
    const prisma = platform.database.prisma;
    const types = async (runId: number) => (await prisma.platformWebhookEvent.findMany({ where: { runId }, orderBy: { id: "asc" } })).map((row) => row.type);

    const asked = await start({ message: "::ask Pick | A | B", permission_mode: "autonomous" });
    await waitFor(asked.id, ["awaiting_approval"]);
    expect(await types(asked.id)).toEqual(["run.started", "run.awaiting_input"]);
    const waiting = await prisma.platformWebhookEvent.findFirstOrThrow({ where: { runId: asked.id, type: "run.awaiting_input" } });
    expect(waiting).toMatchObject({ accountId: account.id });
    expect(waiting.payload).toMatchObject({ run_id: asked.id, user_id: "u1", status: "awaiting_approval", pending_requests: [{ tool_name: "AskUserQuestion", kind: "question" }] });
    await answer(asked.id, { Pick: "A" });
    await waitFor(asked.id, ["completed"]);
    expect(await types(asked.id)).toEqual(["run.started", "run.awaiting_input", "run.completed"]);
    await reply(asked.id, { message: "more", stream: false });
    await waitFor(asked.id, ["completed"]);
    expect(await types(asked.id)).toEqual(["run.started", "run.awaiting_input", "run.completed", "run.message_received", "run.completed"]);

    const failed = await start({ message: "::fail boom", permission_mode: "autonomous" });
    await waitFor(failed.id, ["failed"]);
    expect(await types(failed.id)).toEqual(["run.started", "run.failed"]);
    expect((await prisma.platformWebhookEvent.findFirstOrThrow({ where: { runId: failed.id, type: "run.failed" } })).payload).toMatchObject({ error: "boom" });

    const structured = await start({ message: "x", permission_mode: "autonomous", output_schema: { type: "object", properties: { ok: { type: "boolean" } } } });
    await waitFor(structured.id, ["completed"]);
    const completed = await prisma.platformWebhookEvent.findFirstOrThrow({ where: { runId: structured.id, type: "run.completed" } });
    expect(completed.payload).toMatchObject({ output_data: { ok: true } });
  });
});

describe("built-in tools", () => {
  it("report_issue mails the account's owner the run's report", async () => {
    const run = await start({ message: '::tool report_issue {"summary":"the export is stuck","details":"since Monday"}', permission_mode: "autonomous" });
    await waitFor(run.id, ["completed"]);
    const mail = await platform.database.prisma.platformMail.findFirstOrThrow({ where: { accountId: account.id, kind: "agent_issue" } });
    expect(mail).toMatchObject({ to: account.email, subject: "Agent reported an issue: the export is stuck" });
    expect(mail.text).toContain(`Run ${run.id} reported`);
  });
});
