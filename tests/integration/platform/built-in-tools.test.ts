// The built-in tools in runs, end to end over HTTP with the sim model: which tools a run is offered
// (the agent's enable_*, the run's toggles and disabled_builtin_tools, read back with the sim's
// `::tools` directive) against what GET /built-in-tools says; the documents tool and GET
// /agents/{id}/documents; report_issue and /issue-reports; AskUserQuestion and the calculator.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlatformClient, NotFoundError } from "@inlay/core/platform-client";
import { DOCUMENT_MAX_BYTES } from "@inlay/core/schemas/agents";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let account: Account;
let stranger: Account;

beforeAll(async () => {
  platform = await startPlatform();
  account = await platform.signup({ require_end_user_id: false });
  stranger = await platform.signup({ require_end_user_id: false });
  // The table below starts more runs than an unverified account may.
  await platform.database.prisma.platformAccount.update({ where: { id: account.id }, data: { emailVerifiedAt: new Date() } });
});
afterAll(() => platform.close());

async function newAgent(fields: Record<string, unknown> = {}, userId = "u1", key = account.key) {
  const { status, body } = await platform.call("/agents", { key, body: { name: "Tools", user_id: userId, ...fields } });
  expect(status, JSON.stringify(body)).toBe(201);
  return body.id as number;
}

async function waitFor(runId: number, statuses: string[], userId = "u1", key = account.key) {
  return platform.waitForRun(key, runId, statuses, { user_id: userId });
}

async function runToEnd(body: Record<string, unknown>, userId = "u1", key = account.key) {
  const started = await platform.call("/runs", { key, query: { user_id: userId }, body: { stream: false, permission_mode: "autonomous", ...body } });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  return waitFor(started.body.id, ["completed", "failed", "awaiting_approval"], userId, key);
}

/** The tools the run's model was offered, from the sim's `Tools: a, b` line. */
function offered(output: string): string[] {
  const line = output.split("\n").find((text) => text.startsWith("Tools: "));
  if (!line) throw new Error(`no Tools line in ${JSON.stringify(output)}`);
  const names = line.slice("Tools: ".length);
  return names === "(none)" ? [] : names.split(", ");
}

async function catalogue(agentId: number, userId = "u1") {
  const { status, body } = await platform.call("/built-in-tools", { key: account.key, query: { teammate_id: agentId, user_id: userId } });
  expect(status).toBe(200);
  return body.data as { name: string; enabled: boolean; configurable: boolean; agent_toggle: string | null; run_toggle: string | null }[];
}

// What an interactive run of no task can be offered (save_lesson needs a task's run).
const RUN_TOOLS = ["AskUserQuestion", "calculator", "documents", "memory", "report_issue", "task_history", "task_setup"];
const without = (...names: string[]) => RUN_TOOLS.filter((name) => !names.includes(name));

