import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let lax: Account; // require_end_user_id off
let strict: Account; // the API signup default: on
let other: Account;

beforeAll(async () => {
  platform = await startPlatform();
  lax = await platform.signup({ require_end_user_id: false });
  strict = await platform.signup();
  other = await platform.signup({ require_end_user_id: false });
});
afterAll(() => platform.close());

const create = (account: Account, body: Record<string, unknown> = {}, query?: Record<string, string>) =>
  platform.call("/agents", { key: account.key, body, query });

describe("POST /agents", () => {
  it("creates an agent with the spec's defaults", async () => {
    const { status, body } = await create(lax, {});
    expect(status).toBe(201);
    expect(body).toMatchObject({
      instructions: "",
      tools: [],
      default_permission_mode: "approval",
      inbound_imessage_enabled: false,
      status: "enabled",
      user_id: null,
      model: null,
      effort: null,
      prompt_profile: "platform",
      disabled_builtin_tools: [],
      template: null,
    });
    expect(body.id).toEqual(expect.any(Number));
    expect(body.name).toMatch(/^\w+ \w+$/);
    expect(Date.parse(body.created_at)).not.toBeNaN();
  });

  it("stores every field it is given", async () => {
    const { status, body } = await create(lax, {
      name: "Support",
      instructions: "Help customers.",
      tools: ["search"],
      role: "Support lead",
      goals: "Fast answers",
      enable_memory: false,
      enable_feedback: true,
      prompt_profile: "bare",
      disabled_builtin_tools: ["calculator"],
      metadata: { team: "a" },
      allowed_senders: ["ops@example.test", "@example.test"],
      inbound_imessage_enabled: true,
      allowed_imessage_senders: ["+15550001111"],
      chat_channels: ["C123"],
      default_permission_mode: "autonomous",
      model: "sim",
      effort: "low",
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      name: "Support",
      tools: ["search"],
      role: "Support lead",
      enable_memory: false,
      enable_feedback: true,
      prompt_profile: "bare",
      disabled_builtin_tools: ["calculator"],
      metadata: { team: "a" },
      allowed_senders: ["ops@example.test", "@example.test"],
      inbound_imessage_enabled: true,
      chat_channels: ["C123"],
      inbound_chat_enabled: true,
      default_permission_mode: "autonomous",
      model: "inlay/sim",
      effort: "low",
    });
  });

  it("rejects blank and oversized fields with 422 naming the field", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ name: "   " }, /^name: must not be blank/],
      [{ name: "x".repeat(256) }, /^name: /],
      [{ instructions: "x".repeat(50_001) }, /^instructions: /],
      [{ tools: Array.from({ length: 51 }, (_, i) => `t${i}`) }, /^tools: /],
      [{ allowed_senders: Array.from({ length: 101 }, (_, i) => `u${i}@example.test`) }, /^allowed_senders: /],
      [{ allowed_senders: ["not an address"] }, /^allowed_senders\.0: /],
      [{ default_permission_mode: "yolo" }, /^default_permission_mode: /],
      [{ effort: "extreme" }, /^effort: /],
    ];
    for (const [body, message] of cases) {
      const response = await create(lax, body);
      expect(response.status, JSON.stringify(body).slice(0, 60)).toBe(422);
      expect(response.body.error.type).toBe("validation_error");
      expect(response.body.error.message).toMatch(message);
    }
  });

  it("limits metadata to 10 KB serialized, with the spec's message", async () => {
    const { status, body } = await create(lax, { metadata: { blob: "x".repeat(10_300) } });
    expect(status).toBe(422);
    expect(body.error.message).toContain("metadata must not exceed 10240 bytes serialized");
    expect(body.error.message).toMatch(/^metadata: /);
  });

  it("ignores reserved metadata keys", async () => {
    const { body } = await create(lax, {
      metadata: { keep: 1, error_code: "X", auto_retryable: true, interrupted: true, nudged_at: "now" },
    });
    expect(body.metadata).toEqual({ keep: 1 });
  });

  it("checks model against GET /models and clamps effort on models that stop at high", async () => {
    const unknown = await create(lax, { model: "gpt-99" });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.message).toMatch(/^model: unknown model/);

    const withOpenAi = await startPlatform({ models: { openaiConfigured: true } });
    try {
      const account = await withOpenAi.signup({ require_end_user_id: false });
      const clamped = await withOpenAi.call("/agents", { key: account.key, body: { model: "gpt-4.1-mini", effort: "max" } });
      expect(clamped.status).toBe(201);
      expect(clamped.body).toMatchObject({ model: "openai/gpt-4.1-mini", effort: "high" });
      const kept = await withOpenAi.call("/agents", { key: account.key, body: { model: "sim", effort: "xhigh" } });
      expect(kept.body.effort).toBe("xhigh");
    } finally {
      await withOpenAi.close();
    }
  });

  it("checks disabled_builtin_tools against GET /built-in-tools", async () => {
    const { status, body } = await create(lax, { disabled_builtin_tools: ["memory", "teleport"] });
    expect(status).toBe(422);
    expect(body.error.message).toMatch(/^disabled_builtin_tools: unknown built-in tool\(s\): teleport/);
  });

  it("fails closed on iMessage without allowed senders", async () => {
    const { status, body } = await create(lax, { inbound_imessage_enabled: true });
    expect(status).toBe(422);
    expect(body.error.message).toMatch(/^allowed_imessage_senders: /);
  });

  it("binds a chat channel to one agent only", async () => {
    await create(lax, { chat_channels: ["C-unique"] });
    const { status, body } = await create(lax, { chat_channels: ["C-unique"] });
    expect(status).toBe(409);
    expect(body.error.error_code).toBe("chat_channel_taken");
    // Another account may bind the same channel name.
    expect((await create(other, { chat_channels: ["C-unique"] })).status).toBe(201);
  });

  it("refuses a bridge_id that names no bridge of the account", async () => {
    // (A bridge of the account is accepted, another account's refused: bridges.test.ts.)
    expect((await create(lax, { bridge_id: 7 })).body.error.message).toMatch(/^bridge_id: no bridge 7/);
  });

  it("requires user_id in strict mode and scopes the agent to it", async () => {
    const refused = await create(strict, { name: "Nope" });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ type: "validation_error", error_code: "end_user_id_required" });
    expect(refused.body.error.message).toMatch(/^user_id: /);

    const inBody = await create(strict, { name: "Mine", user_id: "alice" });
    expect(inBody.status).toBe(201);
    expect(inBody.body.user_id).toBe("alice");
    const inQuery = await create(strict, { name: "Also mine" }, { user_id: "alice" });
    expect(inQuery.body.user_id).toBe("alice");
    const disagreeing = await create(strict, { user_id: "bob" }, { user_id: "alice" });
    expect(disagreeing.status).toBe(422);
  });

  it("needs a key", async () => {
    expect((await platform.call("/agents", { body: {} })).status).toBe(401);
  });
});

