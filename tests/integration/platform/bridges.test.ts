// iMessage bridges (/bridges; docs/platform-api.md, "Bridges"), through HTTP against a fake bridge server
// on loopback: CRUD and every field's limits, isolation between accounts, the password never returned,
// the inbound secret shown once and the old one refused, link codes, inbound routing (allowed and refused
// senders, linked handles, the owner's handle, the chat guid), runs started and continued and their
// answers delivered through the bridge's send API (again after it failed), the connection test up and
// down, and the hosted-line endpoints' 422s.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeBridgeServer, type FakeBridgeServer } from "../../helpers/bridge-server";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { pollFor } from "../../helpers/poll";

let platform: PlatformHarness;
let account: Account;
let other: Account;
let fake: FakeBridgeServer;

const prisma = () => platform.database.prisma;

beforeAll(async () => {
  // Reply jobs look again every half second while their run is going.
  platform = await startPlatform({ jobPollSeconds: 0.5 });
  account = await platform.signup({ require_end_user_id: false });
  other = await platform.signup({ require_end_user_id: false });
  fake = await startFakeBridgeServer("s3cret-bridge-password");
});
afterAll(async () => {
  await fake?.close();
  await platform?.close();
});

const OWNER = "+15550000001";
const ALLOWED = "+15550000002";
const STRANGER = "+15550000003";
let counter = 0;

