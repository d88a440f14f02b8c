// The chat's history (GET /api/chat/history, /api/chat/conversation) against a real platform: the
// member's conversations with the agent, one rebuilt from its event log and continued with a reply,
// and nobody else's.
import { readUIMessageStream } from "ai";
import { EventSourceParserStream } from "eventsource-parser/stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlatformClient, type PlatformClient } from "@/lib/platform-client";
import { sendBody } from "@/lib/chat/conversation";
import type { ChatHistoryItem } from "@/lib/chat/contract";
import type { ChatChunk, ChatMessage } from "@/lib/chat/types";
import { createChatHandlers, type ChatHandlers } from "@/server/chat/bridge";
import { agentByName, type ChatContext } from "@/server/chat/context";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

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
    expect(conversations[1]).toMatchObject({ status: "completed", preview: "Echo: alpha two", createdAt: expect.any(String) });

    const opened = await conversation("member-1", "Support", runId);
    expect(opened.status).toBe(200);
    const { messages } = (await opened.json()) as { messages: ChatMessage[] };
    // The agent's side of both requests, with the ids and cursors the live chat gave them.
    expect(messages.map(textOf)).toEqual(["Echo: alpha one", "Echo: alpha two"]);
    expect(messages.map((message) => message.id)).toEqual([first.id, reply.id]);
    expect(messages[1]!.metadata).toMatchObject({ runId, status: "completed", lastEventId: reply.metadata!.lastEventId });
    expect(Number(messages[1]!.metadata!.usage!.cost_usd)).toBeGreaterThan(0);

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

  it("refuses to rebuild a conversation that is still going", async () => {
    const agent = await clients["member-1"]!.agents.create({ name: "Slow" });
    const run = await clients["member-1"]!.runs.create({ teammate_id: agent.id, message: "::delay 100\n::words 40", stream: false });
    const response = await conversation("member-1", String(agent.id), run.id);
    expect(response.status).toBe(409);
    await clients["member-1"]!.runs.cancel(run.id);
  });
});