describe("which built-in tools a run is offered", () => {
  const cases: { name: string; agent?: Record<string, unknown>; run?: Record<string, unknown>; tools: string[] }[] = [
    { name: "every tool by default", tools: RUN_TOOLS },
    { name: "enable_memory false", agent: { enable_memory: false }, tools: without("memory") },
    { name: "enable_history false", agent: { enable_history: false }, tools: without("task_history") },
    { name: "enable_task_setup_tools false", agent: { enable_task_setup_tools: false }, tools: without("task_setup") },
    { name: "enable_feedback false", agent: { enable_feedback: false }, tools: without("report_issue") },
    { name: "explicit true toggles", agent: { enable_memory: true, enable_history: true, enable_task_setup_tools: true, enable_feedback: true }, tools: RUN_TOOLS },
    {
      name: "self-improvement implies memory, history and task setup (not feedback)",
      agent: { enable_memory: false, enable_history: false, enable_task_setup_tools: false, enable_feedback: false, enable_self_improvement: true },
      tools: without("report_issue"),
    },
    { name: "enable_self_improvement false implies nothing", agent: { enable_memory: false, enable_self_improvement: false }, tools: without("memory") },
    { name: "run memory false", run: { memory: false }, tools: without("memory") },
    { name: "run history false", run: { history: false }, tools: without("task_history") },
    { name: "run task_setup_tools false", run: { task_setup_tools: false }, tools: without("task_setup") },
    { name: "run feedback false", run: { feedback: false }, tools: without("report_issue") },
    { name: "run toggles true keep the defaults", run: { memory: true, history: true, task_setup_tools: true, feedback: true }, tools: RUN_TOOLS },
    { name: "a run's true does not grant what the agent turned off", agent: { enable_memory: false, enable_feedback: false }, run: { memory: true, feedback: true }, tools: without("memory", "report_issue") },
    { name: "a run's false withholds what self-improvement implies", agent: { enable_self_improvement: true }, run: { memory: false, task_setup_tools: false }, tools: without("memory", "task_setup") },
    { name: "disabled_builtin_tools beats a run's true", agent: { disabled_builtin_tools: ["memory"] }, run: { memory: true }, tools: without("memory") },
    { name: "disabled_builtin_tools beats self-improvement", agent: { enable_self_improvement: true, disabled_builtin_tools: ["task_history"] }, tools: without("task_history") },
    ...RUN_TOOLS.map((tool) => ({ name: `disabled_builtin_tools [${tool}]`, agent: { disabled_builtin_tools: [tool] }, tools: without(tool) })),
    { name: "disabled_builtin_tools of several", agent: { disabled_builtin_tools: ["calculator", "documents", "AskUserQuestion"] }, tools: without("calculator", "documents", "AskUserQuestion") },
  ];

  it.each(cases)("$name", async ({ agent, run, tools }) => {
    const agentId = await newAgent(agent);
    const done = await runToEnd({ teammate_id: agentId, message: "::tools", ...run });
    expect(done.status).toBe("completed");
    expect(offered(done.output)).toEqual(tools);
    // GET /built-in-tools resolves the agent's side by the same function: without run toggles it says
    // exactly what such a run gets (save_lesson aside, which waits for a task's run).
    const listed = (await catalogue(agentId)).filter((tool) => tool.name !== "save_lesson");
    const enabled = listed.filter((tool) => tool.enabled).map((tool) => tool.name).sort();
    if (run === undefined) expect(enabled).toEqual(tools);
    else expect(tools.every((name) => enabled.includes(name))).toBe(true);
  });

  it("offers save_lesson in a task's runs only, unless disabled_builtin_tools names it", async () => {
    for (const [disabled, expected] of [
      [[], true],
      [["save_lesson"], false],
    ] as const) {
      const agentId = await newAgent({ disabled_builtin_tools: disabled });
      const task = await platform.call("/tasks", { key: account.key, query: { user_id: "u1" }, body: { teammate_id: agentId, instructions: "::tools", permission_mode: "autonomous" } });
      expect(task.status).toBe(201);
      const started = await platform.call(`/tasks/${task.body.id}/runs`, { key: account.key, query: { user_id: "u1" }, body: { stream: false } });
      const done = await waitFor(started.body.id, ["completed", "failed"]);
      expect(offered(done.output).includes("save_lesson")).toBe(expected);
      expect(offered(done.output).includes("memory")).toBe(true);
      expect((await catalogue(agentId)).find((tool) => tool.name === "save_lesson")!.enabled).toBe(expected);
    }
  });

  it("withholds AskUserQuestion from a reply (non-interactive), and a reply keeps the run's toggles", async () => {
    const agentId = await newAgent();
    const first = await runToEnd({ teammate_id: agentId, message: "::tools", feedback: false });
    expect(offered(first.output)).toEqual(without("report_issue"));
    const replied = await platform.call(`/runs/${first.id}/reply`, { key: account.key, query: { user_id: "u1" }, body: { message: "::tools", stream: false } });
    expect(replied.status).toBe(200);
    const done = await waitFor(first.id, ["completed", "failed"]);
    expect(offered(done.output)).toEqual(without("report_issue", "AskUserQuestion"));
  });

  it("lists documents in GET /built-in-tools as a non-configurable tool, and refuses unknown names", async () => {
    const agentId = await newAgent();
    expect((await catalogue(agentId)).find((tool) => tool.name === "documents")).toMatchObject({
      configurable: false,
      agent_toggle: null,
      run_toggle: null,
      enabled: true,
    });
    const refused = await platform.call(`/agents/${agentId}`, { key: account.key, method: "PATCH", query: { user_id: "u1" }, body: { disabled_builtin_tools: ["documents", "write_file"] } });
    expect(refused.status).toBe(422);
    expect(refused.body.error.message).toMatch(/^disabled_builtin_tools: unknown built-in tool\(s\): write_file/);
  });
});