describe("from_template", () => {
  it("applies the template, stores onboarding answers as memories and stays linked until customised", async () => {
    const { status, body } = await create(lax, {
      from_template: "customer-support",
      user_id: "carol",
      onboarding_answers: { product_name: "Widgets", tone: "Friendly", not_a_question: "ignored" },
      enabled_task_slugs: ["weekly-faq-review"],
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({ name: "Customer support agent", template: "customer-support", template_linked: true, user_id: "carol" });
    expect(body.instructions).toMatch(/customer questions/);

    const prompt = await platform.call(`/agents/${body.id}/system-prompt`, { key: lax.key, query: { user_id: "carol" } });
    expect(prompt.body.prompt).toContain("What is your product called? Widgets");
    expect(prompt.body.prompt).not.toContain("ignored");

    const patched = await platform.call(`/agents/${body.id}`, {
      key: lax.key,
      method: "PATCH",
      query: { user_id: "carol" },
      body: { goals: "Other goals" },
    });
    expect(patched.body.template_linked).toBe(false);
    const reset = await platform.call(`/agents/${body.id}/reset`, {
      key: lax.key,
      method: "POST",
      query: { user_id: "carol" },
      body: { fields: ["goals"] },
    });
    expect(reset.body.template_linked).toBe(true);
    expect(reset.body.goals).toMatch(/first reply/);
  });

  it("refuses other fields with it, unknown templates and unknown task slugs", async () => {
    expect((await create(lax, { from_template: "customer-support", name: "X" })).body.error.message).toMatch(
      /^name: cannot be set together with from_template/,
    );
    expect((await create(lax, { from_template: "nope" })).body.error.message).toMatch(/^from_template: unknown template/);
    expect(
      (await create(lax, { from_template: "customer-support", enabled_task_slugs: ["bogus"] })).body.error.message,
    ).toMatch(/^enabled_task_slugs: unknown task slug/);
    expect((await create(lax, { onboarding_answers: { a: 1 } })).body.error.message).toMatch(
      /^onboarding_answers: is only accepted with from_template/,
    );
  });
});

describe("GET /agents", () => {
  it("pages through the scope in COALESCE(display_order, id) order", async () => {
    const account = await platform.signup({ require_end_user_id: false });
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create(account, { name: `A${i}` })).body.id);
    // Move the last one to the front.
    await platform.call(`/agents/${ids[4]}`, { key: account.key, method: "PATCH", body: { display_order: 0 } });

    const first = await platform.call("/agents", { key: account.key, query: { limit: 2 } });
    expect(first.body.data.map((a: { id: number }) => a.id)).toEqual([ids[4], ids[0]]);
    expect(first.body.has_more).toBe(true);
    const second = await platform.call("/agents", { key: account.key, query: { limit: 2, starting_after: ids[0] } });
    expect(second.body.data.map((a: { id: number }) => a.id)).toEqual([ids[1], ids[2]]);
    const third = await platform.call("/agents", { key: account.key, query: { limit: 2, starting_after: ids[2] } });
    expect(third.body.data.map((a: { id: number }) => a.id)).toEqual([ids[3]]);
    expect(third.body.has_more).toBe(false);
  });

  it("hides archived agents unless include_archived, and projects fields=summary", async () => {
    const account = await platform.signup({ require_end_user_id: false });
    const kept = (await create(account, { name: "Kept", instructions: "secret sauce", allowed_senders: ["a@b.test"] })).body;
    const gone = (await create(account, { name: "Gone" })).body;
    expect((await platform.call(`/agents/${gone.id}`, { key: account.key, method: "DELETE" })).status).toBe(204);

    const visible = await platform.call("/agents", { key: account.key });
    expect(visible.body.data.map((a: { id: number }) => a.id)).toEqual([kept.id]);
    const all = await platform.call("/agents", { key: account.key, query: { include_archived: "true" } });
    expect(all.body.data.map((a: { id: number; status: string }) => [a.id, a.status])).toEqual([
      [kept.id, "enabled"],
      [gone.id, "archived"],
    ]);

    const summary = await platform.call("/agents", { key: account.key, query: { fields: "summary" } });
    const [item] = summary.body.data;
    for (const omitted of ["instructions", "goals", "role", "metadata", "tools", "chat_channels"]) {
      expect(item).not.toHaveProperty(omitted);
    }
    expect(item.allowed_senders).toEqual(["a@b.test"]);
  });

  it("validates limit, cursors and filters", async () => {
    expect((await platform.call("/agents", { key: lax.key, query: { limit: 0 } })).status).toBe(422);
    expect((await platform.call("/agents", { key: lax.key, query: { limit: 101 } })).status).toBe(422);
    expect((await platform.call("/agents", { key: lax.key, query: { fields: "full" } })).status).toBe(422);
    const foreignCursor = (await create(other)).body.id;
    const cursor = await platform.call("/agents", { key: lax.key, query: { starting_after: foreignCursor } });
    expect(cursor.status).toBe(422);
    expect(cursor.body.error.message).toMatch(/^starting_after: /);
    const unknown = await platform.call("/agents", { key: lax.key, query: { sort: "name" } });
    expect(unknown.body.error.error_code).toBe("unknown_query_parameter");
  });

  it("keeps end-users and accounts apart, and needs user_id in strict mode", async () => {
    await create(strict, { name: "Dave's", user_id: "dave" });
    await create(strict, { name: "Erin's", user_id: "erin" });
    const dave = await platform.call("/agents", { key: strict.key, query: { user_id: "dave" } });
    expect(dave.body.data.map((a: { name: string }) => a.name)).toEqual(["Dave's"]);
    const refused = await platform.call("/agents", { key: strict.key });
    expect(refused.status).toBe(422);
    expect(refused.body.error.error_code).toBe("end_user_id_required");
    const otherAccount = await platform.call("/agents", { key: other.key, query: { user_id: "dave" } });
    expect(otherAccount.body.data).toEqual([]);
  });
});

