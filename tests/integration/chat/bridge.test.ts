// The chat bridge's handlers (app/api/chat) against a real platform: streamed text, an approval that
// pauses and resumes the same stream, reattachment after a cut, replies, refusals and actions.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlatformClient, type PlatformClient } from "@inlay/core/platform-client";
import type { ChatChunk, ChatDataTypes, ChatMessage } from "@inlay/core/chat/types";
import { messageUsage } from "@inlay/core/chat/conversation";
import { usdToMicros } from "@inlay/core/money";
import { createChatHandlers, type ChatHandlers } from "@/server/framework/chat/bridge";
import { ChatRefusal, agentByName, type ChatContext } from "@/server/framework/chat/context";
import { all, chunks, messageOf } from "../../helpers/chat-stream";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let client: PlatformClient;
/** A second member (nothing on their allow-list). */
let client2: PlatformClient;
let handlers: ChatHandlers;
let refuse = false;
const started: { runId: number; prior?: string }[] = [];
let withdrawn = 0;
let abandoned = 0;
/** The runs the bridge said its streams saw end, as it read them (the framework settles them). */
const ended: { id: number; status: string; cost: string }[] = [];
/** While on, the settlement never answers (a database that hangs). */
let settlementHangs = false;
/** While set, the ledger's start of a turn waits for it (a slow write). */
let startedGate: Promise<void> | undefined;
/** The ledger's starts and the streams' settlements, in the order they happened. */
const ledgerOrder: string[] = [];
/** While set, the context prepares new runs with it (the member's copies, the offered apps). */
let preparation: (() => Promise<{ apps?: string[] }>) | undefined;
/** What the preparation and the admission did, in the order they happened. */
const turnOrder: string[] = [];

beforeAll(async () => {
  platform = await startPlatform();
  const account = await platform.signup();
  client = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: account.key }).forUser("member-1");
  client2 = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: account.key }).forUser("member-2");
  handlers = createChatHandlers(async (request): Promise<ChatContext | null> => {
    const user = request.headers.get("x-test-user");
    if (user !== "member-1" && user !== "member-2") return null;
    const client = user === "member-1" ? client1() : client2;
    return {
      client,
      agentId: (agent) => agentByName(client, agent),
      ...(preparation ? { prepare: preparation } : {}),
      async admit() {
        turnOrder.push("admit");
        if (refuse) throw new ChatRefusal({ kind: "cap_reached", message: "You have reached your monthly run cap (3 of 3).", code: "member_runs" });
        return {
          started: async (runId, prior) => {
            await startedGate;
            started.push({ runId, prior });
            ledgerOrder.push(`started ${runId}`);
          },
          withdraw: async () => void withdrawn++,
          abandon: async () => void abandoned++,
        };
      },
      ended: (run) => {
        ended.push({ id: run.id, status: run.status, cost: run.usage.cost_usd });
        ledgerOrder.push(`ended ${run.id}`);
        return settlementHangs ? new Promise<void>(() => {}) : Promise.resolve();
      },
      subject: { tenantId: "t", userId: user, via: "session" },
    };
  });
});
afterAll(() => platform.close());
const client1 = () => client;

const headers = { "content-type": "application/json", "x-test-user": "member-1" };
let counter = 0;

function send(text: string, extra: Record<string, unknown> = {}, signal?: AbortSignal, user = "member-1") {
  const body = { agent: "Support", message: { id: `u${++counter}`, role: "user", parts: [{ type: "text", text }] }, ...extra };
  return handlers.send(new Request("http://127.0.0.1/api/chat", { method: "POST", headers: { ...headers, "x-test-user": user }, body: JSON.stringify(body), signal }));
}

const resume = (query: string, signal?: AbortSignal, user = "member-1") =>
  handlers.resume(new Request(`http://127.0.0.1/api/chat?${query}`, { headers: { ...headers, "x-test-user": user }, signal }));

const act = (body: unknown, user = "member-1") =>
  handlers.act(new Request("http://127.0.0.1/api/chat/actions", { method: "POST", headers: { ...headers, "x-test-user": user }, body: JSON.stringify(body) }));

