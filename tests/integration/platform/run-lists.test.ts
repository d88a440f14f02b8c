// GET /runs, /runs/activity, /runs/check and /runs/needs-you over real HTTP, on runs the sim model
// drives into each status. `paused`, `archived` and surface `platform` have no API path yet, so the
// fixture sets those three on finished runs directly in the database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let account: Account;
let other: Account;
let strict: Account;

interface Fixture {
  id: number;
  status: string;
  agent: number;
}

/** Account-level runs of `account`, in creation order. */
const runs: Record<string, Fixture> = {};
const endUserRuns: Record<string, number> = {};
const otherRuns: number[] = [];
let agentA = 0;
let agentB = 0;

const PRIORITY = ["awaiting_approval", "paused", "running"];
const rank = (status: string) => (PRIORITY.includes(status) ? PRIORITY.indexOf(status) : PRIORITY.length);

async function waitForStatus(key: string, runId: number, statuses: string[], userId?: string) {
  return platform.waitForRun(key, runId, statuses, { user_id: userId });
}

async function startRun(key: string, teammateId: number, message: string, settle: string[], userId?: string) {
  const { status, body } = await platform.call("/runs", {
    key,
    query: { user_id: userId },
    body: { teammate_id: teammateId, message, permission_mode: "autonomous", stream: false },
  });
  if (status !== 200) throw new Error(`POST /runs: ${status} ${JSON.stringify(body)}`);
  const done = await waitForStatus(key, body.id, settle, userId);
  return { id: body.id as number, status: done.status as string };
}

async function accountRun(name: string, agent: number, message: string, settle: string[]) {
  const run = await startRun(account.key, agent, message, settle);
  runs[name] = { ...run, agent };
}

const setRun = (id: number, data: Record<string, unknown>) => platform.database.prisma.platformRun.update({ where: { id }, data });

const list = (query: Record<string, string | number | boolean | undefined> = {}, key = account.key) =>
  platform.call("/runs", { key, query });

const ids = (body: { data: { id: number }[] }) => body.data.map((run) => run.id);

/** Every page of a listing, following starting_after; fails on a page that repeats an id. */
async function allPages(query: Record<string, string | number | boolean | undefined>, key = account.key) {
  const seen: number[] = [];
  let cursor: number | undefined;
  for (let page = 0; page < 50; page++) {
    const { status, body } = await list({ ...query, starting_after: cursor }, key);
    expect(status).toBe(200);
    expect(body.data.length).toBeLessThanOrEqual(Number(query.limit));
    seen.push(...ids(body));
    if (!body.has_more) return seen;
    expect(body.data.length).toBe(Number(query.limit));
    cursor = body.data.at(-1).id;
  }
  throw new Error("paging never ended");
}

const accountLevel = () => Object.values(runs).filter((run) => run.status !== "archived");
const newestFirst = (fixtures: Fixture[]) => fixtures.map((run) => run.id).sort((a, b) => b - a);
const byPriority = (fixtures: Fixture[]) =>
  [...fixtures].sort((a, b) => rank(a.status) - rank(b.status) || b.id - a.id).map((run) => run.id);

