// GET /runs/{run_id}/messages (an Inlay extension): a run's conversation as turns, built from the model
// messages the run keeps. One user turn per request (start, replies, replies with files); answers and
// tool calls are not turns; metadata_only runs answer none; scoped like GET /runs/{run_id}.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let account: Account;
let agentId: number;

beforeAll(async () => {
  platform = await startPlatform();
  account = await platform.signup();
  agentId = (await platform.call("/agents", { key: account.key, body: { name: "Talker", user_id: "u1" } })).body.id;
});
afterAll(() => platform.close());

async function start(body: Record<string, unknown>, key = account.key, userId = "u1") {
  const response = await platform.call("/runs", { key, query: { user_id: userId }, body: { stream: false, permission_mode: "autonomous", ...body } });
  expect(response.status).toBe(200);
  return response.body as { id: number };
}

async function waitFor(runId: number, statuses: string[], key = account.key, userId = "u1") {
  return platform.waitForRun(key, runId, statuses, { user_id: userId });
}

const messages = (runId: number, options: { key?: string; query?: Record<string, string> } = {}) =>
  platform.call(`/runs/${runId}/messages`, { key: options.key ?? account.key, query: options.query ?? { user_id: "u1" } });

function upload(path: string, payload: Record<string, unknown>, files: { name: string; type: string; content: string }[]) {
  const form = new FormData();
  form.append("payload", JSON.stringify(payload));
  for (const file of files) form.append("files", new Blob([file.content], { type: file.type }), file.name);
  return platform.request(`${path}?user_id=u1`, { method: "POST", headers: { authorization: `Bearer ${account.key}` }, body: form });
}