const textOf = (message: ChatMessage) => message.parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
const dataOf = <K extends keyof ChatDataTypes & string>(message: ChatMessage, kind: K) =>
  message.parts.flatMap((part) => (part.type === `data-${kind}` ? [(part as unknown as { data: ChatDataTypes[K] }).data] : []));

describe("POST /api/chat", () => {
  it("streams the first words without waiting for the ledger's start, and settles the turn only after it", async () => {
    let open!: () => void;
    startedGate = new Promise<void>((resolve) => (open = resolve));
    try {
      const response = await send("slow ledger");
      const runId = Number(response.headers.get("x-run-id"));
      const seen: ChatChunk[] = [];
      const reading = chunks(response)[Symbol.asyncIterator]();
      for (let step = await reading.next(); !step.done; step = await reading.next()) {
        seen.push(step.value);
        if (step.value.type === "text-delta") break;
      }
      // Words are on the page while the ledger's write is still waiting.
      expect(seen.some((chunk) => chunk.type === "text-delta")).toBe(true);
      expect(ledgerOrder).not.toContain(`started ${runId}`);
      // The answer ends, and its settlement waits for the ledger's start.
      for (let step = await reading.next(); !step.done; step = await reading.next()) {
        seen.push(step.value);
        if (step.value.type === "finish") break;
      }
      expect(ledgerOrder.filter((entry) => entry.endsWith(` ${runId}`))).toEqual([]);
      open();
      for (let step = await reading.next(); !step.done; step = await reading.next()) seen.push(step.value);
      expect(ledgerOrder.filter((entry) => entry.endsWith(` ${runId}`))).toEqual([`started ${runId}`, `ended ${runId}`]);
    } finally {
      open();
      startedGate = undefined;
    }
  });

  it("streams the answer as text deltas before the run ends, with the run's id and usage", async () => {
    const response = await send("hello there world");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const runId = Number(response.headers.get("x-run-id"));
    const seen: ChatChunk[] = [];
    for await (const chunk of chunks(response)) seen.push(chunk);
    const deltas = seen.filter((chunk) => chunk.type === "text-delta");
    expect(deltas.length).toBe(4);
    // Text arrives as separate deltas, each before the finish chunk.
    expect(seen.findIndex((chunk) => chunk.type === "text-delta")).toBeLessThan(seen.findIndex((chunk) => chunk.type === "finish"));
    const message = await messageOf(seen);
    expect(message.id).toBe(`run-${runId}-0`);
    expect(textOf(message)).toBe("Echo: hello there world");
    expect(message.metadata).toMatchObject({ runId, status: "completed" });
    expect(Number(message.metadata!.usage!.cost_usd)).toBeGreaterThan(0);
    // The turn's admission is told which run it started, and before the stream closed, that the run
    // ended at the cost the message shows (the run ledger settles it then).
    expect(started.at(-1)).toEqual({ runId, prior: undefined });
    expect(ended.filter((run) => run.id === runId)).toEqual([{ id: runId, status: "completed", cost: message.metadata!.usage!.cost_usd }]);
  });

  it("closes the stream whole when the settlement does not answer (the webhook settles the turn later)", async () => {
    settlementHangs = true;
    try {
      const seen = await all(chunks(await send("still closes ::words 2")));
      expect(seen.at(-1)?.type).toBe("finish");
      expect(textOf(await messageOf(seen))).toContain("still closes");
    } finally {
      settlementHangs = false;
    }
  });

  it("shows an approval request while the run waits, and goes on in the same stream once approved", async () => {
    const response = await send('::tool calculator {"expression":"6*7"}', { permissionMode: "approval" });
    const runId = Number(response.headers.get("x-run-id"));
    const seen: ChatChunk[] = [];
    for await (const chunk of chunks(response)) {
      seen.push(chunk);
      if (chunk.type === "data-approval" && chunk.data.state === "pending") {
        expect(chunk.data).toMatchObject({ toolName: "calculator", input: { expression: "6*7" }, toolCallId: expect.any(String) });
        const approved = await act({ action: "approve", runId, requestId: chunk.data.requestId, decision: "allow", always: true, toolName: "calculator" });
        expect(approved.status).toBe(200);
        expect(await approved.json()).toMatchObject({ ok: true, result: { status: "allowed", tool_name: "calculator", remember: true } });
      }
    }
    const message = await messageOf(seen);
    expect(dataOf(message, "approval").map((approval) => approval.state)).toEqual(["allowed"]);
    expect(message.parts.find((part) => part.type === "dynamic-tool")).toMatchObject({ state: "output-available", output: { result: 42 } });
    expect(textOf(message)).toBe('Tool calculator returned {"result":42}');
    // "Always allow" put the tool on the member's allow-list: the next run does not ask.
    expect((await client.permissions.list()).data.map((permission) => permission.tool)).toContain("calculator");
    const again = await messageOf(await all(chunks(await send('::tool calculator {"expression":"1+1"}', { permissionMode: "approval" }))));
    expect(dataOf(again, "approval")).toEqual([]);
    expect(textOf(again)).toBe('Tool calculator returned {"result":2}');
  });

  it("asks for approval on a follow-up too (and after a reattach shows the same card); nothing runs unapproved", async () => {
    const first = await messageOf(await all(chunks(await send("hello", { permissionMode: "approval" }, undefined, "member-2"))));
    const { runId, lastEventId } = first.metadata!;
    const cut = new AbortController();
    const response = await send('::tool calculator {"expression":"7*6"}', { runId, cursor: lastEventId }, cut.signal, "member-2");
    const before: ChatChunk[] = [];
    for await (const chunk of chunks(response)) {
      before.push(chunk);
      if (chunk.type === "data-approval") break;
    }
    cut.abort(); // the browser reloads while the card waits
    const waiting = (await messageOf(before)).parts.find((part) => part.type === "data-approval") as unknown as { data: ChatDataTypes["approval"] };
    expect(waiting.data).toMatchObject({ toolName: "calculator", state: "pending" });
    // Reattached from the follow-up's cursor: the same card, and the tool has not run.
    const reattached = await resume(`runId=${runId}&cursor=${lastEventId}`, undefined, "member-2");
    const seen: ChatChunk[] = [];
    for await (const chunk of chunks(reattached)) {
      seen.push(chunk);
      if (chunk.type === "data-approval" && chunk.data.state === "pending") {
        expect(chunk.data.requestId).toBe(waiting.data.requestId);
        expect((await act({ action: "approve", runId, requestId: chunk.data.requestId, decision: "deny" }, "member-2")).status).toBe(200);
      }
    }
    const message = await messageOf(seen);
    expect(dataOf(message, "approval").map((approval) => approval.state)).toEqual(["denied"]);
    expect(textOf(message)).toBe("Tool calculator was denied");
    expect(message.parts.some((part) => part.type === "dynamic-tool" && (part as { state: string }).state === "output-available")).toBe(false);
  });

  it("answers a question from its card", async () => {
    const response = await send("::ask Which colour? | Red | Blue");
    const runId = Number(response.headers.get("x-run-id"));
    const seen: ChatChunk[] = [];
    for await (const chunk of chunks(response)) {
      seen.push(chunk);
      if (chunk.type === "data-question" && chunk.data.state === "pending") {
        expect(chunk.data.questions).toEqual([{ question: "Which colour?", options: [{ label: "Red" }, { label: "Blue" }] }]);
        expect((await act({ action: "answer", runId, requestId: chunk.data.requestId, answers: { "Which colour?": "Red" } })).status).toBe(200);
      }
    }
    const message = await messageOf(seen);
    expect(dataOf(message, "question")[0]).toMatchObject({ state: "answered", answers: { "Which colour?": "Red" } });
    expect(textOf(message)).toBe("You chose Red");
  });

  it("replies on the chat's run from the previous message's cursor", async () => {
    const first = await messageOf(await all(chunks(await send("first"))));
    const { runId, lastEventId } = first.metadata!;
    const response = await send("second", { runId, cursor: lastEventId });
    const reply = await messageOf(await all(chunks(response)));
    expect(reply.id).toBe(`run-${runId}-${lastEventId}`);
    expect(textOf(reply)).toBe("Echo: second");
    expect(started.at(-1)).toEqual({ runId, prior: first.metadata!.usage!.cost_usd });
    // The reply's footer is what the reply cost, not the run's total: the two add up to the run's.
    const run = await client.runs.get(runId!);
    const micros = (usd: string) => usdToMicros(usd)!;
    const [firstUsage, replyUsage] = [first.metadata!.usage!, reply.metadata!.usage!];
    expect(micros(replyUsage.cost_usd)).toBeGreaterThan(0n);
    expect(micros(replyUsage.cost_usd)).toBeLessThan(micros(run.usage.cost_usd));
    expect(micros(firstUsage.cost_usd) + micros(replyUsage.cost_usd)).toBe(micros(run.usage.cost_usd));
    expect(firstUsage.input_tokens + replyUsage.input_tokens).toBe(run.usage.input_tokens);
    expect(firstUsage.output_tokens + replyUsage.output_tokens).toBe(run.usage.output_tokens);
    // Reattaching from the reply's cursor replays exactly the reply; what it used is worked out from
    // the messages before it, which know theirs.
    const replayed = await messageOf(await all(chunks(await resume(`runId=${runId}&cursor=${lastEventId}`))));
    expect(replayed.id).toBe(reply.id);
    expect(textOf(replayed)).toBe("Echo: second");
    expect(replayed.metadata!.usage).toBeUndefined();
    expect(messageUsage([first, replayed], 1)).toEqual({ scope: "message", usage: replyUsage });
    expect(messageUsage([replayed], 0)).toEqual({ scope: "run", usage: run.usage });
  });

  it("sends attachments through the platform's with-files endpoints", async () => {
    const notes = `data:text/plain;base64,${Buffer.from("Order 1234 is late\nsecond line").toString("base64")}`;
    const body = {
      agent: "Support",
      message: {
        id: `u${++counter}`,
        role: "user",
        parts: [
          { type: "text", text: "see the file" },
          { type: "file", mediaType: "text/plain", filename: "notes.txt", url: notes },
        ],
      },
    };
    const response = await handlers.send(new Request("http://127.0.0.1/api/chat", { method: "POST", headers, body: JSON.stringify(body) }));
    const message = await messageOf(await all(chunks(response)));
    expect(textOf(message)).toContain("Attachment notes.txt (text/plain): Order 1234 is late");
    // A file part must be a data: URL: the bridge fetches nothing else.
    const remote = { ...body, message: { ...body.message, parts: [{ type: "file", mediaType: "text/plain", url: "http://127.0.0.1:9/x" }] } };
    const refused = await handlers.send(new Request("http://127.0.0.1/api/chat", { method: "POST", headers, body: JSON.stringify(remote) }));
    expect(refused.status).toBe(422);
  });

  it("shows a refused admission as an error part with its meaning, without starting a run", async () => {
    refuse = true;
    try {
      const before = (await client.runs.list()).data.length;
      const message = await messageOf(await all(chunks(await send("hello"))));
      expect(dataOf(message, "error")).toEqual([{ kind: "cap_reached", message: "You have reached your monthly run cap (3 of 3).", code: "member_runs" }]);
      expect((await client.runs.list()).data.length).toBe(before);
    } finally {
      refuse = false;
    }
  });

  it("prepares a new run while its admission is taken; a failed preparation gives the admission back", async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    preparation = async () => {
      turnOrder.push("prepare");
      await gate;
      turnOrder.push("prepared");
      return {};
    };
    try {
      turnOrder.length = 0;
      const answering = send("::words 3");
      // The admission is asked while the preparation still waits.
      await expect.poll(() => turnOrder).toEqual(["prepare", "admit"]);
      open();
      const message = await messageOf(await all(chunks(await answering)));
      expect(textOf(message).split(" ")).toHaveLength(3);
      expect(turnOrder).toEqual(["prepare", "admit", "prepared"]);

      // A preparation that fails after the admission: no run, the admission released, the error shown.
      const abandonedBefore = abandoned;
      const runsBefore = (await client.runs.list()).data.length;
      preparation = () => Promise.reject(new Error("tool copy failed"));
      const failed = await messageOf(await all(chunks(await send("hello"))));
      expect(dataOf(failed, "error")).toHaveLength(1);
      expect(abandoned - abandonedBefore).toBe(1);
      // Refused and failed at once: the refusal is what the person sees (and the failure is no unhandled rejection).
      refuse = true;
      const refused = await messageOf(await all(chunks(await send("hello"))));
      expect(dataOf(refused, "error")).toMatchObject([{ kind: "cap_reached" }]);
      expect((await client.runs.list()).data.length).toBe(runsBefore);
    } finally {
      open();
      preparation = undefined;
      refuse = false;
    }
  });

  it("answers 404 for an agent the platform does not know, giving its admission back, and refuses bad bodies and strangers", async () => {
    const [startedBefore, withdrawnBefore, abandonedBefore] = [started.length, withdrawn, abandoned];
    // A numeric name is taken as the platform's id, which only runs.create can refuse.
    const response = await send("hello", { agent: "999999" });
    expect(response.status).toBe(404);
    expect((await response.json()).error).toMatchObject({ kind: "not_found" });
    // No run started: the admission is withdrawn (the member keeps the run), not started or abandoned.
    expect([started.length - startedBefore, withdrawn - withdrawnBefore, abandoned - abandonedBefore]).toEqual([0, 1, 0]);
    // A reply on a run that is not the member's: 404 before any admission.
    const reply = await send("hello", { runId: 987_654 });
    expect(reply.status).toBe(404);
    expect([started.length - startedBefore, withdrawn - withdrawnBefore, abandoned - abandonedBefore]).toEqual([0, 1, 0]);
    const invalid = await handlers.send(new Request("http://127.0.0.1/api/chat", { method: "POST", headers, body: JSON.stringify({ agent: "x" }) }));
    expect(invalid.status).toBe(422);
    expect((await invalid.json()).error.message).toContain("message");
    const stranger = await handlers.send(new Request("http://127.0.0.1/api/chat", { method: "POST", body: "{}" }));
    expect(stranger.status).toBe(401);
  });
});