describe("GET, PATCH and DELETE /agents/{agent_id}", () => {
  it("answers 404 for another end-user's, another account's, a missing or a malformed id", async () => {
    const agent = (await create(strict, { user_id: "frank" })).body;
    const asFrank = await platform.call(`/agents/${agent.id}`, { key: strict.key, query: { user_id: "frank" } });
    expect(asFrank.status).toBe(200);
    for (const [key, query] of [
      [strict.key, { user_id: "grace" }],
      [strict.key, undefined],
      [other.key, { user_id: "frank" }],
    ] as const) {
      const response = await platform.call(`/agents/${agent.id}`, { key, query });
      expect(response.status).toBe(404);
      expect(response.body.error.type).toBe("not_found");
    }
    expect((await platform.call("/agents/999999", { key: lax.key })).status).toBe(404);
    expect((await platform.call("/agents/abc", { key: lax.key })).status).toBe(422);
    expect((await platform.call(`/agents/${agent.id}`, { key: other.key, method: "DELETE", query: { user_id: "frank" } })).status).toBe(404);
  });

  it("patches with the spec's null-versus-omitted rules", async () => {
    const agent = (await create(lax, { name: "P", role: "r", model: "sim", default_permission_mode: "plan", visibility: undefined })).body;
    const url = `/agents/${agent.id}`;
    const patch = (body: Record<string, unknown>) => platform.call(url, { key: lax.key, method: "PATCH", body });

    const nulls = await patch({ role: null, model: null, default_permission_mode: null, visibility: null });
    expect(nulls.status).toBe(200);
    // role and model clear; permission mode and visibility stay as they were.
    expect(nulls.body).toMatchObject({ role: null, model: null, default_permission_mode: "plan", visibility: null });

    const set = await patch({ visibility: "team", display_order: 5, chat_channels: ["C9"] });
    expect(set.body).toMatchObject({ visibility: "team", display_order: 5, chat_channels: ["C9"], inbound_chat_enabled: true });
    const unbound = await patch({ chat_channels: [] });
    expect(unbound.body).toMatchObject({ chat_channels: [], inbound_chat_enabled: false, visibility: "team" });
    const omitted = await patch({});
    expect(omitted.body.name).toBe("P");
    expect((await patch({ name: "" })).status).toBe(422);
    expect((await patch({ model: "nope" })).status).toBe(422);
  });

  it("archives with DELETE, hides the archived agent, and unarchives it as disabled", async () => {
    const agent = (await create(lax, { name: "Arch" })).body;
    const url = `/agents/${agent.id}`;
    expect((await platform.call(url, { key: lax.key, method: "DELETE" })).status).toBe(204);
    expect((await platform.call(url, { key: lax.key })).status).toBe(404);
    expect((await platform.call(`${url}/enable`, { key: lax.key, method: "POST" })).status).toBe(404);

    const unarchived = await platform.call(`${url}/unarchive`, { key: lax.key, method: "POST" });
    expect(unarchived.status).toBe(200);
    expect(unarchived.body).toEqual({ id: agent.id, name: "Arch", status: "disabled", created_at: agent.created_at });
    expect((await platform.call(`${url}/unarchive`, { key: lax.key, method: "POST" })).status).toBe(409);

    const enabled = await platform.call(`${url}/enable`, { key: lax.key, method: "POST" });
    expect(enabled.body.status).toBe("enabled");
    const disabled = await platform.call(`${url}/disable`, { key: lax.key, method: "POST" });
    expect(disabled.body.status).toBe("disabled");
  });

  it("resets overrides to the defaults", async () => {
    const agent = (await create(lax, { instructions: "x", tools: ["a"], enable_memory: false, default_permission_mode: "plan" })).body;
    const partial = await platform.call(`/agents/${agent.id}/reset`, { key: lax.key, method: "POST", body: { fields: ["tools"] } });
    expect(partial.body).toMatchObject({ tools: [], instructions: "x", enable_memory: false });
    const all = await platform.call(`/agents/${agent.id}/reset`, { key: lax.key, method: "POST" });
    expect(all.body).toMatchObject({ instructions: "", enable_memory: null, default_permission_mode: "approval" });
    const bad = await platform.call(`/agents/${agent.id}/reset`, { key: lax.key, method: "POST", body: { fields: ["status"] } });
    expect(bad.status).toBe(422);
  });
});

