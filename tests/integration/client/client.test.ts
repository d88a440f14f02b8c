// The platform client against a real platform over HTTP: every namespace, forUser isolation, lists
// and auto-pagination, and the error classes mapped from the platform's real answers.
import { waitForRun } from "../../helpers/poll";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  ConflictError,
  NotFoundError,
  PlatformApiError,
  ValidationError,
  createPlatformClient,
  signup,
  token,
  type PlatformClient,
  type Run,
} from "@inlay/core/platform-client";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let account: Account;
let client: PlatformClient;

beforeAll(async () => {
  platform = await startPlatform();
  account = await platform.signup({ require_end_user_id: false });
  client = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: account.key });
});
afterAll(() => platform.close());

async function settle(scoped: PlatformClient, runId: number, statuses: Run["status"][]): Promise<Run> {
  return waitForRun<Run>(scoped, runId, statuses);
}

/** Catches the rejection of `promise` as the error it is. */
async function failure(promise: PromiseLike<unknown>): Promise<PlatformApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PlatformApiError) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}

describe("signup and token (no key)", () => {
  it("creates an account and mints a new default key, which a client then uses", async () => {
    const email = `client-${Date.now()}@example.test`;
    const created = await signup({ baseUrl: platform.baseUrl }, { email, first_name: "Ada", password: "correct-horse" });
    expect(created.account.email).toBe(email);
    expect(created.api_key).toMatch(/^sk_inlay_/);

    const minted = await token({ baseUrl: platform.baseUrl }, { email, password: "correct-horse" });
    expect(minted.api_key).not.toBe(created.api_key);
    const fresh = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: minted.api_key });
    expect((await fresh.verify.status()).email).toBe(email);

    // The first key was revoked by the rotation.
    const stale = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: created.api_key });
    const error = await failure(stale.verify.status());
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.status).toBe(401);
    expect(error.type).toBe("authentication_error");
  });
});

describe("client.agents", () => {
  it("creates, reads, updates, disables, enables, archives, unarchives and resets an agent", async () => {
    const users = client.forUser("agents-owner");
    const agent = await users.agents.create({ name: "Helper", instructions: "Be brief.", role: "support" });
    expect(agent).toMatchObject({ name: "Helper", user_id: "agents-owner", status: "enabled" });
    expect(await users.agents.get(agent.id)).toEqual(agent);

    const updated = await users.agents.update(agent.id, { instructions: "Be very brief.", goals: "Close tickets" });
    expect(updated).toMatchObject({ instructions: "Be very brief.", goals: "Close tickets" });
    expect((await users.agents.disable(agent.id)).status).toBe("disabled");
    expect((await users.agents.enable(agent.id)).status).toBe("enabled");

    const reset = await users.agents.reset(agent.id, { fields: ["instructions"] });
    expect(reset.instructions).toBe("");
    expect(reset.goals).toBe("Close tickets");

    const prompt = await users.agents.systemPrompt.get(agent.id);
    expect(prompt.agent_id).toBe(agent.id);
    expect(prompt.prompt).toContain("Close tickets");

    await users.agents.archive(agent.id);
    expect(await failure(users.agents.get(agent.id))).toBeInstanceOf(NotFoundError);
    const archived = await users.agents.list({ include_archived: true });
    expect(archived.data.find((item) => item.id === agent.id)?.status).toBe("archived");
    expect(await users.agents.unarchive(agent.id)).toMatchObject({ id: agent.id, status: "disabled" });
  });

  it("lists one page, every page with listAll, and every agent with for await", async () => {
    const lister = client.forUser("agents-lister");
    const created: number[] = [];
    for (let i = 0; i < 5; i++) created.push((await lister.agents.create({ name: `Agent ${i}` })).id);

    const page = await lister.agents.list({ limit: 2 });
    expect(page.data.map((agent) => agent.id)).toEqual(created.slice(0, 2));
    expect(page.has_more).toBe(true);

    expect((await lister.agents.listAll({ limit: 2 })).map((agent) => agent.id)).toEqual(created);
    const walked: number[] = [];
    for await (const agent of lister.agents.list({ limit: 2 })) walked.push(agent.id);
    expect(walked).toEqual(created);

    const after = await lister.agents.list({ limit: 10, starting_after: created[2] });
    expect(after.data.map((agent) => agent.id)).toEqual(created.slice(3));

    const summaries = await lister.agents.list({ fields: "summary", limit: 1 });
    expect(summaries.data[0]).not.toHaveProperty("instructions");
  });

  it("reads the agent's documents", async () => {
    const users = client.forUser("docs-owner");
    const agent = await users.agents.create({ name: "Writer" });
    await platform.database.prisma.platformAgentDocument.create({
      data: { accountId: account.id, agentId: agent.id, name: "notes.md", content: "# Notes", sizeBytes: 7 },
    });
    const page = await users.agents.documents.list(agent.id);
    expect(page.data.map((document) => document.name)).toEqual(["notes.md"]);
    expect(await users.agents.documents.listAll(agent.id)).toEqual(page.data);
    const document = await users.agents.documents.get(agent.id, "notes.md");
    expect(document).toMatchObject({ name: "notes.md", content: "# Notes", size_bytes: 7 });
    expect(await failure(users.agents.documents.get(agent.id, "missing.md"))).toBeInstanceOf(NotFoundError);
  });
});