describe("GET /api/chat (reattach)", () => {
  it("after a cut, replays the whole message once from the run's event log, then has nothing more", async () => {
    const cut = new AbortController();
    const response = await send("::delay 40\none two three four five six", {}, cut.signal);
    const runId = Number(response.headers.get("x-run-id"));
    const before: ChatChunk[] = [];
    for await (const chunk of chunks(response)) {
      before.push(chunk);
      if (before.filter((each) => each.type === "text-delta").length === 2) break;
    }
    cut.abort(); // the browser reloads mid-run
    const partial = await messageOf(before);
    expect(textOf(partial)).toBe("Echo: one ");

    const again = await resume(`runId=${runId}`);
    expect(again.status).toBe(200);
    const replayed = await messageOf(await all(chunks(again)));
    expect(replayed.id).toBe(partial.id);
    expect(textOf(replayed)).toBe("Echo: one two three four five six");
    expect(replayed.metadata).toMatchObject({ runId, status: "completed" });

    const nothing = await resume(`runId=${runId}&cursor=${replayed.metadata!.lastEventId}`);
    expect(nothing.status).toBe(204);
    // The cut request's admission was told its run when it started; the cut changes nothing for it.
    expect(started.at(-1)).toEqual({ runId, prior: undefined });
  });

  it("is 404-like for another member's run and 422 without a run id", async () => {
    const other = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: (await platform.signup()).key }).forUser("member-1");
    const agent = await other.agents.create({ name: "Other" });
    const run = await other.runs.create({ teammate_id: agent.id, message: "hi", stream: false });
    const response = await resume(`runId=${run.id}`);
    expect(response.status).toBe(404);
    expect((await response.json()).error.kind).toBe("not_found");
    expect((await resume("cursor=1")).status).toBe(422);
  });
});