describe("GET /agents/{agent_id}/system-prompt", () => {
  it("assembles role, instructions, goals and the end-user's memories; bare drops the platform text", async () => {
    const agent = (await create(strict, { user_id: "hana", name: "Ava", role: "Analyst", instructions: "Be brief.", goals: "Clarity" })).body;
    await platform.database.prisma.platformMemory.create({
      data: {
        accountId: strict.id,
        endUserId: (await platform.database.prisma.platformEndUser.findFirstOrThrow({ where: { accountId: strict.id, externalId: "hana" } })).id,
        content: "Prefers metric units",
      },
    });
    const url = `/agents/${agent.id}/system-prompt`;
    const { body } = await platform.call(url, { key: strict.key, query: { user_id: "hana" } });
    expect(body.agent_id).toBe(agent.id);
    expect(body.prompt).toContain("You are Ava, an AI agent running on Inlay");
    expect(body.prompt).toContain("## Role\nAnalyst");
    expect(body.prompt).toContain("## Instructions\nBe brief.");
    expect(body.prompt).toContain("## Goals\nClarity");
    expect(body.prompt).toContain("- Prefers metric units");

    await platform.call(`/agents/${agent.id}`, { key: strict.key, method: "PATCH", query: { user_id: "hana" }, body: { prompt_profile: "bare", enable_memory: false } });
    const bare = await platform.call(url, { key: strict.key, query: { user_id: "hana" } });
    expect(bare.body.prompt_profile).toBe("bare");
    expect(bare.body.prompt.startsWith("You are Ava.")).toBe(true);
    expect(bare.body.prompt).not.toContain("Inlay");
    expect(bare.body.prompt).not.toContain("balance");
    expect(bare.body.prompt).not.toContain("metric units");
  });
});