async function newBridge(body: Record<string, unknown> = {}, key = account.key) {
  const response = await platform.call("/bridges", { key, body: { server_url: fake.url, password: fake.password, ...body } });
  if (response.status !== 201) throw new Error(`POST /bridges: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

async function newAgent(body: Record<string, unknown>, key = account.key) {
  const response = await platform.call("/agents", { key, body: { name: `Texter ${++counter}`, default_permission_mode: "autonomous", ...body } });
  if (response.status !== 201) throw new Error(`POST /agents: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

async function secretOf(bridgeId: number, key = account.key): Promise<string> {
  const response = await platform.call(`/bridges/${bridgeId}/rotate-secret`, { key, method: "POST" });
  expect(response.status).toBe(200);
  return response.body.inbound_secret;
}

const inbound = (bridgeId: number, secret: string | undefined, body: Record<string, unknown>) =>
  platform.call(`/bridges/${bridgeId}/inbound`, { key: null, headers: secret === undefined ? {} : { "x-bridge-secret": secret }, body });

const messagesOf = (bridgeId: number) => prisma().platformBridgeMessage.findMany({ where: { bridgeId }, orderBy: { id: "asc" } });
const inboundOf = (bridgeId: number) => prisma().platformBridgeMessage.findMany({ where: { bridgeId, direction: "inbound" }, orderBy: { id: "asc" } });

const waitFor = <T>(what: string, read: () => Promise<T | null | undefined>): Promise<T> => pollFor(read, what);

const fieldOf = (response: { body: any }) => response.body.error.details?.fields?.[0]?.field;

describe("POST /bridges, GET, PATCH, DELETE", () => {
  it("creates a bridge whose password is sealed and never returned, and reads, lists, changes and deletes it", async () => {
    const created = await platform.call("/bridges", {
      key: account.key,
      body: { name: "Mac mini", server_url: fake.url, password: fake.password, owner_handle: "+1 (555) 000-0001" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: "Mac mini",
      server_url: fake.url,
      owner_handle: OWNER,
      status: "active",
      has_password: true,
      has_inbound_secret: false,
      secret_rotated_at: null,
    });
    expect(created.body.inbound_url).toMatch(new RegExp(`/bridges/${created.body.id}/inbound$`));
    expect(JSON.stringify(created.body)).not.toContain(fake.password);
    expect(created.body).not.toHaveProperty("password");
    const row = await prisma().platformBridge.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row.passwordSealed).not.toContain(fake.password);

    const id = created.body.id;
    const got = await platform.call(`/bridges/${id}`, { key: account.key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);

    const second = await newBridge();
    expect(second.name).toBe(new URL(fake.url).host);
    const page = await platform.call("/bridges", { key: account.key, query: { limit: 1 } });
    expect(page.status).toBe(200);
    expect(page.body.data.map((each: { id: number }) => each.id)).toEqual([id]);
    expect(page.body.has_more).toBe(true);
    const rest = await platform.call("/bridges", { key: account.key, query: { starting_after: id } });
    expect(rest.body.data.map((each: { id: number }) => each.id)).toContain(second.id);
    expect(JSON.stringify(rest.body)).not.toContain(fake.password);

    const patched = await platform.call(`/bridges/${id}`, {
      key: account.key,
      method: "PATCH",
      body: { name: "Renamed", status: "paused", owner_handle: null, password: "a-new-password" },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: "Renamed", status: "paused", owner_handle: null, has_password: true, server_url: fake.url });
    expect(JSON.stringify(patched.body)).not.toContain("a-new-password");
    const resealed = await prisma().platformBridge.findUniqueOrThrow({ where: { id } });
    expect(resealed.passwordSealed).not.toBe(row.passwordSealed);
    expect(resealed.passwordSealed).not.toContain("a-new-password");

    expect((await platform.call(`/bridges/${id}`, { key: account.key, method: "DELETE" })).status).toBe(204);
    expect((await platform.call(`/bridges/${id}`, { key: account.key })).status).toBe(404);
    expect((await platform.call(`/bridges/${id}`, { key: account.key, method: "DELETE" })).status).toBe(404);
  });

  it("answers 422 naming the field for each field out of its limits", async () => {
    const base = { server_url: fake.url, password: fake.password };
    const cases: [Record<string, unknown>, string][] = [
      [{ password: "p" }, "server_url"],
      [{ server_url: fake.url }, "password"],
      [{ ...base, server_url: "" }, "server_url"],
      [{ ...base, server_url: "not a url" }, "server_url"],
      [{ ...base, server_url: "ftp://bridge.example.test" }, "server_url"],
      [{ ...base, server_url: "http://bridge.example.test" }, "server_url"],
      [{ ...base, server_url: "https://10.0.0.5" }, "server_url"],
      [{ ...base, server_url: "https://user:pw@bridge.example.test" }, "server_url"],
      [{ ...base, server_url: `https://bridge.example.test/${"a".repeat(2_100)}` }, "server_url"],
      [{ ...base, server_url: 42 }, "server_url"],
      [{ ...base, password: "" }, "password"],
      [{ ...base, password: "x".repeat(1_025) }, "password"],
      [{ ...base, name: "   " }, "name"],
      [{ ...base, name: "n".repeat(256) }, "name"],
      [{ ...base, owner_handle: "not a handle" }, "owner_handle"],
      [{ ...base, owner_handle: "12345" }, "owner_handle"],
      [{ ...base, user_id: "someone" }, "user_id"],
    ];
    for (const [body, field] of cases) {
      const response = await platform.call("/bridges", { key: account.key, body });
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(response.body.error.type).toBe("validation_error");
      expect(response.body.error.message).toContain(field);
      expect(fieldOf(response) ?? field).toBe(field);
    }
    const ok = await platform.call("/bridges", { key: account.key, body: { ...base, name: "n".repeat(255), owner_handle: "Owner@Example.COM" } });
    expect(ok.status).toBe(201);
    expect(ok.body.owner_handle).toBe("owner@example.com");

    const bridge = await newBridge();
    for (const [body, field] of [
      [{ status: "gone" }, "status"],
      [{ server_url: "http://bridge.example.test" }, "server_url"],
      [{ password: "" }, "password"],
      [{ name: "" }, "name"],
      [{ owner_handle: "nope" }, "owner_handle"],
      [{ user_id: "someone" }, "user_id"],
    ] as const) {
      const response = await platform.call(`/bridges/${bridge.id}`, { key: account.key, method: "PATCH", body });
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.error.message).toContain(field);
    }
    // Account-scoped: user_id is not a query parameter of these endpoints.
    const scoped = await platform.call("/bridges", { key: account.key, query: { user_id: "someone" } });
    expect(scoped.status).toBe(400);
    expect(scoped.body.error.message).toContain("user_id");
  });

  it("answers 404 for another account's bridge on every operation, and leaves it alone", async () => {
    const bridge = await newBridge();
    const handle = await prisma().platformBridgeHandle.create({ data: { bridgeId: bridge.id, handle: ALLOWED } });
    const calls: [string, string, unknown?][] = [
      ["GET", `/bridges/${bridge.id}`],
      ["PATCH", `/bridges/${bridge.id}`, { name: "mine now" }],
      ["DELETE", `/bridges/${bridge.id}`],
      ["POST", `/bridges/${bridge.id}/link-code`],
      ["POST", `/bridges/${bridge.id}/rotate-secret`],
      ["POST", `/bridges/${bridge.id}/test`],
      ["GET", `/bridges/${bridge.id}/handles`],
      ["DELETE", `/bridges/${bridge.id}/handles/${handle.id}`],
    ];
    for (const [method, path, body] of calls) {
      const response = await platform.call(path, { key: other.key, method, body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.error.type).toBe("not_found");
    }
    const theirs = await platform.call("/bridges", { key: other.key });
    expect(theirs.body.data.map((each: { id: number }) => each.id)).not.toContain(bridge.id);
    const mine = await platform.call(`/bridges/${bridge.id}`, { key: account.key });
    expect(mine.body).toMatchObject({ name: bridge.name, has_inbound_secret: false });
    expect(await prisma().platformBridgeHandle.count({ where: { bridgeId: bridge.id } })).toBe(1);
  });
});

describe("an agent's bridge_id", () => {
  it("accepts a bridge of the same account, refuses another account's or an unknown one with 422 naming bridge_id, and clears it when the bridge goes", async () => {
    const bridge = await newBridge();
    const theirs = await newBridge({}, other.key);

    const refusedCreate = await platform.call("/agents", { key: account.key, body: { name: "Nope", bridge_id: theirs.id } });
    expect(refusedCreate.status).toBe(422);
    expect(refusedCreate.body.error.message).toContain("bridge_id");
    const unknown = await platform.call("/agents", { key: account.key, body: { name: "Nope", bridge_id: 2_000_000_000 } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.message).toContain("bridge_id");

    const agent = await newAgent({ bridge_id: bridge.id, inbound_imessage_enabled: true, allowed_imessage_senders: [ALLOWED] });
    expect(agent.bridge_id).toBe(bridge.id);
    const refusedPatch = await platform.call(`/agents/${agent.id}`, { key: account.key, method: "PATCH", body: { bridge_id: theirs.id } });
    expect(refusedPatch.status).toBe(422);
    expect(refusedPatch.body.error.message).toContain("bridge_id");
    expect((await platform.call(`/agents/${agent.id}`, { key: account.key })).body.bridge_id).toBe(bridge.id);

    const second = await newBridge();
    const moved = await platform.call(`/agents/${agent.id}`, { key: account.key, method: "PATCH", body: { bridge_id: second.id } });
    expect(moved.status).toBe(200);
    expect(moved.body.bridge_id).toBe(second.id);

    expect((await platform.call(`/bridges/${second.id}`, { key: account.key, method: "DELETE" })).status).toBe(204);
    const after = await platform.call(`/agents/${agent.id}`, { key: account.key });
    expect(after.body.bridge_id).toBeNull();
  });
});

describe("POST /bridges/{id}/rotate-secret and the inbound endpoint's credential", () => {
  it("shows the secret once, keeps only its hash, and refuses the old one, a missing one and an unknown bridge alike", async () => {
    const bridge = await newBridge();
    const body = { handle: STRANGER, chat_guid: "iMessage;-;+15550000003", text: "hi" };
    expect((await inbound(bridge.id, undefined, body)).status).toBe(401);
    expect((await inbound(bridge.id, "anything", body)).status).toBe(401);

    const first = await secretOf(bridge.id);
    expect(first).toMatch(/^brsec_/);
    const row = await prisma().platformBridge.findUniqueOrThrow({ where: { id: bridge.id } });
    expect(row.inboundSecretHash).not.toContain(first);
    const got = await platform.call(`/bridges/${bridge.id}`, { key: account.key });
    expect(got.body.has_inbound_secret).toBe(true);
    expect(got.body.secret_rotated_at).not.toBeNull();
    expect(JSON.stringify(got.body)).not.toContain(first);
    expect((await inbound(bridge.id, first, body)).status).toBe(202);

    const second = await secretOf(bridge.id);
    expect(second).not.toBe(first);
    const old = await inbound(bridge.id, first, body);
    expect(old.status).toBe(401);
    expect(old.body.error.type).toBe("authentication_error");
    expect((await inbound(bridge.id, second, body)).status).toBe(202);
    // Another bridge's secret, and a bridge that does not exist, answer the same 401.
    const elsewhere = await newBridge({}, other.key);
    const theirSecret = await secretOf(elsewhere.id, other.key);
    expect((await inbound(bridge.id, theirSecret, body)).status).toBe(401);
    expect((await inbound(2_000_000_000, second, body)).status).toBe(401);
  });

  it("validates the inbound body", async () => {
    const bridge = await newBridge();
    const secret = await secretOf(bridge.id);
    for (const [body, field] of [
      [{ chat_guid: "c", text: "t" }, "handle"],
      [{ handle: ALLOWED, text: "t" }, "chat_guid"],
      [{ handle: ALLOWED, chat_guid: "c" }, "text"],
      [{ handle: ALLOWED, chat_guid: "c", text: "x".repeat(64_001) }, "text"],
      [{ handle: ALLOWED, chat_guid: "c".repeat(256), text: "t" }, "chat_guid"],
    ] as const) {
      const response = await inbound(bridge.id, secret, body);
      expect(response.status).toBe(422);
      expect(response.body.error.message).toContain(field);
    }
  });
});

describe("inbound messages", () => {
  it("starts a run for an allowed sender and sends its answer through the bridge; the same chat continues the run", async () => {
    const bridge = await newBridge();
    const secret = await secretOf(bridge.id);
    const agent = await newAgent({ bridge_id: bridge.id, inbound_imessage_enabled: true, allowed_imessage_senders: ["+1 555 000 0002"] });
    const chat = `iMessage;-;${ALLOWED}-${agent.id}`;
    const sentBefore = fake.sent().length;

    const received = await inbound(bridge.id, secret, { handle: ALLOWED, chat_guid: chat, text: "What is on today?", message_guid: `m-${agent.id}-1` });
    expect(received.status).toBe(202);
    expect(received.body).toEqual({ received: true });
    const [started] = await messagesOf(bridge.id);
    expect(started).toMatchObject({ direction: "inbound", status: "started", agentId: agent.id, handle: ALLOWED, chatGuid: chat });
    const run = await platform.call(`/runs/${started!.runId}`, { key: account.key });
    expect(run.body.teammate_id).toBe(agent.id);
    expect(run.body.metadata).toMatchObject({ source: "imessage", bridge_id: bridge.id });

    const sent = await fake.waitForSent(sentBefore + 1);
    expect(sent.at(-1)).toEqual({ chatGuid: chat, message: `Echo: From: ${ALLOWED} (iMessage)\n\nWhat is on today?` });
    const request = fake.received.find((each) => each.path === "/api/v1/message/text" && each.json?.chatGuid === chat);
    expect(request?.password).toBe(fake.password);
    await waitFor("the reply row", async () => (await messagesOf(bridge.id)).find((each) => each.direction === "outbound" && each.answersId === started!.id));

    // The same message delivered again starts nothing new.
    await inbound(bridge.id, secret, { handle: ALLOWED, chat_guid: chat, text: "What is on today?", message_guid: `m-${agent.id}-1` });
    expect((await messagesOf(bridge.id)).filter((each) => each.direction === "inbound")).toHaveLength(1);

    // A second message in the chat, once the run has finished, continues it.
    await waitFor("the run to finish", async () => {
      const current = await platform.call(`/runs/${started!.runId}`, { key: account.key });
      return ["completed", "failed"].includes(current.body.status) ? current : null;
    });
    expect((await inbound(bridge.id, secret, { handle: ALLOWED, chat_guid: chat, text: "And tomorrow?" })).status).toBe(202);
    const continued = (await messagesOf(bridge.id)).filter((each) => each.direction === "inbound").at(-1)!;
    expect(continued).toMatchObject({ status: "continued", runId: started!.runId });
    const again = await fake.waitForSent(sentBefore + 2);
    expect(again.at(-1)!.chatGuid).toBe(chat);
  });

  it("starts one run for a message delivered several times at once, and a refused message delivered again stays one row", async () => {
    const bridge = await newBridge();
    const secret = await secretOf(bridge.id);
    const agent = await newAgent({ bridge_id: bridge.id, inbound_imessage_enabled: true, allowed_imessage_senders: [ALLOWED] });
    const chat = `iMessage;-;race-${agent.id}`;
    const body = { handle: ALLOWED, chat_guid: chat, text: "Once only", message_guid: `race-${agent.id}` };
    const answers = await Promise.all(Array.from({ length: 6 }, () => inbound(bridge.id, secret, body)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(202));
    const rows = await inboundOf(bridge.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "started", messageGuid: body.message_guid });
    expect(await prisma().platformRun.count({ where: { agentId: agent.id } })).toBe(1);

    const stranger = { handle: "+15550009999", chat_guid: chat, text: "Hi", message_guid: `race-${agent.id}-stranger` };
    await inbound(bridge.id, secret, stranger);
    await inbound(bridge.id, secret, stranger);
    const refused = (await inboundOf(bridge.id)).filter((row) => row.messageGuid === stranger.message_guid);
    expect(refused).toMatchObject([{ status: "refused" }]);
  });

  it("sends the answer again after the bridge server failed, and answers a failed run with an apology", async () => {
    const flaky = await startFakeBridgeServer("flaky-password");
    try {
      const bridge = await newBridge({ server_url: flaky.url, password: flaky.password });
      const secret = await secretOf(bridge.id);
      await newAgent({ bridge_id: bridge.id, inbound_imessage_enabled: true, allowed_imessage_senders: [ALLOWED] });
      flaky.failWith(500);
      await inbound(bridge.id, secret, { handle: ALLOWED, chat_guid: "chat-flaky", text: "::fail" });
      await waitFor("a refused send", async () => flaky.received.find((each) => each.path === "/api/v1/message/text" && each.answered === 500));
      // The claim is given back, so nothing counts as sent while the server fails. (The fake records its
      // 500 before the platform reads it: the reply row may still be there for a moment.)
      await waitFor("the claim given back", async () => ((await messagesOf(bridge.id)).some((each) => each.direction === "outbound") ? null : true));
      flaky.failWith(null);
      const sent = await flaky.waitForSent(1, 30_000);
      expect(sent).toEqual([{ chatGuid: "chat-flaky", message: "Sorry, I could not finish this." }]);
      await waitFor("the reply row", async () => (await messagesOf(bridge.id)).find((each) => each.direction === "outbound"));
    } finally {
      await flaky.close();
    }
  }, 60_000);

  it("refuses a sender no agent allows with the same answer, no run and a log line; a linked handle and the owner's handle for the lead agent are allowed", async () => {
    const lead = await platform.signup({ require_end_user_id: false });
    const fresh = await startFakeBridgeServer("lead-password");
    try {
      const bridge = await newBridge({ server_url: fresh.url, password: fresh.password, owner_handle: OWNER }, lead.key);
      const secret = await secretOf(bridge.id, lead.key);
      const leadAgent = await newAgent({ bridge_id: bridge.id, inbound_imessage_enabled: true, allowed_imessage_senders: [ALLOWED] }, lead.key);
      const runsBefore = await prisma().platformRun.count({ where: { accountId: lead.id } });

      const refused = await inbound(bridge.id, secret, { handle: STRANGER, chat_guid: "chat-stranger", text: "let me in" });
      expect(refused.status).toBe(202);
      expect(refused.body).toEqual({ received: true });
      expect(await prisma().platformRun.count({ where: { accountId: lead.id } })).toBe(runsBefore);
      expect((await inboundOf(bridge.id)).at(-1)).toMatchObject({ status: "refused", handle: STRANGER, runId: null, agentId: null });

      // The owner's handle may text the lead agent (the account's oldest).
      await inbound(bridge.id, secret, { handle: OWNER, chat_guid: "chat-owner", text: "hello from the owner" });
      expect((await inboundOf(bridge.id)).at(-1)).toMatchObject({ status: "started", handle: OWNER, agentId: leadAgent.id });

      // A later agent is not the lead: the owner's handle alone does not reach it.
      const mate = await newAgent({ bridge_id: bridge.id, inbound_imessage_enabled: true, allowed_imessage_senders: [ALLOWED], imessage_chat_guid: "chat-mate" }, lead.key);
      await inbound(bridge.id, secret, { handle: OWNER, chat_guid: "chat-mate", text: "hi mate" });
      expect((await inboundOf(bridge.id)).at(-1)).toMatchObject({ status: "started", agentId: leadAgent.id });
      await inbound(bridge.id, secret, { handle: ALLOWED, chat_guid: "chat-mate", text: "hi mate" });
      expect((await inboundOf(bridge.id)).at(-1)).toMatchObject({ status: "started", agentId: mate.id });

      // A link code links the handle that texts it, once; the code is single use.
      const code = await platform.call(`/bridges/${bridge.id}/link-code`, { key: lead.key, method: "POST" });
      expect(code.status).toBe(201);
      expect(code.body.code).toMatch(/^[A-Z2-9]{8}$/);
      expect(Date.parse(code.body.expires_at)).toBeGreaterThan(Date.now());
      const stored = await prisma().platformBridge.findUniqueOrThrow({ where: { id: bridge.id } });
      expect(stored.linkCodeHash).not.toContain(code.body.code);
      expect((await inbound(bridge.id, secret, { handle: STRANGER, chat_guid: "chat-stranger", text: ` ${code.body.code.toLowerCase()} ` })).body).toEqual({
        received: true,
      });
      expect((await inboundOf(bridge.id)).at(-1)).toMatchObject({ status: "linked", handle: STRANGER });
      const handles = await platform.call(`/bridges/${bridge.id}/handles`, { key: lead.key });
      expect(handles.status).toBe(200);
      expect(handles.body.data).toEqual([expect.objectContaining({ handle: STRANGER, bridge_id: bridge.id })]);
      const reused = "+15550000009";
      await inbound(bridge.id, secret, { handle: reused, chat_guid: "chat-reused", text: code.body.code });
      expect((await inboundOf(bridge.id)).at(-1)).toMatchObject({ status: "refused", handle: reused });

      await inbound(bridge.id, secret, { handle: STRANGER, chat_guid: "chat-stranger", text: "now I may" });
      expect((await inboundOf(bridge.id)).at(-1)).toMatchObject({ status: "started", handle: STRANGER, agentId: leadAgent.id });

      // An expired code links nothing.
      const late = await platform.call(`/bridges/${bridge.id}/link-code`, { key: lead.key, method: "POST" });
      await prisma().platformBridge.update({ where: { id: bridge.id }, data: { linkCodeExpiresAt: new Date(Date.now() - 1000) } });
      await inbound(bridge.id, secret, { handle: reused, chat_guid: "chat-reused", text: late.body.code });
      expect((await inboundOf(bridge.id)).at(-1)).toMatchObject({ status: "refused", handle: reused });

      // Unlinked, the handle is refused again.
      const handleId = handles.body.data[0].id;
      expect((await platform.call(`/bridges/${bridge.id}/handles/${handleId}`, { key: lead.key, method: "DELETE" })).status).toBe(204);
      expect((await platform.call(`/bridges/${bridge.id}/handles/${handleId}`, { key: lead.key, method: "DELETE" })).status).toBe(404);
      await inbound(bridge.id, secret, { handle: STRANGER, chat_guid: "chat-stranger", text: "still there?" });
      expect((await inboundOf(bridge.id)).at(-1)).toMatchObject({ status: "refused", handle: STRANGER });

      // An agent that names a chat takes only that chat.
      await inbound(bridge.id, secret, { handle: ALLOWED, chat_guid: "chat-other", text: "wrong chat" });
      expect((await inboundOf(bridge.id)).at(-1)).toMatchObject({ status: "started", agentId: leadAgent.id });
      await platform.call(`/agents/${leadAgent.id}`, { key: lead.key, method: "PATCH", body: { imessage_chat_guid: "chat-lead" } });
      await inbound(bridge.id, secret, { handle: ALLOWED, chat_guid: "chat-other", text: "wrong chat" });
      expect((await inboundOf(bridge.id)).at(-1)).toMatchObject({ status: "refused" });

      // A paused bridge starts nothing.
      await platform.call(`/bridges/${bridge.id}`, { key: lead.key, method: "PATCH", body: { status: "paused" } });
      const paused = await inbound(bridge.id, secret, { handle: ALLOWED, chat_guid: "chat-mate", text: "anyone?" });
      expect(paused.status).toBe(202);
      expect((await inboundOf(bridge.id)).at(-1)).toMatchObject({ status: "ignored", runId: null });
    } finally {
      await fresh.close();
    }
  });
});

describe("POST /bridges/{id}/test", () => {
  it("reports the bridge server up, refusing the password, and down, never as a platform error", async () => {
    const probe = await startFakeBridgeServer("probe-password");
    try {
      const bridge = await newBridge({ server_url: probe.url, password: probe.password });
      // The latency is the bridge server's: at least its delay, at most the time around the whole call.
      probe.delayAnswers(120);
      const started = performance.now();
      const up = await platform.call(`/bridges/${bridge.id}/test`, { key: account.key, method: "POST" });
      const elapsed = performance.now() - started;
      probe.delayAnswers(0);
      expect(up.status).toBe(200);
      expect(up.body).toMatchObject({ ok: true, status: 200, error: null });
      expect(Number.isInteger(up.body.latency_ms)).toBe(true);
      expect(up.body.latency_ms).toBeGreaterThanOrEqual(115);
      expect(up.body.latency_ms).toBeLessThanOrEqual(Math.ceil(elapsed));
      expect(probe.received.at(-1)).toMatchObject({ method: "GET", path: "/api/v1/ping", password: probe.password });

      await platform.call(`/bridges/${bridge.id}`, { key: account.key, method: "PATCH", body: { password: "wrong" } });
      const refused = await platform.call(`/bridges/${bridge.id}/test`, { key: account.key, method: "POST" });
      expect(refused.status).toBe(200);
      expect(refused.body).toMatchObject({ ok: false, status: 401 });
      expect(refused.body.error).toContain("password");

      probe.failWith(503);
      const failing = await platform.call(`/bridges/${bridge.id}/test`, { key: account.key, method: "POST" });
      expect(failing.body).toMatchObject({ ok: false, status: 503 });
      probe.failWith(null);

      await probe.down();
      const down = await platform.call(`/bridges/${bridge.id}/test`, { key: account.key, method: "POST" });
      expect(down.status).toBe(200);
      expect(down.body).toMatchObject({ ok: false, status: null });
      expect(down.body.error).toMatch(/^Could not reach /);
      expect(down.body.error).not.toContain("wrong");
    } finally {
      await probe.close().catch(() => undefined);
    }
  });
});

describe("hosted lines", () => {
  it("answers POST /bridges/provision with 422 feature_not_available", async () => {
    const response = await platform.call("/bridges/provision", { key: account.key, method: "POST" });
    expect(response.status).toBe(422);
    expect(response.body.error.error_code).toBe("feature_not_available");
  });

  it("validates POST /bridges/provision-alt's body, then answers 422 feature_not_available", async () => {
    for (const [body, field] of [
      [{}, "number"],
      [{ number: "5551234567" }, "number"],
      [{ number: "+0123" }, "number"],
      [{ number: 15551234567 }, "number"],
      [{ number: "+15551234567", api_key: "" }, "api_key"],
      [{ number: "+15551234567", user_id: "" }, "user_id"],
    ] as const) {
      const response = await platform.call("/bridges/provision-alt", { key: account.key, body });
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.error.message).toContain(field);
      expect(response.body.error.error_code).not.toBe("feature_not_available");
    }
    const valid = await platform.call("/bridges/provision-alt", { key: account.key, body: { number: "+15551234567", api_key: "vendor-key", user_id: "u1" } });
    expect(valid.status).toBe(422);
    expect(valid.body.error.error_code).toBe("feature_not_available");
  });
});
