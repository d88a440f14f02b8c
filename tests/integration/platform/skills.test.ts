// Skills: /skills CRUD, the / picker (GET /skills/invokable), forcing a skill on a run (`skill` or a
// leading /slug, also on replies) and GET /agents/{id}/system-prompt?skill=.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SKILL_BODY_MAX_CHARS } from "@inlay/core/schemas/skills";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { pollFor } from "../../helpers/poll";

let platform: PlatformHarness;
let strict: Account;
let lax: Account;
let other: Account;
beforeAll(async () => {
  platform = await startPlatform();
  strict = await platform.signup();
  lax = await platform.signup({ require_end_user_id: false });
  other = await platform.signup({ require_end_user_id: false });
});
afterAll(() => platform.close());

let counter = 0;
const freshUser = () => `skill-user-${++counter}`;

type Query = Record<string, string | number | undefined>;

async function createSkill(key: string, body: Record<string, unknown>, query: Query = {}) {
  const response = await platform.call("/skills", { key, body, query });
  if (response.status !== 201) throw new Error(`POST /skills: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: number; slug: string; name: string; status: string };
}

async function createAgent(key: string, body: Record<string, unknown> = {}) {
  const response = await platform.call("/agents", { key, body: { name: "Skilled", ...body } });
  if (response.status !== 201) throw new Error(`POST /agents: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: number };
}

const skill = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `${name}, described`,
  body: `Playbook of ${name}.`,
  ...extra,
});

async function runOutput(key: string, body: Record<string, unknown>, query: Query = {}) {
  const started = await platform.call("/runs", { key, query, body: { permission_mode: "autonomous", stream: false, ...body } });
  if (started.status !== 200) throw new Error(`POST /runs: ${started.status} ${JSON.stringify(started.body)}`);
  return waitForOutput(key, started.body.id, query);
}

async function waitForOutput(key: string, runId: number, query: Query = {}) {
  const run = await platform.waitForRun(key, runId, ["completed", "failed"], query);
  if (run.status !== "completed") throw new Error(`run ${runId} failed: ${run.error}`);
  return { id: runId, output: run.output as string };
}