describe("forUser", () => {
  it("applies user_id to every call, and one end-user's client cannot see another's agent", async () => {
    const alice = client.forUser("alice");
    const bob = client.forUser("bob");
    expect(alice.userId).toBe("alice");
    const agent = await bob.agents.create({ name: "Bob's" });
    expect(agent.user_id).toBe("bob");

    const error = await failure(alice.agents.get(agent.id));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, type: "not_found" });
    // Branching happens on the class, type and errorCode; a plain miss has no semantic code.
    expect(error.errorCode).toBeUndefined();
    expect(error.requestId).toMatch(/^req_[0-9a-f]{32}$/);
    expect((await alice.agents.listAll()).map((item) => item.id)).not.toContain(agent.id);
    // The account view does not see end-user agents either.
    expect(await failure(client.agents.get(agent.id))).toBeInstanceOf(NotFoundError);

    // A scoped client refuses to be pointed at another end-user by hand.
    await expect(alice.agents.list({ user_id: "bob" })).rejects.toThrow(TypeError);
  });
});

describe("error classes from real answers", () => {
  it("maps 401, 404, 409 and 422 with type, errorCode and requestId", async () => {
    const anonymous = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: "sk_inlay_not-a-real-key" });
    const unauthenticated = await failure(anonymous.agents.list());
    expect(unauthenticated).toBeInstanceOf(AuthenticationError);
    expect(unauthenticated.type).toBe("authentication_error");

    const missing = await failure(client.runs.get(987_654));
    expect(missing).toBeInstanceOf(NotFoundError);

    const scoped = client.forUser("errors");
    const agent = await scoped.agents.create({ name: "E" });
    const conflict = await failure(scoped.agents.unarchive(agent.id));
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict).toMatchObject({ status: 409, type: "conflict_error" });

    const invalid = await failure(scoped.agents.create({ name: "   " }));
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(invalid).toMatchObject({ status: 422, type: "validation_error" });
    expect(invalid.details?.fields).toEqual([{ field: "name", message: "must not be blank" }]);

    // A semantic code: strict mode on a scope-less call.
    await client.settings.update({ require_end_user_id: true });
    try {
      const strict = await failure(client.agents.list());
      expect(strict).toBeInstanceOf(ValidationError);
      expect(strict.errorCode).toBe("end_user_id_required");
      expect(strict.details?.error_code).toBe("end_user_id_required");
    } finally {
      await client.settings.update({ require_end_user_id: false });
    }

    const unknownQuery = await failure(client.models.list({ nope: 1 } as never));
    expect(unknownQuery).toBeInstanceOf(ValidationError);
    expect(unknownQuery).toMatchObject({ status: 400, errorCode: "unknown_query_parameter" });
  });
});

