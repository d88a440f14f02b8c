// The chat's history (GET /api/chat/history, /api/chat/conversation) against a real platform: the
// member's conversations with the agent, one rebuilt from its turns and event log and continued with
// a reply, conversations still going reopened and reattached to, and nobody else's.
import { readUIMessageStream } from "ai";
import { EventSourceParserStream } from "eventsource-parser/stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlatformClient, type PlatformClient } from "@inlay/core/platform-client";
import { resumeQuery, sendBody } from "@inlay/core/chat/conversation";
import { usdToMicros } from "@inlay/core/money";
import type { ChatHistoryItem } from "@inlay/core/chat/contract";
import type { ChatChunk, ChatMessage } from "@inlay/core/chat/types";
import { createChatHandlers, type ChatHandlers } from "@/server/framework/chat/bridge";
import { agentByName, type ChatContext } from "@/server/framework/chat/context";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";
import { waitForRun } from "../../helpers/poll";

let platform: PlatformHarness;
let clients: Record<string, PlatformClient>;
let handlers: ChatHandlers;

beforeAll(async () => {
  platform = await startPlatform();
  const account = await platform.signup();
  const base = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: account.key });
  // Two end-users of one account: the same tenant's two members.
  clients = { "member-1": base.forUser("member-1"), "member-2": base.forUser("member-2") };
  handlers = createChatHandlers(async (request): Promise<ChatContext | null> => {
    const user = request.headers.get("x-test-user");
    const client = user ? clients[user] : undefined;
    if (!client || !user) return null;
    return { client, agentId: (agent) => agentByName(client, agent), subject: { tenantId: "t", userId: user, via: "session" } };
  });
});
afterAll(() => platform.close());

const as = (user: string) => ({ "content-type": "application/json", "x-test-user": user });

async function messageOf(response: Response): Promise<ChatMessage> {
  const stream = response.body!
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .pipeThrough(
      new TransformStream<{ data: string }, ChatChunk>({
        transform: (event, controller) => void (event.data !== "[DONE]" && controller.enqueue(JSON.parse(event.data) as ChatChunk)),
      }),
    );
  let last: ChatMessage | undefined;
  for await (const message of readUIMessageStream<ChatMessage>({ stream })) last = message;
  return structuredClone(last!);
}

function send(user: string, body: Record<string, unknown>) {
  return handlers.send(new Request("http://127.0.0.1/api/chat", { method: "POST", headers: as(user), body: JSON.stringify(body) }));
}

const userMessage = (id: string, text: string): ChatMessage => ({ id, role: "user", parts: [{ type: "text", text }] });
const history = (user: string, agent: string) => handlers.history(new Request(`http://127.0.0.1/api/chat/history?agent=${agent}`, { headers: as(user) }));
const conversation = (user: string, agent: string, runId: number) =>
  handlers.conversation(new Request(`http://127.0.0.1/api/chat/conversation?agent=${agent}&runId=${runId}`, { headers: as(user) }));
const textOf = (message: ChatMessage) => message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");