beforeAll(async () => {
  platform = await startPlatform();
  account = await platform.signup({ require_end_user_id: false });
  other = await platform.signup({ require_end_user_id: false });
  strict = await platform.signup({ require_end_user_id: true });
  agentA = (await platform.call("/agents", { key: account.key, body: { name: "Alpha" } })).body.id;
  agentB = (await platform.call("/agents", { key: account.key, body: { name: "Bravo" } })).body.id;
  const finished = ["completed", "failed", "cancelled"];
  const waiting = ["awaiting_approval", ...finished];

  await accountRun("hello", agentA, "hello", finished);
  await accountRun("ask1", agentA, "::ask Which colour? | Red | Blue", waiting);
  await accountRun("fail", agentB, "::fail boom", finished);
  await accountRun("again", agentB, "hello again", finished);
  await accountRun("slow", agentA, "::delay 1000\n::words 100", ["running"]);
  await accountRun("platform", agentA, "from the dashboard", finished);
  await setRun(runs.platform!.id, { surface: "platform" });
  await accountRun("paused", agentB, "to pause", finished);
  await setRun(runs.paused!.id, { status: "paused", output: null, finishedAt: null });
  runs.paused!.status = "paused";
  await accountRun("ask2", agentB, "::ask Ready? | Yes", waiting);
  await accountRun("cancelled", agentA, "::delay 1000\n::words 50", ["running"]);
  expect((await platform.call(`/runs/${runs.cancelled!.id}/cancel`, { key: account.key, method: "POST" })).status).toBe(200);
  runs.cancelled!.status = "cancelled";
  await accountRun("long", agentA, "::words 100", finished);
  await accountRun("archived", agentB, "old news", finished);
  await setRun(runs.archived!.id, { status: "archived" });
  runs.archived!.status = "archived";
  await accountRun("last", agentA, "last one", finished);

  const agentU1 = (await platform.call("/agents", { key: account.key, body: { name: "U1", user_id: "u1" } })).body.id;
  const agentU2 = (await platform.call("/agents", { key: account.key, body: { name: "U2", user_id: "u2" } })).body.id;
  endUserRuns.u1done = (await startRun(account.key, agentU1, "hello u1", finished, "u1")).id;
  endUserRuns.u1ask = (await startRun(account.key, agentU1, "::ask U1? | Y", waiting, "u1")).id;
  endUserRuns.u2done = (await startRun(account.key, agentU2, "hello u2", finished, "u2")).id;

  const otherAgent = (await platform.call("/agents", { key: other.key, body: { name: "Other" } })).body.id;
  otherRuns.push((await startRun(other.key, otherAgent, "hello other", finished)).id);
  otherRuns.push((await startRun(other.key, otherAgent, "::ask Other? | Y", waiting)).id);
}, 60_000);

afterAll(async () => {
  await platform.call(`/runs/${runs.slow!.id}/cancel`, { key: account.key, method: "POST" });
  await platform.close();
});

describe("fixture", () => {
  it("reached the statuses the tests rely on", () => {
    expect(runs.hello!.status).toBe("completed");
    expect(runs.ask1!.status).toBe("awaiting_approval");
    expect(runs.fail!.status).toBe("failed");
    expect(runs.slow!.status).toBe("running");
    expect(runs.ask2!.status).toBe("awaiting_approval");
  });
});