describe("the documents tool", () => {
  const documents = (agentId: number, userId: string, key = account.key) =>
    platform.call(`/agents/${agentId}/documents`, { key, query: { user_id: userId } });

  it("writes a document in the run's scope that GET /agents/{id}/documents reads, and no one else", async () => {
    const agentId = await newAgent({}, "writer");
    const write = JSON.stringify({ action: "write", name: "plan.md", content: "# Plan\nStep one", summary: "The plan" });
    const done = await runToEnd({ teammate_id: agentId, message: `::tool documents ${write}` }, "writer");
    expect(done.status).toBe("completed");
    expect(done.output).toMatch(/^Tool documents returned \{"written":true,/);

    const list = await documents(agentId, "writer");
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      expect.objectContaining({ name: "plan.md", summary: "The plan", mime_type: "text/markdown", size_bytes: 15, source: "agent", source_run_id: done.id }),
    ]);
    const one = await platform.call(`/agents/${agentId}/documents/plan.md`, { key: account.key, query: { user_id: "writer" } });
    expect(one.body).toMatchObject({ name: "plan.md", content: "# Plan\nStep one" });

    // Another end-user, the account level and another account: the agent is not theirs (404).
    expect((await documents(agentId, "someone-else")).status).toBe(404);
    expect((await platform.call(`/agents/${agentId}/documents`, { key: account.key })).status).toBe(404);
    expect((await documents(agentId, "writer", stranger.key)).status).toBe(404);
    expect((await platform.call(`/agents/${agentId}/documents/plan.md`, { key: account.key, query: { user_id: "someone-else" } })).status).toBe(404);
    // Another end-user's agent's runs do not see it.
    const otherAgent = await newAgent({}, "someone-else");
    const read = await runToEnd({ teammate_id: otherAgent, message: '::tool documents {"action":"read","name":"plan.md"}' }, "someone-else");
    expect(read.output).toBe('Tool documents failed: no document named "plan.md"');
    expect((await documents(otherAgent, "someone-else")).body.data).toEqual([]);
  });

  it("replaces a document of the same name, reads and lists in a later run", async () => {
    const agentId = await newAgent({}, "writer2");
    await runToEnd({ teammate_id: agentId, message: '::tool documents {"action":"write","name":"notes.txt","content":"one","mime_type":"text/plain"}' }, "writer2");
    const later = await runToEnd(
      {
        teammate_id: agentId,
        message: [
          '::tool documents {"action":"write","name":"notes.txt","content":"two\\nlines","mime_type":"text/plain"}',
          '::tool documents {"action":"read","name":"notes.txt"}',
          '::tool documents {"action":"list"}',
        ].join("\n"),
      },
      "writer2",
    );
    const [, read, list] = later.output.split("\n").filter((line: string) => line.startsWith("Tool documents"));
    expect(read).toContain('"content":"two\\nlines"');
    expect(JSON.parse(list.replace("Tool documents returned ", "")).documents).toEqual([
      expect.objectContaining({ name: "notes.txt", summary: "two", mime_type: "text/plain", size_bytes: 9, source_run_id: later.id }),
    ]);
    expect((await documents(agentId, "writer2")).body.data).toHaveLength(1);
  });

  it("refuses bad names, oversized or invalid content and a missing field as tool errors", async () => {
    const agentId = await newAgent({}, "writer3");
    const big = "x".repeat(DOCUMENT_MAX_BYTES + 1);
    const attempts = [
      ['{"action":"write","name":"../etc/passwd","content":"x"}', /^Tool documents failed: .*name/],
      ['{"action":"write","name":"a b","content":"x"}', /^Tool documents failed: .*name/],
      [`{"action":"write","name":"big.md","content":"${big}"}`, new RegExp(`^Tool documents failed: content: must be at most ${DOCUMENT_MAX_BYTES} bytes`)],
      ['{"action":"write","name":"data.json","content":"{oops","mime_type":"application/json"}', /^Tool documents failed: content: must be valid JSON/],
      ['{"action":"write","name":"x.md","content":"x","mime_type":"application/pdf"}', /^Tool documents failed: .*mime_type/],
      ['{"action":"write","name":"empty.md"}', /^Tool documents failed: content: is required/],
      ['{"action":"read"}', /^Tool documents failed: name: is required/],
    ] as const;
    for (const [input, error] of attempts) {
      const done = await runToEnd({ teammate_id: agentId, message: `::tool documents ${input}` }, "writer3");
      expect(done.status, input.slice(0, 80)).toBe("completed");
      expect(done.output, input.slice(0, 80)).toMatch(error);
    }
    expect((await documents(agentId, "writer3")).body.data).toEqual([]);
  });
});