describe("a draining instance (SIGTERM)", () => {
  it("ends its chat streams marked interrupted, refuses new turns with 503, and another instance replays the request whole", async () => {
    const drain = new AbortController();
    // This instance and another one, over the same platform (a rolling restart's two app processes).
    const resolver = async (): Promise<ChatContext> => ({ client, agentId: (agent) => agentByName(client, agent), subject: { tenantId: "t", userId: "member-1", via: "session" } });
    const draining = createChatHandlers(resolver, drain.signal);
    const other = createChatHandlers(resolver, new AbortController().signal);
    const body = (text: string) => JSON.stringify({ agent: "Support", message: { id: `u${++counter}`, role: "user", parts: [{ type: "text", text }] } });
    const response = await draining.send(new Request("http://127.0.0.1/api/chat", { method: "POST", headers, body: body("::delay 40\nalpha beta gamma delta epsilon zeta eta theta") }));
    const runId = Number(response.headers.get("x-run-id"));
    const before: ChatChunk[] = [];
    for await (const chunk of chunks(response)) {
      before.push(chunk);
      if (before.filter((each) => each.type === "text-delta").length === 2) drain.abort();
    }
    const cut = await messageOf(before);
    expect(cut.metadata).toMatchObject({ runId, interrupted: "draining" });
    expect(textOf(cut).length).toBeLessThan("Echo: alpha beta gamma delta epsilon zeta eta theta".length);
    // Nothing of the request is settled by the cut: no card or call is marked expired or denied.
    expect(before.some((chunk) => chunk.type === "finish")).toBe(true);

    const refused = await draining.send(new Request("http://127.0.0.1/api/chat", { method: "POST", headers, body: body("hello") }));
    expect(refused.status).toBe(503);
    expect(refused.headers.get("x-inlay-draining")).toBe("1");
    expect(refused.headers.get("retry-after")).toBe("1");
    expect((await draining.resume(new Request(`http://127.0.0.1/api/chat?runId=${runId}`, { headers }))).status).toBe(503);

    // The chat reattaches on the other instance from the message's cursor (none: the run's first request).
    const replayed = await messageOf(await all(chunks(await other.resume(new Request(`http://127.0.0.1/api/chat?runId=${runId}`, { headers })))));
    expect(replayed.id).toBe(cut.id);
    expect(textOf(replayed)).toBe("Echo: alpha beta gamma delta epsilon zeta eta theta");
    expect(replayed.metadata).toMatchObject({ runId, status: "completed" });
    expect(replayed.metadata?.interrupted).toBeUndefined();
  });
});