describe("GET /runs", () => {
  it("lists the account-level runs newest first, without archived ones, other accounts' or end-users'", async () => {
    const { status, body } = await list({ limit: 100 });
    expect(status).toBe(200);
    expect(body.has_more).toBe(false);
    expect(ids(body)).toEqual(newestFirst(accountLevel()));
    for (const id of [...Object.values(endUserRuns), ...otherRuns, runs.archived!.id]) expect(ids(body)).not.toContain(id);
    expect(body.data.every((run: { user_id: string | null }) => run.user_id === null)).toBe(true);
  });

  it("defaults to 20 items and rejects a limit outside 1-100", async () => {
    const { body } = await list();
    expect(body.data.length).toBe(Math.min(20, accountLevel().length));
    expect((await list({ limit: 0 })).status).toBe(422);
    expect((await list({ limit: 101 })).status).toBe(422);
  });

  it("carries the previews: the first and the last message, and the start of a finished run's output", async () => {
    const { body } = await list({ limit: 100 });
    const byId = new Map(body.data.map((run: { id: number }) => [run.id, run]));
    expect(byId.get(runs.hello!.id)).toMatchObject({
      status: "completed",
      output: "Echo: hello",
      closing_preview: "Echo: hello",
      latest_message_preview: "Echo: hello",
      first_message_preview: "hello",
      teammate_id: agentA,
    });
    // Waiting and running runs have no closing preview; the question run's last text is the user's.
    expect(byId.get(runs.ask1!.id)).toMatchObject({
      closing_preview: null,
      latest_message_preview: "::ask Which colour? | Red | Blue",
      first_message_preview: "::ask Which colour? | Red | Blue",
    });
    expect(byId.get(runs.slow!.id)).toMatchObject({ closing_preview: null });
    const long = byId.get(runs.long!.id) as { output: string; closing_preview: string; latest_message_preview: string };
    expect(long).toMatchObject({ first_message_preview: "::words 100" });
    expect(long.output.length).toBeGreaterThan(200);
    for (const preview of [long.closing_preview, long.latest_message_preview]) {
      expect(preview.length).toBeLessThanOrEqual(200);
      expect(preview.endsWith("…")).toBe(true);
      expect(long.output.startsWith(preview.slice(0, -1))).toBe(true);
    }
  });

  it("fields=summary drops latest_message_preview, output, output_data and metadata", async () => {
    const { status, body } = await list({ limit: 100, fields: "summary" });
    expect(status).toBe(200);
    expect(ids(body)).toEqual(newestFirst(accountLevel()));
    for (const run of body.data) {
      for (const field of ["latest_message_preview", "first_message_preview", "output", "output_data", "metadata"]) expect(run).not.toHaveProperty(field);
      expect(run).toHaveProperty("closing_preview");
      expect(run).toHaveProperty("status");
    }
    expect(body.data.find((run: { id: number }) => run.id === runs.hello!.id).closing_preview).toBe("Echo: hello");
  });

  it("filters by teammate_id, status and task_id", async () => {
    const bravo = await list({ limit: 100, teammate_id: agentB });
    expect(ids(bravo.body)).toEqual(newestFirst(accountLevel().filter((run) => run.agent === agentB)));
    expect(ids(bravo.body).length).toBeGreaterThan(0);

    for (const status of ["completed", "awaiting_approval", "paused", "running", "failed", "cancelled"]) {
      const { body } = await list({ limit: 100, status });
      const expected = newestFirst(accountLevel().filter((run) => run.status === status));
      expect(expected.length).toBeGreaterThan(0);
      expect(ids(body)).toEqual(expected);
    }
    expect(ids((await list({ status: "closed" })).body)).toEqual([]);
    expect((await list({ status: "bogus" })).status).toBe(422);
    // No tasks exist yet: a task filter matches no run.
    const task = await list({ task_id: 1 });
    expect(task.status).toBe(200);
    expect(task.body.data).toEqual([]);
  });

  it("archived: exclude by default, only, include; status=archived finds them", async () => {
    const archived = runs.archived!.id;
    expect(ids((await list({ limit: 100, archived: "exclude" })).body)).not.toContain(archived);
    expect(ids((await list({ limit: 100, archived: "only" })).body)).toEqual([archived]);
    const all = ids((await list({ limit: 100, archived: "include" })).body);
    expect(all).toEqual(newestFirst(Object.values(runs)));
    expect(ids((await list({ status: "archived" })).body)).toEqual([archived]);
    expect((await list({ archived: "maybe" })).status).toBe(422);
  });

  it("exclude_platform_runs drops runs from the platform's own surface", async () => {
    expect(ids((await list({ limit: 100 })).body)).toContain(runs.platform!.id);
    const { body } = await list({ limit: 100, exclude_platform_runs: true });
    expect(ids(body)).toEqual(newestFirst(accountLevel().filter((run) => run.id !== runs.platform!.id)));
  });

  it("include_end_user_runs adds this account's end-users' runs, and is ignored with user_id", async () => {
    const { body } = await list({ limit: 100, include_end_user_runs: true });
    const expected = [...accountLevel().map((run) => run.id), ...Object.values(endUserRuns)].sort((a, b) => b - a);
    expect(ids(body)).toEqual(expected);
    const owners = new Map(body.data.map((run: { id: number; user_id: string | null }) => [run.id, run.user_id]));
    expect(owners.get(endUserRuns.u1done!)).toBe("u1");
    expect(owners.get(endUserRuns.u2done!)).toBe("u2");
    expect(owners.get(runs.hello!.id)).toBeNull();
    for (const id of otherRuns) expect(ids(body)).not.toContain(id);

    const u1 = await list({ limit: 100, user_id: "u1", include_end_user_runs: true });
    expect(ids(u1.body)).toEqual([endUserRuns.u1ask!, endUserRuns.u1done!]);
  });

  it("user_id lists that end-user's runs only", async () => {
    const u1 = await list({ limit: 100, user_id: "u1" });
    expect(ids(u1.body)).toEqual([endUserRuns.u1ask!, endUserRuns.u1done!]);
    expect(u1.body.data.every((run: { user_id: string }) => run.user_id === "u1")).toBe(true);
    expect(ids((await list({ user_id: "nobody" })).body)).toEqual([]);
  });

  it("another account sees only its own runs", async () => {
    const { body } = await list({ limit: 100, include_end_user_runs: true }, other.key);
    expect(ids(body)).toEqual([...otherRuns].sort((a, b) => b - a));
  });

  it("sort=priority puts runs needing a person first, then running, newest first within each", async () => {
    const { body } = await list({ limit: 100, sort: "priority" });
    const expected = byPriority(accountLevel());
    expect(ids(body)).toEqual(expected);
    expect(body.data.slice(0, 4).map((run: { status: string }) => run.status)).toEqual([
      "awaiting_approval",
      "awaiting_approval",
      "paused",
      "running",
    ]);
  });

  it.each([1, 2, 3, 5])("pages with limit %i through both sorts: nothing repeated, nothing missed", async (limit) => {
    expect(await allPages({ limit })).toEqual(newestFirst(accountLevel()));
    expect(await allPages({ limit, sort: "priority" })).toEqual(byPriority(accountLevel()));
    expect(await allPages({ limit, sort: "created", fields: "summary", teammate_id: agentA })).toEqual(
      newestFirst(accountLevel().filter((run) => run.agent === agentA)),
    );
    expect(await allPages({ limit, sort: "priority", include_end_user_runs: true })).toEqual(
      byPriority([
        ...accountLevel(),
        { id: endUserRuns.u1done!, status: "completed", agent: 0 },
        { id: endUserRuns.u1ask!, status: "awaiting_approval", agent: 0 },
        { id: endUserRuns.u2done!, status: "completed", agent: 0 },
      ]),
    );
  });

  it("sort=priority refuses a cursor outside the scope", async () => {
    const foreign = await list({ sort: "priority", starting_after: otherRuns[0] });
    expect(foreign.status).toBe(422);
    expect(foreign.body.error.message).toMatch(/starting_after/);
    expect((await list({ sort: "priority", starting_after: 999_999 })).status).toBe(422);
    expect((await list({ sort: "sideways" })).status).toBe(422);
  });

  it("rejects an unknown query parameter and a missing key", async () => {
    expect((await list({ colour: "red" })).status).toBe(400);
    expect((await platform.call("/runs")).status).toBe(401);
  });

  it("strict mode refuses a list without user_id and allows it with one", async () => {
    const refused = await list({}, strict.key);
    expect(refused.status).toBe(422);
    expect(refused.body.error.error_code).toBe("end_user_id_required");
    const scoped = await list({ user_id: "s1" }, strict.key);
    expect(scoped.status).toBe(200);
    expect(scoped.body).toEqual({ data: [], has_more: false });
  });
});

