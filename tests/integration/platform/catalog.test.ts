import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let account: Account;
beforeAll(async () => {
  platform = await startPlatform({ models: { openaiConfigured: true, anthropicConfigured: true, provider: "anthropic" } });
  account = await platform.signup({ require_end_user_id: false });
});
afterAll(() => platform.close());

describe("GET /models", () => {
  it("lists sim and each configured provider, with one default", async () => {
    const { status, body } = await platform.call("/models", { key: account.key });
    expect(status).toBe(200);
    const authors = new Set(body.data.map((model: { author: string }) => model.author));
    expect(authors).toEqual(new Set(["inlay", "openai", "anthropic"]));
    const defaults = body.data.filter((model: { default: boolean }) => model.default);
    expect(defaults).toHaveLength(1);
    expect(defaults[0].author).toBe("anthropic");
    for (const model of body.data) {
      expect(model).toEqual(
        expect.objectContaining({
          zdr_supported: expect.any(Boolean),
          zdr_providers: expect.any(Array),
          max_effort: expect.stringMatching(/^(high|max)$/),
          pricing: expect.objectContaining({ input_per_million: expect.stringMatching(/^\d+(\.\d+)?$/) }),
        }),
      );
    }
  });

  it("filters by author and curated, and honours limit 1-500", async () => {
    const openai = await platform.call("/models", { key: account.key, query: { author: "openai" } });
    expect(openai.body.data.every((model: { author: string }) => model.author === "openai")).toBe(true);
    expect(openai.body.data.length).toBeGreaterThan(1);
    const curated = await platform.call("/models", { key: account.key, query: { curated: "true" } });
    expect(curated.body.data.every((model: { curated: boolean }) => model.curated)).toBe(true);
    const one = await platform.call("/models", { key: account.key, query: { limit: 1 } });
    expect(one.body).toMatchObject({ has_more: true });
    expect(one.body.data).toHaveLength(1);
    expect((await platform.call("/models", { key: account.key, query: { limit: 501 } })).status).toBe(422);
    expect((await platform.call("/models", { key: account.key, query: { zdr: "maybe" } })).status).toBe(422);
  });

  it("offers only sim when no provider is configured", async () => {
    const bare = await startPlatform();
    try {
      const own = await bare.signup();
      const { body } = await bare.call("/models", { key: own.key });
      expect(body.data.map((model: { id: string; default: boolean }) => [model.id, model.default])).toEqual([["inlay/sim", true]]);
    } finally {
      await bare.close();
    }
  });

  it("needs a key", async () => {
    expect((await platform.call("/models")).status).toBe(401);
  });
});

describe("GET /built-in-tools", () => {
  it("lists the tools, the configurable four with their toggles", async () => {
    const { body } = await platform.call("/built-in-tools", { key: account.key });
    const byName = Object.fromEntries(body.data.map((tool: { name: string }) => [tool.name, tool]));
    expect(Object.keys(byName)).toEqual(["memory", "task_history", "task_setup", "save_lesson", "report_issue", "documents", "AskUserQuestion", "calculator"]);
    expect(byName.memory).toMatchObject({ configurable: true, agent_toggle: "enable_memory", run_toggle: "memory", enabled: true });
    expect(byName.calculator).toMatchObject({ configurable: false, enabled: true });
  });

  it("resolves enabled for an agent, in the agent's scope", async () => {
    const agent = (
      await platform.call("/agents", {
        key: account.key,
        body: { enable_memory: false, enable_feedback: false, disabled_builtin_tools: ["calculator"], user_id: "ivy" },
      })
    ).body;
    const { body } = await platform.call("/built-in-tools", { key: account.key, query: { teammate_id: agent.id, user_id: "ivy" } });
    const enabled = Object.fromEntries(body.data.map((tool: { name: string; enabled: boolean }) => [tool.name, tool.enabled]));
    expect(enabled).toEqual({ memory: false, task_history: true, task_setup: true, save_lesson: true, report_issue: false, documents: true, AskUserQuestion: true, calculator: false });

    const selfImproving = await platform.call(`/agents/${agent.id}`, {
      key: account.key,
      method: "PATCH",
      query: { user_id: "ivy" },
      body: { enable_self_improvement: true },
    });
    expect(selfImproving.status).toBe(200);
    const after = await platform.call("/built-in-tools", { key: account.key, query: { teammate_id: agent.id, user_id: "ivy" } });
    expect(after.body.data.find((tool: { name: string }) => tool.name === "memory").enabled).toBe(true);

    expect((await platform.call("/built-in-tools", { key: account.key, query: { teammate_id: agent.id } })).status).toBe(404);
  });

  it("is a catalogue read that strict mode exempts", async () => {
    const strictAccount = await platform.signup();
    expect((await platform.call("/built-in-tools", { key: strictAccount.key })).status).toBe(200);
  });
});

describe("GET /agent-templates", () => {
  it("needs no key and pages through three templates with questions and tasks", async () => {
    const { status, body } = await platform.call("/agent-templates");
    expect(status).toBe(200);
    expect(body.data).toHaveLength(3);
    for (const template of body.data) {
      expect(template.questions.length).toBeGreaterThan(0);
      expect(template.default_tasks.length).toBeGreaterThan(0);
      expect(template).toEqual(expect.objectContaining({ slug: expect.any(String), role: expect.any(String), goals: expect.any(String) }));
    }
    const first = await platform.call("/agent-templates", { query: { limit: 2 } });
    expect(first.body.has_more).toBe(true);
    const rest = await platform.call("/agent-templates", { query: { limit: 2, starting_after: first.body.data[1].slug } });
    expect(rest.body.data.map((t: { slug: string }) => t.slug)).toEqual([body.data[2].slug]);
    expect(rest.body.has_more).toBe(false);
    expect((await platform.call("/agent-templates", { query: { starting_after: "nope" } })).status).toBe(422);
  });
});
