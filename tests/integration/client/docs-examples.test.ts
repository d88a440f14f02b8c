// Every example of docs/client.md: the doc must contain each example file's region verbatim, and each
// file runs against a real platform with its results checked.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createPlatformClient, type PlatformClient } from "@inlay/core/platform-client";
import accountExample from "@/docs/examples/client/account";
import agentTemplatesExample from "@/docs/examples/client/agent-templates";
import agentWebhooksExample from "@/docs/examples/client/agent-webhooks";
import agentsExample from "@/docs/examples/client/agents";
import catalogExample from "@/docs/examples/client/catalog";
import errorsExample from "@/docs/examples/client/errors";
import issueReportsExample from "@/docs/examples/client/issue-reports";
import judgmentsExample from "@/docs/examples/client/judgments";
import keysExample from "@/docs/examples/client/keys";
import memoriesExample from "@/docs/examples/client/memories";
import modelConnectionsExample from "@/docs/examples/client/model-connections";
import permissionsExample from "@/docs/examples/client/permissions";
import plansExample from "@/docs/examples/client/plans";
import quickStart from "@/docs/examples/client/quick-start";
import approvalsExample from "@/docs/examples/client/run-approvals";
import runRepliesExample from "@/docs/examples/client/run-replies";
import runsExample from "@/docs/examples/client/runs";
import settingsExample from "@/docs/examples/client/settings";
import sessionsAndTeamsExample from "@/docs/examples/client/sessions-and-teams";
import signupExample from "@/docs/examples/client/signup";
import skillsExample from "@/docs/examples/client/skills";
import usageExample from "@/docs/examples/client/usage";
import usersExample from "@/docs/examples/client/users";
import valueExample from "@/docs/examples/client/value";
import { PASSWORD, startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { pollUntil } from "../../helpers/poll";

const root = path.resolve(import.meta.dirname, "../../..");
const examplesDir = path.join(root, "docs/examples/client");

/** The lines between `// #region docs` and `// #endregion`, without their common indentation. */
function region(source: string): string {
  const match = /\n([ \t]*)\/\/ #region docs\n([\s\S]*?)\n[ \t]*\/\/ #endregion/.exec(source);
  if (!match) throw new Error("no #region docs");
  const indent = match[1]!;
  return match[2]!
    .split("\n")
    .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
    .join("\n");
}

describe("docs/client.md", () => {
  it("includes every example's region verbatim, and only those", async () => {
    const doc = await readFile(path.join(root, "docs/client.md"), "utf8");
    const files = (await readdir(examplesDir)).filter((name) => name.endsWith(".ts")).sort();
    expect(files.length).toBeGreaterThanOrEqual(14);
    const regions = await Promise.all(files.map(async (name) => region(await readFile(path.join(examplesDir, name), "utf8"))));
    for (const [index, text] of regions.entries()) {
      expect(doc, `docs/client.md lacks the region of ${files[index]}`).toContain("```ts\n" + text + "\n```");
    }
    // Every ts block of the doc but the "Adding an endpoint" sketch is an example that runs.
    const blocks = [...doc.matchAll(/```ts\n([\s\S]*?)\n```/g)].map((match) => match[1]!);
    expect(blocks.filter((block) => !regions.includes(block))).toHaveLength(1);
  });
});

describe("the examples, run", () => {
  let platform: PlatformHarness;
  let account: Account;
  let client: PlatformClient;
  let agentId: number;

  beforeAll(async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    platform = await startPlatform();
    account = await platform.signup();
    client = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: account.key });
    agentId = (await client.forUser("user-42").agents.create({ name: "Docs", default_permission_mode: "autonomous" })).id;
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await platform.close();
  });

  it("quick start", async () => {
    expect(await quickStart(platform.baseUrl, account.key)).toBe("Echo: hello world");
    expect(console.log).toHaveBeenCalledWith(expect.stringMatching(/^run \d+: completed$/));
  });

  it("signup and token", async () => {
    const { api_key, rotated } = await signupExample(platform.baseUrl, `docs-${Date.now()}@example.test`);
    expect(api_key).toMatch(/^sk_inlay_/);
    expect(rotated).toMatch(/^sk_inlay_/);
    expect(rotated).not.toBe(api_key);
  });

  it("sessions and teams", async () => {
    const owner = await platform.signup({ password: PASSWORD });
    const { team, invite, revoked } = await sessionsAndTeamsExample(platform.baseUrl, owner.email, `bea-${Date.now()}@example.test`);
    expect(team).toMatchObject({ id: owner.id, role: "owner" });
    expect(invite).toMatchObject({ org_id: owner.id, role: "admin", status: "pending" });
    expect(revoked).toBe(1);
    expect((await platform.call("/verify/status", { key: owner.key })).status).toBe(200);
  });

  it("agents", async () => {
    const { agent, prompt, forced, documents, after } = await agentsExample(client);
    expect(prompt).toContain("Resolve the ticket");
    expect(prompt).not.toContain("## Skill:");
    expect(forced).toMatchObject({ skill: "summarize", prompt: expect.stringContaining("## Skill: ") });
    expect(documents).toEqual([]);
    expect(after).toMatchObject({ id: agent.id, status: "disabled", instructions: "", goals: "Resolve the ticket" });
  });

  it("agent webhooks", async () => {
    const { agent, status, runId, rotated } = await agentWebhooksExample(client);
    expect(agent.webhook_url).toMatch(/\/hooks\/agents\/[A-Za-z0-9_-]{43}$/);
    expect(status).toBe(202);
    expect(runId).toEqual(expect.any(Number));
    expect(rotated).toMatchObject({ id: agent.id, webhook_enabled: true, webhook_url: expect.stringMatching(/\/hooks\/agents\//) });
    expect(rotated.webhook_url).not.toBe(agent.webhook_url);
  });

  it("model connections", async () => {
    const { anthropic, data, preferred_default } = await modelConnectionsExample(client, "http://127.0.0.1:9/v1");
    expect(anthropic).toMatchObject({ provider: "anthropic", connected: true });
    expect(JSON.stringify(data)).not.toContain("sk-ant-");
    expect(data.find((entry) => entry.provider === "provA")?.connected).toBe(true);
    expect(preferred_default).toBe("anthropic");
  });

  it("agent templates", async () => {
    const { templates, agent } = await agentTemplatesExample(client);
    expect(agent).toMatchObject({ template: templates[0]!.slug, user_id: "user-42" });
  });

  it("runs", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"], shouldAdvanceTime: true, advanceTimeDelta: 200 });
    try {
      const result = await runsExample(client, agentId);
      expect(result.streamed).toBeGreaterThan(0);
      expect(result.run.status).toBe("completed");
      expect(result.frames.at(-1)).toMatchObject({ type: "done" });
      expect(result.turns).toEqual([
        { role: "user", text: "hello" },
        { role: "assistant", text: "Echo: hello" },
      ]);
      expect(result.recent.data.map((run) => run.id)).toContain(result.run.id);
      expect(result.needs_you).toBe(0);
      expect(result.latest_updated_at).not.toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it("approvals", async () => {
    const { runId, outcome, requests, waiting } = await approvalsExample(client, agentId);
    expect(requests.data).toMatchObject([{ tool_name: "calculator", status: "allowed" }]);
    expect(outcome).toBe("completed");
    expect((await client.forUser("user-42").runs.get(runId)).output).toBe('Tool calculator returned {"result":42}');
    expect(waiting).toBe(0);
  });

  it("replies, first session, attachments and the permission mode", async () => {
    const scoped = client.forUser("user-42");
    const { introId, runId, answer, guardedId } = await runRepliesExample(client, agentId);
    expect((await scoped.runs.get(introId)).output).toMatch(/^Echo: This is our first session\./);
    expect(console.log).toHaveBeenCalledWith("completed");
    expect(answer).toBe("Echo: and now?");
    const run = await pollUntil(() => scoped.runs.get(runId), (now) => now.status !== "running", `run ${runId} to end`);
    expect(run).toMatchObject({ status: "completed", interactive: false });
    expect(run.output).toBe("Echo: one more\nAttachment notes.txt (text/plain): the secret word is plover");
    expect(await scoped.runs.get(guardedId)).toMatchObject({
      status: "completed",
      permission_mode: "autonomous",
      output: 'Tool calculator returned {"result":42}',
    });
  });

  it("plans", async () => {
    // A fresh account: the free plan's limits would bind the other examples' runs.
    const fresh = await platform.signup();
    const { plans, usage, overage } = await plansExample(platform.baseUrl, createPlatformClient({ baseUrl: platform.baseUrl, apiKey: fresh.key }));
    expect(plans.map((plan) => plan.slug)).toEqual(["free", "individual", "pro", "max_5x", "max_20x"]);
    expect(usage).toMatchObject({ plan: "free", free_path_available: false });
    expect(overage).toBe(usage);
  });

  it("usage and billing", async () => {
    const { usage, mine, days, balance_micros, available_micros, transactions } = await usageExample(client);
    expect(usage.runs_used).toBeGreaterThan(0);
    expect(console.log).toHaveBeenCalledWith(`${usage.runs_used} runs, $${usage.cost_used}`);
    expect(mine.data.map((row) => row.user_id)).toEqual(["user-42"]);
    expect(days.buckets).toHaveLength(31);
    expect(balance_micros).toBe(transactions[0]!.balance_after_micros);
    expect(available_micros).toBeLessThanOrEqual(balance_micros);
    expect(transactions.some((entry) => entry.type === "debit")).toBe(true);
  });

  it("memories", async () => {
    const { memory, all, after } = await memoriesExample(client);
    expect(all).toEqual([memory]);
    expect(after).toEqual([]);
  });

  it("judgments", async () => {
    const { decision, check, saved, connection } = await judgmentsExample(client);
    expect(decision.answers?.map((answer) => answer.answer)).toEqual(["support", 1, "no"]);
    expect(check.claims?.[0]?.verdict).toBe("supported");
    expect(saved).toEqual(decision);
    expect(connection).toMatchObject({ connected: false, funding_source: "platform" });
  });

  it("skills", async () => {
    const { skill, data, run, after } = await skillsExample(client, { id: agentId });
    expect(skill.slug).toBe("weekly-report");
    expect(data).toContainEqual(expect.objectContaining({ slug: "weekly-report", kind: "skill", id: skill.id }));
    expect(data).toContainEqual(expect.objectContaining({ slug: "summarize", kind: "command" }));
    // Forcing a skill that did not exist would have been a 422: the run started, and echoes its message.
    const scoped = client.forUser("user-42");
    await expect.poll(async () => (await scoped.runs.get(run.id)).output).toBe("Echo: /weekly-report for the team");
    expect(after).toEqual([]);
  });

  it("value tracking", async () => {
    const scoped = client.forUser("user-42");
    const started = await scoped.runs.create({ teammate_id: agentId, message: "value", stream: false });
    await expect.poll(async () => (await scoped.runs.get(started.id)).status).toBe("completed");
    const { useCase, observation, report } = await valueExample(client, { id: started.id });
    expect(observation.status).toBe("pending");
    const row = report.use_cases.find((entry) => entry.use_case_id === useCase.id);
    const cost = Math.round(Number((await scoped.runs.get(started.id)).usage?.cost_usd) * 1_000_000);
    expect(row).toMatchObject({ confirmed_value_micros: 120_000_000, run_count: 1, cost_micros: cost, net_micros: 120_000_000 - cost });
  });

  it("issue reports", async () => {
    const scoped = client.forUser("user-42");
    const reporter = await scoped.runs.create({ teammate_id: agentId, message: '::tool report_issue {"summary":"The CRM timed out"}', stream: false });
    await expect.poll(async () => (await scoped.runs.get(reporter.id)).status).toBe("completed");
    const { open, everyone, after } = await issueReportsExample(client);
    expect(open.map((report) => report.summary)).toEqual(["The CRM timed out"]);
    expect(everyone.data.map((report) => report.id)).toContain(open[0]!.id);
    expect(after).toEqual([]);
  });

  it("permissions", async () => {
    const { allowed, data } = await permissionsExample(client);
    expect(data).toEqual([allowed]);
    expect((await client.forUser("user-42").permissions.list()).data).toEqual([]);
  });

  it("users", async () => {
    const { profile, everyone } = await usersExample(client);
    expect(profile).toMatchObject({ user_id: "user-7", company: "Acme", name: "Grace" });
    expect(everyone.map((user) => user.user_id)).toContain("user-7");
    await expect(client.users.get("user-7")).rejects.toMatchObject({ status: 404 });
  });

  it("settings", async () => {
    const { settings, capped } = await settingsExample(client);
    expect(capped).toEqual({ ...settings, per_end_user_run_limit: 100, per_end_user_rate_per_minute: null });
  });

  it("keys", async () => {
    const { ci, named, successor, defaultKey } = await keysExample(client);
    expect(named.map((key) => key.id)).toEqual([ci.id]);
    expect(successor.name).toBe("ci");
    expect(defaultKey.kind).toBe("default");
    expect(await client.keys.listAll()).toEqual([]);
  });

  it("models and built-in tools", async () => {
    const { defaultModel, tools } = await catalogExample(client, agentId);
    expect(defaultModel).toBe("inlay/sim");
    expect(tools.data.find((tool) => tool.name === "memory")?.enabled).toBe(true);
  });

  it("errors", async () => {
    expect(await errorsExample(client, agentId)).toBe("not found (or another end-user's)");
    expect(console.log).toHaveBeenCalledWith(expect.stringMatching(/^req_[0-9a-f]{32}$/));
  });

  it("account and verify (last: it deletes an account)", async () => {
    const own = await platform.signup();
    const mine = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: own.key });
    const { verified, dump } = await accountExample(mine);
    expect(verified).toBe(false);
    expect(dump.account.email).toBe(own.email);
    expect(await platform.database.prisma.platformMail.count({ where: { accountId: own.id } })).toBe(0);
    await expect(mine.verify.status()).rejects.toMatchObject({ status: 401 });
  });
});