describe("GET /runs/activity", () => {
  it("counts the scope's open runs and today's outcomes", async () => {
    const { status, body } = await platform.call("/runs/activity", { key: account.key });
    expect(status).toBe(200);
    const count = (state: string) => accountLevel().filter((run) => run.status === state).length;
    const newest = (await list({ limit: 1, archived: "include" })).body.data[0];
    expect(body).toEqual({
      running: 1,
      awaiting_approval: 2,
      paused: 1,
      needs_you: 3,
      // The archived run finished as completed today too, but no longer counts as completed.
      completed_today: count("completed"),
      failed_today: 1,
      cancelled_today: 1,
      started_today: Object.keys(runs).length,
      last_run_at: newest.created_at,
    });
  });

  it("is per end-user with user_id, and per account", async () => {
    const u1 = await platform.call("/runs/activity", { key: account.key, query: { user_id: "u1" } });
    expect(u1.body).toMatchObject({ running: 0, awaiting_approval: 1, needs_you: 1, completed_today: 1, started_today: 2 });
    const fresh = await platform.call("/runs/activity", { key: account.key, query: { user_id: "never-ran" } });
    expect(fresh.body).toMatchObject({ running: 0, needs_you: 0, completed_today: 0, started_today: 0, last_run_at: null });
    const theirs = await platform.call("/runs/activity", { key: other.key });
    expect(theirs.body).toMatchObject({ awaiting_approval: 1, completed_today: 1, started_today: 2, running: 0 });
  });

  it("is 422 in strict mode without user_id", async () => {
    expect((await platform.call("/runs/activity", { key: strict.key })).status).toBe(422);
    expect((await platform.call("/runs/activity", { key: strict.key, query: { user_id: "s1" } })).status).toBe(200);
  });
});