describe("client.runs", () => {
  const runner = () => client.forUser("runner");
  let agentId: number;
  beforeAll(async () => {
    agentId = (await runner().agents.create({ name: "Runner", default_permission_mode: "autonomous" })).id;
  });

  it("creates a run without streaming, reads it, lists it and counts it", async () => {
    const run = await runner().runs.create({ teammate_id: agentId, message: "hello there", stream: false });
    expect(run).toMatchObject({ status: "running", teammate_id: agentId, user_id: "runner" });
    expect(run.idempotentReplay).toBeUndefined();
    const done = await settle(runner(), run.id, ["completed"]);
    expect(done.output).toBe("Echo: hello there");

    const listed = await runner().runs.list({ teammate_id: agentId });
    expect(listed.data.map((item) => item.id)).toContain(run.id);
    expect((await runner().runs.listAll({ fields: "summary" })).find((item) => item.id === run.id)).not.toHaveProperty("output");
    const activity = await runner().runs.activity();
    expect(activity.completed_today).toBeGreaterThanOrEqual(1);
    const check = await runner().runs.check();
    expect(check.latest_run_id).toBeGreaterThanOrEqual(run.id);
  });

  it("streams a run's frames and replays them from the event log", async () => {
    const stream = await runner().runs.create({ teammate_id: agentId, message: "stream me" });
    const frames = await stream.toArray();
    expect(stream.runId).toBeGreaterThan(0);
    const text = frames.flatMap((frame) => (frame.type === "content_block_delta" ? [frame.delta.text] : [])).join("");
    expect(text).toBe("Echo: stream me");
    expect(frames.at(-1)).toMatchObject({ type: "done", completion_state: "completed" });
    expect(frames[0]).toEqual({ type: "run_status", status: "running", at: expect.any(String) });

    const replayed = await runner().runs.events(stream.runId!).toArray();
    expect(replayed).toEqual(frames);
    const fromMiddle = runner().runs.events(stream.runId!, { lastEventId: stream.lastEventId });
    expect(await fromMiddle.toArray()).toEqual([]);
  });

  it("reads a run's conversation turns, the replies and their files included, in the end-user's scope", async () => {
    const scoped = runner();
    const run = await scoped.runs.create({ teammate_id: agentId, message: "first words", stream: false });
    await settle(scoped, run.id, ["completed"]);
    await scoped.runs.replyWithFiles(run.id, { message: "second words", files: [new File(["a,b"], "table.csv", { type: "text/csv" })], stream: false });
    await settle(scoped, run.id, ["completed"]);
    const turns = await scoped.runs.messages(run.id);
    expect(turns.retention).toBe("standard");
    expect(turns.data).toEqual([
      { role: "user", text: "first words" },
      { role: "assistant", text: "Echo: first words" },
      { role: "user", text: "second words", files: [{ name: "table.csv", mime_type: "text/csv" }] },
      { role: "assistant", text: "Echo: second words\nAttachment table.csv (text/csv): a,b" },
    ]);
    expect(await failure(client.forUser("someone-else").runs.messages(run.id))).toBeInstanceOf(NotFoundError);
  });

  it("cancels a run, and a second cancel is a ConflictError", async () => {
    const run = await runner().runs.create({ teammate_id: agentId, message: "::words 50\n::delay 50", stream: false });
    const cancelled = await runner().runs.cancel(run.id);
    expect(cancelled.status).toBe("cancelled");
    const again = await failure(runner().runs.cancel(run.id));
    expect(again).toBeInstanceOf(ConflictError);
  });

  it("approves a tool call and answers a question; needsYou and permissions list them", async () => {
    const scoped = runner();
    const run = await scoped.runs.create({
      teammate_id: agentId,
      message: '::tool calculator {"expression":"6*7"}',
      permission_mode: "approval",
      stream: false,
    });
    await settle(scoped, run.id, ["awaiting_approval"]);
    const waiting = await scoped.runs.needsYou();
    const mine = waiting.data.find((item) => item.id === run.id);
    expect(mine?.pending_requests.map((request) => request.tool_name)).toEqual(["calculator"]);
    const [request] = (await scoped.runs.permissions.list(run.id)).data;
    expect(request).toMatchObject({ tool_name: "calculator", status: "pending" });
    const approved = await scoped.runs.approve(run.id, { request_id: request!.request_id, decision: "allow" });
    expect(approved.status).toBe("allowed");
    expect((await settle(scoped, run.id, ["completed"])).output).toBe('Tool calculator returned {"result":42}');

    const asking = await scoped.runs.create({
      teammate_id: agentId,
      message: "::ask Which colour? | Red | Blue",
      permission_mode: "approval",
      stream: false,
    });
    await settle(scoped, asking.id, ["awaiting_approval"]);
    const answered = await scoped.runs.answer(asking.id, { answers: { "Which colour?": "Red" } });
    expect(answered.status).toBe("allowed");
    await settle(scoped, asking.id, ["completed"]);
  });
});