describe("report_issue and /issue-reports", () => {
  const reports = (query: Record<string, string | number | boolean>, key = account.key) => platform.call("/issue-reports", { key, query });

  it("stores the report in the run's scope, still mails the owner, and lists it for the vendor", async () => {
    const agentId = await newAgent({}, "reporter");
    const run = await runToEnd({ teammate_id: agentId, message: '::tool report_issue {"summary":"the export is stuck","details":"since Monday"}' }, "reporter");
    expect(run.output).toMatch(/^Tool report_issue returned \{"reported":true,"report_id":\d+\}$/);

    const mail = await platform.database.prisma.platformMail.findFirstOrThrow({ where: { accountId: account.id, kind: "agent_issue" } });
    expect(mail).toMatchObject({ to: account.email, subject: "Agent reported an issue: the export is stuck" });
    expect(mail.text).toContain(`Run ${run.id} reported`);

    const listed = await reports({ user_id: "reporter" });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      data: [
        {
          id: expect.any(Number),
          teammate_id: agentId,
          run_id: run.id,
          user_id: "reporter",
          summary: "the export is stuck",
          details: "since Monday",
          status: "open",
          created_at: expect.any(String),
          resolved_at: null,
        },
      ],
      has_more: false,
    });
    const reportId = listed.body.data[0].id;
    expect((await reports({ user_id: "reporter", teammate_id: agentId })).body.data).toHaveLength(1);

    // Scoped like runs: the account level sees it only with include_end_users; others never.
    expect((await reports({})).body.data.map((report: { id: number }) => report.id)).not.toContain(reportId);
    expect((await reports({ include_end_users: true })).body.data.map((report: { id: number }) => report.id)).toContain(reportId);
    expect((await reports({ user_id: "other" })).body.data).toEqual([]);
    expect((await reports({ user_id: "reporter" }, stranger.key)).body.data).toEqual([]);
    expect((await reports({ include_end_users: true }, stranger.key)).body.data).toEqual([]);
    expect((await reports({ user_id: "other", teammate_id: agentId })).status).toBe(404);
    expect((await platform.call(`/issue-reports/${reportId}`, { key: account.key, query: { user_id: "other" } })).status).toBe(404);
    expect((await platform.call(`/issue-reports/${reportId}`, { key: stranger.key, query: { user_id: "reporter" } })).status).toBe(404);
    expect((await platform.call(`/issue-reports/${reportId}`, { key: account.key, method: "PATCH", query: { user_id: "other" }, body: { status: "resolved" } })).status).toBe(404);

    // Resolve (once: resolved_at stays the first time), filter by status, reopen.
    const resolved = await platform.call(`/issue-reports/${reportId}`, { key: account.key, method: "PATCH", query: { user_id: "reporter" }, body: { status: "resolved" } });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ id: reportId, status: "resolved", resolved_at: expect.any(String) });
    const again = await platform.call(`/issue-reports/${reportId}`, { key: account.key, method: "PATCH", query: { user_id: "reporter" }, body: { status: "resolved" } });
    expect(again.body.resolved_at).toBe(resolved.body.resolved_at);
    expect((await reports({ user_id: "reporter", status: "open" })).body.data).toEqual([]);
    expect((await reports({ user_id: "reporter", status: "resolved" })).body.data).toHaveLength(1);
    const reopened = await platform.call(`/issue-reports/${reportId}`, { key: account.key, method: "PATCH", query: { user_id: "reporter" }, body: { status: "open" } });
    expect(reopened.body).toMatchObject({ status: "open", resolved_at: null });
    expect((await platform.call(`/issue-reports/${reportId}`, { key: account.key, query: { user_id: "reporter" } })).body).toMatchObject({ id: reportId, status: "open" });
  });

  it("pages newest first, and refuses bad input with 422 naming the field", async () => {
    const agentId = await newAgent({}, "pager");
    await runToEnd({ teammate_id: agentId, message: ['::tool report_issue {"summary":"first"}', '::tool report_issue {"summary":"second"}'].join("\n") }, "pager");
    const first = await reports({ user_id: "pager", limit: 1 });
    expect(first.body).toMatchObject({ data: [{ summary: "second", details: null }], has_more: true });
    const next = await reports({ user_id: "pager", limit: 1, starting_after: first.body.data[0].id });
    expect(next.body).toMatchObject({ data: [{ summary: "first" }], has_more: false });

    const badStatus = await reports({ user_id: "pager", status: "closed" });
    expect(badStatus.status).toBe(422);
    expect(badStatus.body.error.message).toMatch(/^status/);
    const badPatch = await platform.call(`/issue-reports/${first.body.data[0].id}`, { key: account.key, method: "PATCH", query: { user_id: "pager" }, body: { status: "done" } });
    expect(badPatch.status).toBe(422);
    expect(badPatch.body.error.message).toMatch(/^status/);
    expect((await platform.call("/issue-reports", { query: { user_id: "pager" } })).status).toBe(401);
  });

  it("is in the typed client: client.issueReports list, get and update", async () => {
    const agentId = await newAgent({}, "client-user");
    await runToEnd({ teammate_id: agentId, message: '::tool report_issue {"summary":"from the client test"}' }, "client-user");
    const client = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: account.key, maxRetries: 0 });
    const scoped = client.forUser("client-user");
    const [report] = await scoped.issueReports.listAll({ teammate_id: agentId });
    expect(report).toMatchObject({ summary: "from the client test", user_id: "client-user", status: "open" });
    expect((await client.issueReports.list({ include_end_users: true })).data.map((item) => item.id)).toContain(report!.id);
    expect(await scoped.issueReports.get(report!.id)).toEqual(report);
    expect(await scoped.issueReports.update(report!.id, { status: "resolved" })).toMatchObject({ id: report!.id, status: "resolved" });
    await expect(client.forUser("nobody").issueReports.get(report!.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("refuses a blank summary as a tool error and files nothing", async () => {
    const agentId = await newAgent({}, "blank");
    const done = await runToEnd({ teammate_id: agentId, message: '::tool report_issue {"summary":"  "}' }, "blank");
    expect(done.output).toMatch(/^Tool report_issue failed: /);
    expect((await reports({ user_id: "blank" })).body.data).toEqual([]);
  });
});