describe("POST /skills", () => {
  it("creates an account-level skill with a slug derived from its name", async () => {
    const { status, body } = await platform.call("/skills", {
      key: lax.key,
      body: { name: "  Weekly Report: Café edition!  ", description: "Sums up the week", body: "List the wins.\nThen the risks." },
    });
    expect(status).toBe(201);
    expect(body).toEqual({
      id: expect.any(Number),
      slug: "weekly-report-cafe-edition",
      name: "Weekly Report: Café edition!",
      description: "Sums up the week",
      body: "List the wins.\nThen the risks.",
      scope: "account",
      teammate_id: null,
      user_id: null,
      status: "active",
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    expect((await platform.call(`/skills/${body.id}`, { key: lax.key })).body).toEqual(body);
  });

  it("creates an end-user's skill from user_id in the body or the query string, and refuses two different ones", async () => {
    const userId = freshUser();
    const inBody = await createSkill(strict.key, skill("From body", { user_id: userId }));
    expect(inBody).toMatchObject({ user_id: userId, slug: "from-body" });
    const inQuery = await createSkill(strict.key, skill("From query"), { user_id: userId });
    expect(inQuery).toMatchObject({ user_id: userId });
    const clash = await platform.call("/skills", { key: strict.key, query: { user_id: userId }, body: skill("Clash", { user_id: freshUser() }) });
    expect(clash.status).toBe(422);
    expect(clash.body.error.message).toMatch(/^user_id: /);
  });

  it("ties a scope-agent skill to an agent of the same scope (scope agent is the default with teammate_id)", async () => {
    const userId = freshUser();
    const agent = await createAgent(strict.key, { user_id: userId });
    const explicit = await createSkill(strict.key, skill("Agent only", { scope: "agent", teammate_id: agent.id, user_id: userId }));
    expect(explicit).toMatchObject({ scope: "agent", teammate_id: agent.id });
    const implied = await createSkill(strict.key, skill("Agent implied", { teammate_id: agent.id, user_id: userId }));
    expect(implied).toMatchObject({ scope: "agent", teammate_id: agent.id });

    // Another end-user's agent, an account-level agent from an end-user's scope, another account's agent: 404.
    for (const [key, teammateId, user] of [
      [strict.key, agent.id, freshUser()],
      [lax.key, (await createAgent(lax.key)).id, freshUser()],
      [other.key, agent.id, undefined],
    ] as const) {
      const response = await platform.call("/skills", { key, body: skill("Elsewhere", { teammate_id: teammateId, user_id: user }) });
      expect(response.status).toBe(404);
      expect(response.body.error.message).toBe(`agent ${teammateId} not found`);
    }
  });

  it.each([
    ["name", { description: "d", body: "b" }, /^name: /],
    ["description", { name: "n", body: "b" }, /^description: /],
    ["body", { name: "n", description: "d" }, /^body: /],
    ["a blank name", { name: "   ", description: "d", body: "b" }, /^name: must not be blank/],
    ["a name without letters or digits", { name: "!!! ???", description: "d", body: "b" }, /^name: must contain a letter or a digit/],
    ["a name over 100 characters", { name: "n".repeat(101), description: "d", body: "b" }, /^name: must be at most 100/],
    ["a blank description", { name: "n", description: " ", body: "b" }, /^description: must not be blank/],
    ["a description over 1,000 characters", { name: "n", description: "d".repeat(1_001), body: "b" }, /^description: must be at most 1000/],
    ["a blank body", { name: "n", description: "d", body: " \n " }, /^body: must not be blank/],
    [`a body over ${SKILL_BODY_MAX_CHARS} characters`, { name: "n", description: "d", body: "b".repeat(SKILL_BODY_MAX_CHARS + 1) }, /^body: must be at most 20000/],
    ["an unknown scope", { name: "n", description: "d", body: "b", scope: "team" }, /^scope: must be account or agent/],
    ["scope agent without teammate_id", { name: "n", description: "d", body: "b", scope: "agent" }, /^teammate_id: is required when scope is agent/],
    ["scope account with teammate_id", { name: "n", description: "d", body: "b", scope: "account", teammate_id: 1 }, /^teammate_id: is only accepted/],
    ["a teammate_id that is not an integer", { name: "n", description: "d", body: "b", teammate_id: "7" }, /^teammate_id: must be an integer/],
    ["a blank user_id", { name: "n", description: "d", body: "b", user_id: " " }, /^user_id: /],
  ])("answers 422 naming the field for %s", async (_, body, message) => {
    const response = await platform.call("/skills", { key: lax.key, body });
    expect(response.status).toBe(422);
    expect(response.body.error.type).toBe("validation_error");
    expect(response.body.error.message).toMatch(message);
  });

  it("accepts a body of exactly the limit", async () => {
    const created = await createSkill(lax.key, skill("Longest", { body: "b".repeat(SKILL_BODY_MAX_CHARS) }));
    expect(created.slug).toBe("longest");
  });

  it("answers 409 skill_exists for a slug the scope already has, whatever the skill's scope", async () => {
    const userId = freshUser();
    await createSkill(strict.key, skill("Triage Bugs", { user_id: userId }));
    const agent = await createAgent(strict.key, { user_id: userId });
    for (const body of [skill("triage bugs", { user_id: userId }), skill("Triage  bugs!", { user_id: userId, teammate_id: agent.id })]) {
      const response = await platform.call("/skills", { key: strict.key, body });
      expect(response.status).toBe(409);
      expect(response.body.error).toMatchObject({ type: "conflict_error", error_code: "skill_exists" });
    }
    // The same slug in another scope is another skill.
    await createSkill(strict.key, skill("Triage bugs", { user_id: freshUser() }));
    await createSkill(lax.key, skill("Triage bugs"));
  });

  it("refuses an account-level skill in strict mode (422 end_user_id_required)", async () => {
    const response = await platform.call("/skills", { key: strict.key, body: skill("No scope") });
    expect(response.status).toBe(422);
    expect(response.body.error.error_code).toBe("end_user_id_required");
  });

  it("answers 401 without a key", async () => {
    expect((await platform.call("/skills", { body: skill("Anonymous") })).status).toBe(401);
  });
});

describe("GET /skills", () => {
  it("lists the scope's skills newest first, paged, and nothing of another scope", async () => {
    const userId = freshUser();
    const created = [];
    for (const name of ["One", "Two", "Three"]) created.push(await createSkill(strict.key, skill(name), { user_id: userId }));
    await createSkill(strict.key, skill("Someone else's"), { user_id: freshUser() });

    const first = await platform.call("/skills", { key: strict.key, query: { user_id: userId, limit: 2 } });
    expect(first.status).toBe(200);
    expect(first.body.data.map((row: { name: string }) => row.name)).toEqual(["Three", "Two"]);
    expect(first.body.has_more).toBe(true);
    const rest = await platform.call("/skills", { key: strict.key, query: { user_id: userId, limit: 2, starting_after: first.body.data[1].id } });
    expect(rest.body).toEqual({ data: [expect.objectContaining({ id: created[0]!.id, name: "One" })], has_more: false });
  });

  it("keeps the account level and end-users apart", async () => {
    const account = await createSkill(lax.key, skill("Account wide"));
    const userId = freshUser();
    const own = await createSkill(lax.key, skill("Own"), { user_id: userId });
    const ids = async (query: Query, key = lax.key) =>
      ((await platform.call("/skills", { key, query: { ...query, limit: 100 } })).body.data as { id: number }[]).map((row) => row.id);
    expect(await ids({ user_id: userId })).toEqual([own.id]);
    expect(await ids({})).toContain(account.id);
    expect(await ids({})).not.toContain(own.id);
    expect(await ids({}, other.key)).not.toContain(account.id);
  });

  it("answers 422 in strict mode without user_id", async () => {
    const response = await platform.call("/skills", { key: strict.key });
    expect(response.status).toBe(422);
    expect(response.body.error.error_code).toBe("end_user_id_required");
  });
});

describe("GET, PATCH and DELETE /skills/{skill_id}", () => {
  it("is 404 from another end-user, the account level, another account, or for an unknown id", async () => {
    const userId = freshUser();
    const mine = await createSkill(lax.key, skill("Private"), { user_id: userId });
    const accountLevel = await createSkill(lax.key, skill("Shared"));
    const attempts: [string, number, Query][] = [
      [lax.key, mine.id, { user_id: freshUser() }],
      [lax.key, mine.id, {}],
      [lax.key, accountLevel.id, { user_id: userId }],
      [other.key, mine.id, { user_id: userId }],
      [lax.key, 2_000_000_000, {}],
    ];
    for (const [key, id, query] of attempts) {
      expect((await platform.call(`/skills/${id}`, { key, query })).status).toBe(404);
      expect((await platform.call(`/skills/${id}`, { key, query, method: "PATCH", body: { status: "disabled" } })).status).toBe(404);
      expect((await platform.call(`/skills/${id}`, { key, query, method: "DELETE" })).status).toBe(404);
    }
    expect((await platform.call(`/skills/${mine.id}`, { key: lax.key, query: { user_id: userId } })).body.status).toBe("active");
    expect((await platform.call(`/skills/${accountLevel.id}`, { key: lax.key })).body.status).toBe("active");
  });

  it("updates name (and so slug), description, body and status", async () => {
    const userId = freshUser();
    const created = await createSkill(strict.key, skill("Draft"), { user_id: userId });
    const updated = await platform.call(`/skills/${created.id}`, {
      key: strict.key,
      method: "PATCH",
      query: { user_id: userId },
      body: { name: "Final Draft", description: "New", body: "New playbook.", status: "disabled" },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: created.id, name: "Final Draft", slug: "final-draft", description: "New", body: "New playbook.", status: "disabled" });
    const unchanged = await platform.call(`/skills/${created.id}`, { key: strict.key, method: "PATCH", query: { user_id: userId } });
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toMatchObject({ slug: "final-draft", status: "disabled" });
    const enabled = await platform.call(`/skills/${created.id}`, { key: strict.key, method: "PATCH", query: { user_id: userId }, body: { status: "active" } });
    expect(enabled.body.status).toBe("active");
  });

  it("answers 409 for a new name whose slug is taken and 422 for bad fields", async () => {
    const userId = freshUser();
    await createSkill(strict.key, skill("Taken"), { user_id: userId });
    const mine = await createSkill(strict.key, skill("Mine"), { user_id: userId });
    const patch = (body: unknown) => platform.call(`/skills/${mine.id}`, { key: strict.key, method: "PATCH", query: { user_id: userId }, body });
    const taken = await patch({ name: "TAKEN" });
    expect(taken.status).toBe(409);
    expect(taken.body.error.error_code).toBe("skill_exists");
    for (const [body, message] of [
      [{ status: "paused" }, /^status: must be active or disabled/],
      [{ name: "" }, /^name: /],
      [{ body: "b".repeat(SKILL_BODY_MAX_CHARS + 1) }, /^body: /],
      [{ description: "   " }, /^description: /],
    ] as const) {
      const response = await patch(body);
      expect(response.status).toBe(422);
      expect(response.body.error.message).toMatch(message);
    }
    expect((await platform.call(`/skills/${mine.id}`, { key: strict.key, query: { user_id: userId } })).body).toMatchObject({ name: "Mine", status: "active" });
  });

  it("deletes with 204, after which the skill is gone", async () => {
    const userId = freshUser();
    const created = await createSkill(strict.key, skill("Short lived"), { user_id: userId });
    const deleted = await platform.call(`/skills/${created.id}`, { key: strict.key, method: "DELETE", query: { user_id: userId } });
    expect(deleted.status).toBe(204);
    expect((await platform.call(`/skills/${created.id}`, { key: strict.key, query: { user_id: userId } })).status).toBe(404);
    // Its slug is free again.
    await createSkill(strict.key, skill("Short lived"), { user_id: userId });
  });
});

describe("GET /skills/invokable", () => {
  const slugsAndKinds = (body: { data: { slug: string; kind: string }[] }) => body.data.map((entry) => `${entry.kind}:${entry.slug}`);

  it("lists the platform commands and the active custom skills offered to the agent, sorted by slug", async () => {
    const userId = freshUser();
    const agent = await createAgent(strict.key, { user_id: userId });
    const otherAgent = await createAgent(strict.key, { user_id: userId });
    const account = await createSkill(strict.key, skill("Account wide"), { user_id: userId });
    await createSkill(strict.key, skill("Only mine", { teammate_id: agent.id }), { user_id: userId });
    await createSkill(strict.key, skill("Only the other", { teammate_id: otherAgent.id }), { user_id: userId });
    const off = await createSkill(strict.key, skill("Switched off"), { user_id: userId });
    await platform.call(`/skills/${off.id}`, { key: strict.key, method: "PATCH", query: { user_id: userId }, body: { status: "disabled" } });
    await createSkill(strict.key, skill("Another user's"), { user_id: freshUser() });

    const response = await platform.call("/skills/invokable", { key: strict.key, query: { user_id: userId, teammate_id: agent.id } });
    expect(response.status).toBe(200);
    expect(response.body.has_more).toBe(false);
    expect(slugsAndKinds(response.body)).toEqual(["skill:account-wide", "skill:only-mine", "command:plan", "command:review", "command:summarize"]);
    expect(response.body.data[0]).toEqual({ slug: "account-wide", name: "Account wide", description: "Account wide, described", kind: "skill", id: account.id });
    expect(response.body.data[2]).toEqual({ slug: "plan", name: "Plan", description: expect.any(String), kind: "command", id: null });

    // Without teammate_id: the scope's account-wide skills and the commands.
    const general = await platform.call("/skills/invokable", { key: strict.key, query: { user_id: userId } });
    expect(slugsAndKinds(general.body)).toEqual(["skill:account-wide", "command:plan", "command:review", "command:summarize"]);
  });

  it("offers no platform command to a bare agent, and a custom skill takes a command's place", async () => {
    const userId = freshUser();
    const bare = await createAgent(strict.key, { user_id: userId, prompt_profile: "bare" });
    const custom = await createSkill(strict.key, skill("Summarize", { body: "Our own way of summing up." }), { user_id: userId });
    const bareList = await platform.call("/skills/invokable", { key: strict.key, query: { user_id: userId, teammate_id: bare.id } });
    expect(slugsAndKinds(bareList.body)).toEqual(["skill:summarize"]);
    const general = await platform.call("/skills/invokable", { key: strict.key, query: { user_id: userId } });
    expect(slugsAndKinds(general.body)).toEqual(["command:plan", "command:review", "skill:summarize"]);
    expect(general.body.data[2].id).toBe(custom.id);
  });

  it("takes the agent's own scope without user_id in a lax account, and is 404 for an agent of no scope it can see", async () => {
    const userId = freshUser();
    const agent = await createAgent(lax.key, { user_id: userId });
    await createSkill(lax.key, skill("Hers"), { user_id: userId });
    const inherited = await platform.call("/skills/invokable", { key: lax.key, query: { teammate_id: agent.id } });
    expect(slugsAndKinds(inherited.body)).toContain("skill:hers");
    expect((await platform.call("/skills/invokable", { key: lax.key, query: { teammate_id: agent.id, user_id: freshUser() } })).status).toBe(404);
    expect((await platform.call("/skills/invokable", { key: other.key, query: { teammate_id: agent.id } })).status).toBe(404);
  });

  it("answers 422 in strict mode without user_id and for a bad teammate_id", async () => {
    expect((await platform.call("/skills/invokable", { key: strict.key })).status).toBe(422);
    const bad = await platform.call("/skills/invokable", { key: lax.key, query: { teammate_id: "abc" } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.message).toMatch(/^teammate_id: /);
  });
});

describe("forcing a skill on a run", () => {
  let userId: string;
  let agentId: number;
  let siblingId: number;
  beforeAll(async () => {
    userId = freshUser();
    agentId = (await createAgent(strict.key, { user_id: userId })).id;
    siblingId = (await createAgent(strict.key, { user_id: userId })).id;
    await createSkill(strict.key, skill("Weekly report", { body: "List the wins.\nThen the risks." }), { user_id: userId });
    await createSkill(strict.key, skill("For the sibling", { teammate_id: siblingId, body: "Sibling playbook." }), { user_id: userId });
    const off = await createSkill(strict.key, skill("Retired"), { user_id: userId });
    await platform.call(`/skills/${off.id}`, { key: strict.key, method: "PATCH", query: { user_id: userId }, body: { status: "disabled" } });
  });
  const run = (body: Record<string, unknown>) => runOutput(strict.key, { teammate_id: agentId, ...body }, { user_id: userId });
  const refused = async (body: Record<string, unknown>) => {
    const response = await platform.call("/runs", { key: strict.key, query: { user_id: userId }, body: { teammate_id: agentId, stream: false, ...body } });
    expect(response.status).toBe(422);
    expect(response.body.error.type).toBe("validation_error");
    expect(response.body.error.message).toMatch(/^skill: /);
    return response.body.error;
  };

  const weekly = "Skill Weekly report: The person invoked the skill /weekly-report for this request: follow this playbook. List the wins. Then the risks.";

  it("gives the model the playbook with `skill`", async () => {
    expect((await run({ message: "this week\n::skill", skill: "weekly-report" })).output).toBe(`Echo: this week\n${weekly}`);
  });

  it("gives the model the playbook with a leading /slug, keeping the message as written", async () => {
    expect((await run({ message: "/weekly-report for the team\n::skill" })).output).toBe(`Echo: /weekly-report for the team\n${weekly}`);
  });

  it("forces a platform command the same way", async () => {
    const { output } = await run({ message: "/summarize\n::skill" });
    expect(output).toMatch(/^Echo: \/summarize\nSkill Summarize: The person invoked the skill \/summarize for this request: follow this playbook\. Summarize the text/);
  });

  it("adds no skill to a run that forces none, nor for a message that starts with a path", async () => {
    expect((await run({ message: "plain\n::skill" })).output).toBe("Echo: plain\nNo skill.");
    expect((await run({ message: "/usr/bin is slow\n::skill" })).output).toBe("Echo: /usr/bin is slow\nNo skill.");
  });

  it("answers 422 for an unknown, disabled or other agent's skill, by field and by /slug", async () => {
    expect(await refused({ message: "x", skill: "nope" })).toMatchObject({ error_code: "unknown_skill" });
    expect(await refused({ message: "/nope do it" })).toMatchObject({ error_code: "unknown_skill" });
    expect(await refused({ message: "x", skill: "retired" })).toMatchObject({ error_code: "skill_disabled" });
    expect(await refused({ message: "/retired" })).toMatchObject({ error_code: "skill_disabled" });
    expect(await refused({ message: "x", skill: "for-the-sibling" })).toMatchObject({ error_code: "unknown_skill" });
    expect((await runOutput(strict.key, { teammate_id: siblingId, message: "::skill", skill: "for-the-sibling" }, { user_id: userId })).output).toBe(
      "Echo:\nSkill For the sibling: The person invoked the skill /for-the-sibling for this request: follow this playbook. Sibling playbook.",
    );
    // Another end-user's skill is unknown here.
    await createSkill(strict.key, skill("Not yours"), { user_id: freshUser() });
    expect(await refused({ message: "/not-yours" })).toMatchObject({ error_code: "unknown_skill" });
  });

  it("forces a skill on a run that creates its agent, and creates no agent when the skill is refused", async () => {
    const { output } = await runOutput(strict.key, { name: "Fresh", message: "/weekly-report\n::skill" }, { user_id: userId });
    expect(output).toBe(`Echo: /weekly-report\n${weekly}`);
    const agents = async () => (await platform.call("/agents", { key: strict.key, query: { user_id: userId, limit: 100 } })).body.data.length;
    const before = await agents();
    expect(await refused({ teammate_id: undefined, name: "Never", message: "/nope" })).toMatchObject({ error_code: "unknown_skill" });
    expect(await agents()).toBe(before);
  });

  it("refuses a platform command for a bare agent", async () => {
    const bare = await createAgent(strict.key, { user_id: userId, prompt_profile: "bare" });
    const response = await platform.call("/runs", { key: strict.key, query: { user_id: userId }, body: { teammate_id: bare.id, message: "/plan it" } });
    expect(response.status).toBe(422);
    expect(response.body.error.message).toMatch(/prompt_profile bare/);
  });

  it("keeps the playbook the run started with when the skill changes", async () => {
    const userId2 = freshUser();
    const agent = await createAgent(strict.key, { user_id: userId2 });
    const changing = await createSkill(strict.key, skill("Changing", { body: "First version." }), { user_id: userId2 });
    const { id } = await runOutput(strict.key, { teammate_id: agent.id, message: "/changing" }, { user_id: userId2 });
    await platform.call(`/skills/${changing.id}`, { key: strict.key, method: "PATCH", query: { user_id: userId2 }, body: { body: "Second version." } });
    const row = await platform.database.prisma.platformRun.findUniqueOrThrow({ where: { id } });
    expect(row.skill).toBe("changing");
    expect(row.skillPlaybook).toEqual({ name: "Changing", body: "First version." });
  });

  it("keeps the forced skill when the run resumes after an approval", async () => {
    const started = await platform.call("/runs", {
      key: strict.key,
      query: { user_id: userId },
      body: { teammate_id: agentId, permission_mode: "approval", stream: false, message: '/weekly-report\n::tool calculator {"expression":"6*7"}\n::skill' },
    });
    expect(started.status).toBe(200);
    const pending = await pollFor<{ request_id: string }>(
      async () => (await platform.call(`/runs/${started.body.id}/permissions`, { key: strict.key, query: { user_id: userId } })).body.data[0],
      "the run's permission request",
    );
    await platform.call(`/runs/${started.body.id}/approve`, { key: strict.key, query: { user_id: userId }, body: { request_id: pending.request_id, decision: "allow" } });
    const { output } = await waitForOutput(strict.key, started.body.id, { user_id: userId });
    expect(output).toBe(`Tool calculator returned {"result":42}\n${weekly}`);
  });

  it("forces a skill on a reply with a leading /slug, for that reply only", async () => {
    const first = await run({ message: "start" });
    const reply = async (message: string) => {
      const response = await platform.call(`/runs/${first.id}/reply`, { key: strict.key, query: { user_id: userId }, body: { message, stream: false } });
      expect(response.status).toBe(200);
      return (await waitForOutput(strict.key, first.id, { user_id: userId })).output;
    };
    expect(await reply("/weekly-report\n::skill")).toBe(`Echo: /weekly-report\n${weekly}`);
    expect(await reply("again\n::skill")).toBe("Echo: again\nNo skill.");
    const unknown = await platform.call(`/runs/${first.id}/reply`, { key: strict.key, query: { user_id: userId }, body: { message: "/nope" } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.error_code).toBe("unknown_skill");
  });
});

describe("GET /agents/{agent_id}/system-prompt?skill=", () => {
  it("shows the section a forced skill adds, and 422 for a skill a run could not force", async () => {
    const userId = freshUser();
    const agent = await createAgent(strict.key, { user_id: userId });
    await createSkill(strict.key, skill("Checklist", { body: "1. Check.\n2. Double-check." }), { user_id: userId });
    const url = `/agents/${agent.id}/system-prompt`;
    const plain = await platform.call(url, { key: strict.key, query: { user_id: userId } });
    expect(plain.body.skill).toBeNull();
    expect(plain.body.prompt).not.toContain("## Skill:");

    const withSkill = await platform.call(url, { key: strict.key, query: { user_id: userId, skill: "checklist" } });
    expect(withSkill.status).toBe(200);
    expect(withSkill.body.skill).toBe("checklist");
    expect(withSkill.body.prompt).toContain(
      "## Skill: Checklist\nThe person invoked the skill /checklist for this request: follow this playbook.\n\n1. Check.\n2. Double-check.",
    );
    // Nothing else changes.
    expect(withSkill.body.prompt.replace(/\n\n## Skill: Checklist\n[\s\S]*?Double-check\./, "")).toBe(plain.body.prompt);

    const command = await platform.call(url, { key: strict.key, query: { user_id: userId, skill: "plan" } });
    expect(command.body.prompt).toContain("## Skill: Plan\n");
    const unknown = await platform.call(url, { key: strict.key, query: { user_id: userId, skill: "nope" } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.error_code).toBe("unknown_skill");
  });
});

describe("GET /openapi.json", () => {
  it("documents the skills operations", async () => {
    const document = (await (await platform.request("/openapi.json")).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    expect(document.paths["/skills"]?.post?.operationId).toBe("createSkill");
    expect(document.paths["/skills"]?.get?.operationId).toBe("listSkills");
    expect(document.paths["/skills/invokable"]?.get?.operationId).toBe("listInvokableSkills");
    expect(Object.keys(document.paths["/skills/{skill_id}"] ?? {}).sort()).toEqual(["delete", "get", "patch"]);
  });
});