describe("client.memories, client.permissions, client.users", () => {
  it("saves, lists and deletes an end-user's memories", async () => {
    const scoped = client.forUser("memory-user");
    const memory = await scoped.memories.create({ content: "Prefers email" });
    expect(memory).toMatchObject({ user_id: "memory-user", content: "Prefers email", source: "api" });
    expect((await scoped.memories.listAll()).map((item) => item.id)).toEqual([memory.id]);
    await scoped.memories.delete(memory.id);
    expect((await scoped.memories.list()).data).toEqual([]);
    expect(await failure(client.forUser("someone-else").memories.delete(memory.id))).toBeInstanceOf(NotFoundError);
  });

  it("allows, lists and removes a tool for an end-user", async () => {
    const scoped = client.forUser("permission-user");
    const permission = await scoped.permissions.create({ tool: "calculator" });
    expect(permission).toMatchObject({ user_id: "permission-user", tool: "calculator" });
    expect(await scoped.permissions.create({ tool: "calculator" })).toEqual(permission);
    expect((await scoped.permissions.list()).data).toEqual([permission]);
    await scoped.permissions.delete(permission.id);
    expect(await scoped.permissions.listAll()).toEqual([]);
  });

  it("creates, reads, updates, lists and deletes end-user profiles", async () => {
    const profile = await client.users.create({ user_id: "profile-1", name: "Grace", company: "Navy" });
    expect(profile).toMatchObject({ user_id: "profile-1", name: "Grace" });
    expect(await client.users.get("profile-1")).toEqual(profile);
    expect((await client.users.update("profile-1", { company: null })).company).toBeNull();
    expect((await client.users.listAll()).map((user) => user.user_id)).toContain("profile-1");
    await client.users.delete("profile-1");
    expect(await failure(client.users.get("profile-1"))).toBeInstanceOf(NotFoundError);
  });
});

describe("client.settings, client.keys, client.models, client.builtInTools, client.agentTemplates", () => {
  it("reads and changes settings", async () => {
    const before = await client.settings.get();
    const after = await client.settings.update({ per_end_user_run_limit: 7 });
    expect(after).toEqual({ ...before, per_end_user_run_limit: 7 });
    await client.settings.update({ per_end_user_run_limit: null });
  });

  it("manages named keys and the default key", async () => {
    const own = await platform.signup();
    const keys = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: own.key });
    const named = await keys.keys.create({ name: "ci" });
    expect(named.key).toMatch(/^sk_inlay_/);
    expect((await keys.keys.listAll()).map((key) => key.id)).toEqual([named.id]);
    const rotated = await keys.keys.rotate(named.id);
    expect(rotated.name).toBe("ci");
    await keys.keys.delete(rotated.id);
    expect(await keys.keys.listAll()).toEqual([]);

    expect((await keys.keys.default.get()).kind).toBe("default");
    const fresh = await keys.keys.default.rotate();
    expect(await failure(keys.keys.default.get())).toBeInstanceOf(AuthenticationError);
    const rotatedClient = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: fresh.key });
    await rotatedClient.keys.default.delete();
    expect(await failure(rotatedClient.keys.default.get())).toBeInstanceOf(AuthenticationError);
  });

  it("reads the catalogues", async () => {
    const models = await client.models.list();
    expect(models.data.find((model) => model.default)?.id).toBe("inlay/sim");
    const tools = await client.builtInTools.list();
    expect(tools.data.map((tool) => tool.name)).toContain("calculator");
    const templates = await client.agentTemplates.list({ limit: 1 });
    expect(templates.has_more).toBe(true);
    const all = await client.agentTemplates.listAll({ limit: 1 });
    expect(all.map((template) => template.slug)).toEqual(["customer-support", "research-analyst", "meeting-assistant"]);
  });
});

describe("client.verify and client.account", () => {
  it("resends, confirms and reports verification; exports and deletes the account", async () => {
    const own = await platform.signup();
    const mine = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: own.key });
    expect((await mine.verify.status()).verified).toBe(false);
    expect(await mine.verify.resend()).toEqual({ sent: true, email: own.email });
    const link = new URL(/https?:\/\/\S+/.exec(platform.lastMail(own.email, "verify_email").text)![0]);
    expect(await mine.verify.confirm(link.searchParams.get("token")!)).toEqual({ verified: true });
    expect((await mine.verify.status()).verified).toBe(true);
    const conflict = await failure(mine.verify.resend());
    expect(conflict).toBeInstanceOf(ConflictError);
    expect(conflict.errorCode).toBe("email_already_verified");

    const exported = await mine.account.export();
    expect(exported.account.email).toBe(own.email);
    await mine.account.delete();
    expect(await failure(mine.account.export())).toBeInstanceOf(AuthenticationError);
  });
});