describe("AskUserQuestion and calculator in a run", () => {
  it("AskUserQuestion pauses the run with a question; /answer resumes it with the answer", async () => {
    const agentId = await newAgent({}, "asker");
    const paused = await runToEnd({ teammate_id: agentId, message: "::ask Which colour? | Red | Blue" }, "asker");
    expect(paused.status).toBe("awaiting_approval");
    const requests = await platform.call(`/runs/${paused.id}/permissions`, { key: account.key, query: { user_id: "asker" } });
    expect(requests.body.data).toEqual([expect.objectContaining({ kind: "question", tool_name: "AskUserQuestion", status: "pending" })]);
    const answered = await platform.call(`/runs/${paused.id}/answer`, { key: account.key, query: { user_id: "asker" }, body: { answers: { "Which colour?": "Blue" } } });
    expect(answered.status).toBe(200);
    const done = await waitFor(paused.id, ["completed", "failed"], "asker");
    expect(done).toMatchObject({ status: "completed", output: "You chose Blue" });
  });

  it("calculator answers exactly, and refuses what is not arithmetic as a tool error", async () => {
    const agentId = await newAgent({}, "counter");
    const done = await runToEnd(
      {
        teammate_id: agentId,
        message: [
          '::tool calculator {"expression":"(2+3)*4^2 - 10 % 4"}',
          '::tool calculator {"expression":"0.1 + 0.2"}',
          '::tool calculator {"expression":"1/3"}',
          '::tool calculator {"expression":"1/0"}',
          '::tool calculator {"expression":"process.exit()"}',
        ].join("\n"),
      },
      "counter",
    );
    expect(done.status).toBe("completed");
    expect(done.output).toBe(
      [
        'Tool calculator returned {"result":78}',
        'Tool calculator returned {"result":0.3}',
        'Tool calculator returned {"result":0.3333333333333333,"exact":"1/3"}',
        "Tool calculator failed: division by zero", 'Tool calculator failed: unexpected "p"'].join("\n"),
    );
  });
});