describe("GET /runs/{run_id}/messages", () => {
  it("answers the start, each reply and each reply with files as user turns, each followed by the agent's text", async () => {
    const run = await start({ teammate_id: agentId, message: "my name is Ada" });
    await waitFor(run.id, ["completed"]);
    const replied = await platform.call(`/runs/${run.id}/reply`, { key: account.key, query: { user_id: "u1" }, body: { message: "what did I say?\n::recall", stream: false } });
    expect(replied.status).toBe(200);
    await waitFor(run.id, ["completed"]);
    const withFiles = await upload(`/runs/${run.id}/reply/with-files`, { message: "and read this", stream: false }, [
      { name: "notes.txt", type: "text/plain", content: "the secret word is plover" },
      { name: "more.md", type: "text/markdown", content: "# Heading" },
    ]);
    expect(withFiles.status).toBe(200);
    await waitFor(run.id, ["completed"]);

    const response = await messages(run.id);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: [
        { role: "user", text: "my name is Ada" },
        { role: "assistant", text: "Echo: my name is Ada" },
        { role: "user", text: "what did I say?\n::recall" },
        { role: "assistant", text: 'Echo: what did I say?\nYou said before: "my name is Ada"' },
        {
          role: "user",
          text: "and read this",
          files: [
            { name: "notes.txt", mime_type: "text/plain" },
            { name: "more.md", mime_type: "text/markdown" },
          ],
        },
        {
          role: "assistant",
          text: "Echo: and read this\nAttachment notes.txt (text/plain): the secret word is plover\nAttachment more.md (text/markdown): # Heading",
        },
      ],
      retention: "standard",
    });
    expect(JSON.stringify(response.body)).not.toContain("inlay-file:");
  });

  it("gives a run started with files its files on the first turn", async () => {
    const created = await upload("/runs/with-files", { teammate_id: agentId, message: "look", permission_mode: "autonomous", stream: false }, [
      { name: "a.csv", type: "text/csv", content: "x,y\n1,2" },
    ]);
    const run = (await created.json()) as { id: number };
    await waitFor(run.id, ["completed"]);
    const { body } = await messages(run.id);
    expect(body.data[0]).toEqual({ role: "user", text: "look", files: [{ name: "a.csv", mime_type: "text/csv" }] });
    expect(body.data).toHaveLength(2);
  });

  it("does not count answers, approvals or tool calls as turns", async () => {
    const asked = await start({ teammate_id: agentId, message: "::ask Which colour? | Red | Blue" });
    await waitFor(asked.id, ["awaiting_approval"]);
    // Paused: the conversation is stored up to the pause; the question is a tool call, not text.
    expect((await messages(asked.id)).body.data).toEqual([{ role: "user", text: "::ask Which colour? | Red | Blue" }]);
    await platform.call(`/runs/${asked.id}/answer`, { key: account.key, query: { user_id: "u1" }, body: { answers: { "Which colour?": "Blue" } } });
    await waitFor(asked.id, ["completed"]);
    expect((await messages(asked.id)).body.data).toEqual([
      { role: "user", text: "::ask Which colour? | Red | Blue" },
      { role: "assistant", text: "You chose Blue" },
    ]);

    const tool = await start({ teammate_id: agentId, message: '::tool calculator {"expression":"6*7"}', permission_mode: "approval" });
    await waitFor(tool.id, ["awaiting_approval"]);
    const [request] = (await platform.call(`/runs/${tool.id}/permissions`, { key: account.key, query: { user_id: "u1" } })).body.data;
    await platform.call(`/runs/${tool.id}/approve`, { key: account.key, query: { user_id: "u1" }, body: { request_id: request.request_id, decision: "allow" } });
    await waitFor(tool.id, ["completed"]);
    expect((await messages(tool.id)).body.data).toEqual([
      { role: "user", text: '::tool calculator {"expression":"6*7"}' },
      { role: "assistant", text: 'Tool calculator returned {"result":42}' },
    ]);
  });

  it("keeps a plan sent back for revision in the agent's turn, not as a user turn", async () => {
    const run = await start({ teammate_id: agentId, message: "tidy the garden", permission_mode: "plan" });
    await waitFor(run.id, ["awaiting_approval"]);
    await platform.call(`/runs/${run.id}/answer`, { key: account.key, query: { user_id: "u1" }, body: { answers: { "Plan Approval": "Revise" } } });
    await waitFor(run.id, ["completed"]);
    const { body } = await messages(run.id);
    expect(body.data).toHaveLength(2);
    expect(body.data[0]).toEqual({ role: "user", text: "tidy the garden" });
    // The plan, then (a blank line apart) what the agent said once it was sent back.
    expect(body.data[1]).toEqual({
      role: "assistant",
      text:
        '1. Understand the request: "tidy the garden".\n2. Answer with an echo of the message.\n\n' +
        "The plan was not approved (Revise). Tell me what to change and I will write a new plan.",
    });
  });

  it("answers a running run's stored conversation: its user turn now, the agent's text once the pass ends", async () => {
    const run = await start({ teammate_id: agentId, message: "::delay 40\n::words 20" });
    const running = await messages(run.id);
    expect(running.status).toBe(200);
    expect(running.body).toEqual({ data: [{ role: "user", text: "::delay 40\n::words 20" }], retention: "standard" });
    await waitFor(run.id, ["completed"]);
    const done = await messages(run.id);
    expect(done.body.data).toHaveLength(2);
    expect(done.body.data[1]).toMatchObject({ role: "assistant", text: expect.stringMatching(/^alpha /) });
  });

  it("is 404 for another end-user's run, another account's, or the account scope; 400 for an unknown parameter", async () => {
    const run = await start({ teammate_id: agentId, message: "private words" });
    await waitFor(run.id, ["completed"]);
    const otherUser = await messages(run.id, { query: { user_id: "u2" } });
    expect(otherUser.status).toBe(404);
    expect(otherUser.body.error.type).toBe("not_found");
    const stranger = await platform.signup();
    const foreign = await messages(run.id, { key: stranger.key });
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.body)).not.toContain("private words");
    expect((await messages(run.id, { query: {} })).status).toBe(404);
    expect((await messages(999_999)).status).toBe(404);
    expect((await messages(run.id, { query: { user_id: "u1", starting_after: "3" } })).status).toBe(400);
    expect((await platform.request(`/runs/${run.id}/messages?user_id=u1`)).status).toBe(401);
  });

  it("answers a metadata_only run with no turns and says why", async () => {
    const zdr = await platform.signup();
    expect((await platform.call("/settings", { key: zdr.key, method: "PATCH", body: { retention_mode: "metadata_only" } })).status).toBe(200);
    const agent = (await platform.call("/agents", { key: zdr.key, body: { name: "Quiet", user_id: "z1" } })).body.id as number;
    const run = await start({ teammate_id: agent, message: "forget this sentence" }, zdr.key, "z1");
    await waitFor(run.id, ["completed"], zdr.key, "z1");
    const response = await messages(run.id, { key: zdr.key, query: { user_id: "z1" } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: [], retention: "metadata_only" });
  });

  it("is in the OpenAPI document", async () => {
    const document = (await (await platform.request("/openapi.json")).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    expect(document.paths["/runs/{run_id}/messages"]?.get?.operationId).toBe("listRunMessages");
  });
});