describe("POST /api/chat/actions", () => {
  it("cancels (Stop) a running run: the stream ends cancelled with what was said", async () => {
    const response = await send("::delay 100\n::words 50");
    const runId = Number(response.headers.get("x-run-id"));
    const seen: ChatChunk[] = [];
    let stopped = false;
    for await (const chunk of chunks(response)) {
      seen.push(chunk);
      if (chunk.type === "text-delta" && !stopped) {
        stopped = true;
        const answer = await act({ action: "cancel", runId });
        expect(await answer.json()).toEqual({ ok: true, result: { status: "cancelled" } });
      }
    }
    const message = await messageOf(seen);
    expect(message.metadata).toMatchObject({ status: "cancelled", completionState: "cancelled" });
    expect(textOf(message).split(" ").length).toBeLessThan(50);
    const again = await act({ action: "cancel", runId });
    expect(again.status).toBe(409);
    expect((await again.json()).error.kind).toBe("conflict");
  });

  it("validates actions", async () => {
    const response = await act({ action: "approve", runId: 1, decision: "maybe" });
    expect(response.status).toBe(422);
    expect((await act({ action: "connect", app: "Not An App" })).status).toBe(422);
  });

  it("answers connect with 404 where the context cannot connect apps", async () => {
    const response = await act({ action: "connect", app: "codehost" });
    expect(response.status).toBe(404);
    expect((await response.json()).error.kind).toBe("not_found");
    expect((await act({ action: "complete", app: "codehost", connectionId: "c1" })).status).toBe(404);
  });
});