describe("GET /runs/needs-you", () => {
  it("pages the runs waiting for a person, newest first, with their pending requests", async () => {
    const first = await platform.call("/runs/needs-you", { key: account.key, query: { limit: 2 } });
    expect(first.status).toBe(200);
    expect(ids(first.body)).toEqual([runs.ask2!.id, runs.paused!.id]);
    expect(first.body.has_more).toBe(true);
    const [ask2, paused] = first.body.data;
    expect(ask2.status).toBe("awaiting_approval");
    expect(ask2.pending_requests).toEqual([
      { request_id: expect.stringMatching(/^perm_/), tool_name: "AskUserQuestion", kind: "question", created_at: expect.any(String) },
    ]);
    expect(paused.pending_requests).toEqual([]);
    const second = await platform.call("/runs/needs-you", {
      key: account.key,
      query: { limit: 2, starting_after: runs.paused!.id },
    });
    expect(ids(second.body)).toEqual([runs.ask1!.id]);
    expect(second.body.has_more).toBe(false);
  });

  it("is scoped to the end-user and the account", async () => {
    const u1 = await platform.call("/runs/needs-you", { key: account.key, query: { user_id: "u1" } });
    expect(ids(u1.body)).toEqual([endUserRuns.u1ask!]);
    expect(u1.body.data[0].user_id).toBe("u1");
    const theirs = await platform.call("/runs/needs-you", { key: other.key });
    expect(ids(theirs.body)).toEqual([otherRuns[1]!]);
    expect((await platform.call("/runs/needs-you", { key: strict.key })).status).toBe(422);
  });
});

describe("GET /runs/check", () => {
  it("reports the newest run and change, and moves when a run changes", async () => {
    const before = await platform.call("/runs/check", { key: account.key });
    expect(before.status).toBe(200);
    const all = (await list({ limit: 100, archived: "include" })).body.data as { id: number; updated_at: string }[];
    const latestUpdate = all.map((run) => run.updated_at).sort().at(-1);
    expect(before.body).toEqual({
      latest_run_id: Math.max(...all.map((run) => run.id)),
      latest_updated_at: latestUpdate,
      needs_you: 3,
      running: 1,
    });

    // Answering the first question resumes and completes that run: fewer need you, the stamp moves.
    const answered = await platform.call(`/runs/${runs.ask1!.id}/answer`, {
      key: account.key,
      body: { answers: { "Which colour?": "Blue" } },
    });
    expect(answered.status).toBe(200);
    const done = await waitForStatus(account.key, runs.ask1!.id, ["completed", "failed"]);
    expect(done.status).toBe("completed");
    runs.ask1!.status = "completed";
    const after = await platform.call("/runs/check", { key: account.key });
    expect(after.body.needs_you).toBe(2);
    expect(after.body.latest_run_id).toBe(before.body.latest_run_id);
    expect(Date.parse(after.body.latest_updated_at)).toBeGreaterThan(Date.parse(before.body.latest_updated_at));
    const needsYou = await platform.call("/runs/needs-you", { key: account.key });
    expect(ids(needsYou.body)).toEqual([runs.ask2!.id, runs.paused!.id]);
  });

  it("is per scope, empty for a scope without runs, and 422 in strict mode without user_id", async () => {
    const empty = await platform.call("/runs/check", { key: account.key, query: { user_id: "never-ran" } });
    expect(empty.body).toEqual({ latest_run_id: null, latest_updated_at: null, needs_you: 0, running: 0 });
    const u1 = await platform.call("/runs/check", { key: account.key, query: { user_id: "u1" } });
    expect(u1.body).toMatchObject({ latest_run_id: endUserRuns.u1ask, needs_you: 1, running: 0 });
    expect((await platform.call("/runs/check", { key: strict.key })).status).toBe(422);
  });
});