describe("chat history", () => {
  it("lists the member's conversations with the agent, newest first, and rebuilds one to continue it", async () => {
    const first = await messageOf(await send("member-1", sendBody([userMessage("u1", "alpha one")], { agent: "Support" })));
    const runId = first.metadata!.runId!;
    const reply = await messageOf(await send("member-1", sendBody([first, userMessage("u2", "alpha two")], { agent: "Support" })));
    expect(reply.metadata!.runId).toBe(runId);
    const second = await messageOf(await send("member-1", sendBody([userMessage("u3", "beta")], { agent: "Support" })));
    // Another agent's conversation is not in this agent's history.
    await messageOf(await send("member-1", sendBody([userMessage("u4", "gamma")], { agent: "Billing" })));

    const listed = await history("member-1", "Support");
    expect(listed.status).toBe(200);
    const { conversations } = (await listed.json()) as { conversations: ChatHistoryItem[] };
    expect(conversations.map((each) => each.runId)).toEqual([second.metadata!.runId, runId]);
    // Each is listed by the person's first message, however far the conversation went on.
    expect(conversations[1]).toMatchObject({ status: "completed", preview: "alpha one", previewFrom: "person", createdAt: expect.any(String) });
    expect(conversations[0]).toMatchObject({ preview: "beta", previewFrom: "person" });

    const opened = await conversation("member-1", "Support", runId);
    expect(opened.status).toBe(200);
    const { messages } = (await opened.json()) as { messages: ChatMessage[] };
    // The person's message before the agent's answer, for both requests; the agent's messages keep
    // the ids and cursors the live chat gave them.
    expect(messages.map((message) => [message.role, textOf(message)])).toEqual([
      ["user", "alpha one"],
      ["assistant", "Echo: alpha one"],
      ["user", "alpha two"],
      ["assistant", "Echo: alpha two"],
    ]);
    expect(messages.filter((message) => message.role === "assistant").map((message) => message.id)).toEqual([first.id, reply.id]);
    expect(messages[3]!.metadata).toMatchObject({ runId, status: "completed", lastEventId: reply.metadata!.lastEventId });
    // The log does not say what each request used: the run's total is on the last, as the
    // conversation's (never as that message's own), and the first shows none.
    expect(messages[3]!.metadata!.usage).toBeUndefined();
    expect(usdToMicros(messages[3]!.metadata!.runUsage!.cost_usd)).toBe(usdToMicros(first.metadata!.usage!.cost_usd)! + usdToMicros(reply.metadata!.usage!.cost_usd)!);
    expect(messages[1]!.metadata!.usage).toBeUndefined();

    // The composer continues it: the next send is a reply on the same run.
    const body = sendBody([...messages, userMessage("u5", "alpha three")], { agent: "Support" });
    expect(body).toMatchObject({ runId, cursor: reply.metadata!.lastEventId });
    const continued = await messageOf(await send("member-1", body));
    expect(continued.metadata!.runId).toBe(runId);
    expect(textOf(continued)).toBe("Echo: alpha three");
  });

  it("is 404 for another member's run or another agent's, 422 without a run id, 401 for strangers", async () => {
    const mine = await messageOf(await send("member-1", sendBody([userMessage("m1", "mine")], { agent: "Support" })));
    const runId = mine.metadata!.runId!;
    const stolen = await conversation("member-2", "Support", runId);
    expect(stolen.status).toBe(404);
    expect((await stolen.json()).error.kind).toBe("not_found");
    // member-2's own history of the same agent name holds none of member-1's runs.
    expect(((await (await history("member-2", "Support")).json()) as { conversations: ChatHistoryItem[] }).conversations).toEqual([]);
    expect((await conversation("member-1", "Billing", runId)).status).toBe(404);
    const missing = await handlers.conversation(new Request("http://127.0.0.1/api/chat/conversation?agent=Support", { headers: as("member-1") }));
    expect(missing.status).toBe(422);
    expect((await handlers.history(new Request("http://127.0.0.1/api/chat/history?agent=Support"))).status).toBe(401);
  });

  it("shows the person's files by name, and a message of files only without the bridge's placeholder", async () => {
    const file = (name: string, type: string, text: string) => ({ type: "file", mediaType: type, filename: name, url: `data:${type};base64,${btoa(text)}` });
    const withText: ChatMessage = { id: "f1", role: "user", parts: [{ type: "text", text: "read this" }, file("notes.txt", "text/plain", "plover")] as ChatMessage["parts"] };
    const first = await messageOf(await send("member-1", sendBody([withText], { agent: "Files" })));
    const onlyFiles: ChatMessage = { id: "f2", role: "user", parts: [file("pixel.png", "image/png", "png")] as ChatMessage["parts"] };
    await messageOf(await send("member-1", sendBody([withText, first, onlyFiles], { agent: "Files" })));

    const { messages } = (await (await conversation("member-1", "Files", first.metadata!.runId!)).json()) as { messages: ChatMessage[] };
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(messages[0]!.parts).toEqual([
      { type: "text", text: "read this" },
      { type: "file", mediaType: "text/plain", filename: "notes.txt", url: "" },
    ]);
    expect(messages[2]!.parts).toEqual([{ type: "file", mediaType: "image/png", filename: "pixel.png", url: "" }]);
    expect(textOf(messages[3]!)).toBe("Echo: (see the attached files)\nAttachment pixel.png (image/png, 3 bytes)");
  });

  it("reopens a conversation waiting for the person: the earlier requests, then its current one to reattach to", async () => {
    const waiting = await send("member-1", sendBody([userMessage("w1", '::tool calculator {"expression":"6*7"}')], { agent: "Waiter", permissionMode: "approval" }));
    const runId = Number(waiting.headers.get("x-run-id"));
    const client = clients["member-1"]!;
    await waitForRun(client, runId, ["awaiting_approval"]);
    await waiting.body!.cancel();

    const opened = await conversation("member-1", "Waiter", runId);
    expect(opened.status).toBe(200);
    const { messages } = (await opened.json()) as { messages: ChatMessage[] };
    expect(messages.map((message) => [message.role, textOf(message)])).toEqual([
      ["user", '::tool calculator {"expression":"6*7"}'],
      ["assistant", ""],
    ]);
    expect(messages[1]).toMatchObject({ id: `run-${runId}-0`, parts: [], metadata: { runId, status: "awaiting_approval" } });
    // The chat reattaches from there (GET /api/chat), which replays the request: the approval card.
    const query = resumeQuery(messages);
    expect(query).toBe(`runId=${runId}`);
    const replay = await handlers.resume(new Request(`http://127.0.0.1/api/chat?${query}`, { headers: as("member-1") }));
    const [request] = (await client.runs.permissions.list(runId)).data;
    await client.runs.approve(runId, { request_id: request!.request_id, decision: "allow" });
    const resumed = await messageOf(replay);
    expect(resumed.id).toBe(messages[1]!.id);
    expect(resumed.parts.find((part) => part.type === "data-approval")).toMatchObject({ data: { toolName: "calculator", state: "allowed" } });
    expect(textOf(resumed)).toBe('Tool calculator returned {"result":42}');
  });

  it("reopens a conversation whose reply is still running after the requests before it", async () => {
    const first = await messageOf(await send("member-1", sendBody([userMessage("r1", "before")], { agent: "Replier" })));
    const runId = first.metadata!.runId!;
    const client = clients["member-1"]!;
    const replying = await send("member-1", sendBody([first, userMessage("r2", "::delay 50\n::words 30")], { agent: "Replier" }));

    const { messages } = (await (await conversation("member-1", "Replier", runId)).json()) as { messages: ChatMessage[] };
    expect(messages.map((message) => [message.role, textOf(message)])).toEqual([
      ["user", "before"],
      ["assistant", "Echo: before"],
      ["user", "::delay 50\n::words 30"],
      ["assistant", ""],
    ]);
    expect(messages[1]!.id).toBe(first.id);
    const cursor = first.metadata!.lastEventId!;
    expect(messages[3]).toMatchObject({ id: `run-${runId}-${cursor}`, metadata: { runId, cursor, status: "running" } });
    const replay = await handlers.resume(new Request(`http://127.0.0.1/api/chat?${resumeQuery(messages)}`, { headers: as("member-1") }));
    const resumed = await messageOf(replay);
    expect(resumed.id).toBe(messages[3]!.id);
    expect(textOf(resumed)).toMatch(/^alpha (\w+ ){28}\w+$/);
    await messageOf(replying);
    expect((await client.runs.get(runId)).status).toBe("completed");
  });

  it("still refuses a metadata_only conversation that is going: it keeps no turns to line the requests up with", async () => {
    const zdr = await platform.signup();
    const zdrClient = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: zdr.key });
    await zdrClient.settings.update({ retention_mode: "metadata_only" });
    clients["zdr-1"] = zdrClient.forUser("zdr-1");
    const agent = await clients["zdr-1"].agents.create({ name: "Slow" });
    const run = await clients["zdr-1"].runs.create({ teammate_id: agent.id, message: "::delay 100\n::words 40", stream: false });
    const response = await conversation("zdr-1", String(agent.id), run.id);
    expect(response.status).toBe(409);
    expect((await response.json()).error.kind).toBe("conflict");
    await clients["zdr-1"].runs.cancel(run.id);
  });
});