describe("GET /agents/{agent_id}/documents", () => {
  it("lists the agent's documents and returns one by name, within the scope", async () => {
    const agent = (await create(lax, { name: "Writer" })).body;
    await platform.database.prisma.platformAgentDocument.create({
      data: { accountId: lax.id, agentId: agent.id, name: "report.md", summary: "Q3", content: "# Q3", sizeBytes: 4 },
    });
    const list = await platform.call(`/agents/${agent.id}/documents`, { key: lax.key });
    expect(list.body).toMatchObject({ has_more: false, data: [{ name: "report.md", summary: "Q3", size_bytes: 4, mime_type: "text/markdown" }] });
    const one = await platform.call(`/agents/${agent.id}/documents/report.md`, { key: lax.key });
    expect(one.body).toMatchObject({ name: "report.md", content: "# Q3" });
    expect((await platform.call(`/agents/${agent.id}/documents/missing.md`, { key: lax.key })).status).toBe(404);
    expect((await platform.call(`/agents/${agent.id}/documents`, { key: other.key })).status).toBe(404);
  });
});

describe("the earlier /teammates form", () => {
  it("creates, lists, reads, updates and archives the same resource", async () => {
    const account = await platform.signup({ require_end_user_id: false });
    const created = await platform.call("/teammates", { key: account.key, body: { name: "Mate", instructions: "Hi" } });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect((await platform.call(`/agents/${id}`, { key: account.key })).body.name).toBe("Mate");
    const list = await platform.call("/teammates", { key: account.key });
    expect(list.body.data.map((a: { id: number }) => a.id)).toEqual([id]);
    const patched = await platform.call(`/teammates/${id}`, { key: account.key, method: "PATCH", body: { name: "Mate 2" } });
    expect(patched.body.name).toBe("Mate 2");
    expect((await platform.call(`/teammates/${id}`, { key: account.key })).body.name).toBe("Mate 2");
    expect((await platform.call(`/teammates/${id}`, { key: account.key, method: "DELETE" })).status).toBe(204);
    expect((await platform.call(`/teammates/${id}`, { key: account.key })).status).toBe(404);
    expect((await platform.call("/teammates", { key: account.key, query: { include_archived: "true" } })).body.error.error_code).toBe(
      "unknown_query_parameter",
    );
  });
});
