// App-event triggers: a task's trigger on the code host's issue_opened, polled every second against a
// loopback fake with the scope's connection; each new issue starts the task's run with the issue in
// its message, once, and the first poll only records what was there.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codehostSettings, startCodehostFake, type CodehostFake } from "../../helpers/app-fakes";
import { startOAuthServer, type OAuthServer } from "../../helpers/oauth-server";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

const REDIRECT = "https://app.example.test/connected";

let oauth: OAuthServer;
let codehost: CodehostFake;
let platform: PlatformHarness;
let account: Account;
let other: Account;
const tasks: Record<string, number> = {};

beforeAll(async () => {
  oauth = await startOAuthServer();
  codehost = await startCodehostFake(oauth);
  platform = await startPlatform({
    outboundAllowLoopback: true,
    jobPollSeconds: 0.5,
    apps: {
      triggerPollSeconds: 1,
      overrides: {
        codehost: codehostSettings(oauth, codehost),
      },
      redirectOrigins: ["https://app.example.test"],
    },
  });
  oauth.register([`${platform.baseUrl}/apps/oauth/callback`, REDIRECT]);
  account = await platform.signup();
  other = await platform.signup();
  for (const userId of ["alice", "bob"]) {
    const agent = await platform.call("/agents", { key: account.key, body: { name: "Triage", instructions: "Triage issues.", user_id: userId, default_permission_mode: "autonomous" } });
    const task = await platform.call("/tasks", { key: account.key, body: { teammate_id: agent.body.id, instructions: "Triage the new issue.", user_id: userId } });
    expect(task.status, JSON.stringify(task.body)).toBe(201);
    tasks[userId] = task.body.id;
  }
  oauth.signInAs("alice-gh");
  const started = await platform.call("/apps/codehost/connect", { key: account.key, query: { user_id: "alice" }, body: { redirect_uri: REDIRECT } });
  await oauth.authorize(started.body.authorization_url, REDIRECT);
  expect((await platform.call("/apps/codehost/connect/complete", { key: account.key, body: { connection_id: started.body.connection_id, user_id: "alice" } })).status).toBe(200);
});

afterAll(async () => {
  await platform?.close();
  await codehost?.close();
  await oauth?.close();
});

const createTrigger = (userId: string, body: Record<string, unknown>, key = account.key) =>
  platform.call(`/tasks/${tasks[userId]}/triggers`, { key, query: { user_id: userId }, body });

const getTrigger = async (userId: string, triggerId: string) =>
  ((await platform.call(`/tasks/${tasks[userId]}/triggers`, { key: account.key, query: { user_id: userId } })).body.data as { id: string }[]).find(
    (trigger) => trigger.id === triggerId,
  ) as { id: string; last_polled_at: string | null; poll_error: string | null; enabled: boolean };

const fires = async (userId: string, triggerId: string) =>
  (await platform.call(`/tasks/${tasks[userId]}/triggers/${triggerId}/fires`, { key: account.key, query: { user_id: userId } })).body.data as {
    outcome: string;
    run_id: number | null;
    reason: string | null;
  }[];

/** Waits until the trigger has been polled `times` more times than when called. */
async function polls(userId: string, triggerId: string, times = 1) {
  let seen = (await getTrigger(userId, triggerId)).last_polled_at;
  for (let i = 0; i < times; i++) {
    const before = seen;
    await expect.poll(async () => (seen = (await getTrigger(userId, triggerId)).last_polled_at), { timeout: 15_000, interval: 100 }).not.toBe(before);
  }
}

const openIssue = (title: string) => {
  const list = codehost.issues.get("alice-gh/hello-world") ?? [];
  codehost.issues.set("alice-gh/hello-world", list);
  if (list.length === 0) list.push({ number: 1, title: "First issue", body: "It is broken.", comments: [] });
  list.push({ number: list.length + 1, title, body: `${title}: details`, comments: [] });
};

describe("creating an app event trigger", () => {
  it("checks the app, the trigger type and its config against the catalogue", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ type: "app", trigger_name: "issue_opened" }, "app"],
      [{ type: "app", app: "nope", trigger_name: "issue_opened" }, "app"],
      [{ type: "app", app: "codehost", trigger_name: "nope" }, "trigger_name"],
      [{ type: "codehost.issue_opened", trigger_config: { owner: "alice-gh" } }, "trigger_config.repo"],
      [{ type: "codehost.issue_opened", trigger_config: { owner: "alice-gh", repo: 5 } }, "trigger_config.repo"],
      [{ type: "codehost.issue_opened", app: "chat", trigger_config: { owner: "o", repo: "r" } }, "app"],
      [{ type: "codehost.issue_opened", trigger_config: { owner: "o", repo: "r" }, cron: "* * * * *" }, "cron"],
      [{ type: "nonsense" }, "type"],
    ];
    for (const [body, field] of cases) {
      const response = await createTrigger("alice", body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.error.message, JSON.stringify(body)).toMatch(new RegExp(`^${field.replace(".", "\\.")}:`));
    }
    // mail is not configured on this platform.
    const unconfigured = await createTrigger("alice", { type: "mail.email_received" });
    expect(unconfigured.status).toBe(422);
    expect(unconfigured.body.error.error_code).toBe("app_not_configured");
  });

  it("is another account's task's trigger: 404", async () => {
    const response = await createTrigger("alice", { type: "codehost.issue_opened", trigger_config: { owner: "o", repo: "r" } }, other.key);
    expect(response.status).toBe(404);
  });
});

describe("an issue_opened trigger", () => {
  let triggerId: string;

  it("records what is there on its first poll and starts nothing", async () => {
    openIssue("Already there");
    const created = await createTrigger("alice", { type: "app", app: "codehost", trigger_name: "issue_opened", trigger_config: { owner: "alice-gh", repo: "hello-world" } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ type: "app", app: "codehost", trigger_name: "issue_opened", trigger_config: { owner: "alice-gh", repo: "hello-world" }, enabled: true });
    triggerId = created.body.id;
    expect(triggerId).toMatch(/^app_\d+$/);
    await polls("alice", triggerId, 2);
    expect((await getTrigger("alice", triggerId)).poll_error).toBeNull();
    expect(await fires("alice", triggerId)).toEqual([]);
    const call = codehost.calls.findLast((candidate) => candidate.path === "/repos/alice-gh/hello-world/issues");
    expect(call).toMatchObject({ method: "GET", accountId: "alice-gh", query: { state: "open", sort: "created", direction: "desc" } });
  });

  it("starts the task's run once for a new issue, with the issue in its message", async () => {
    openIssue("Login page is blank");
    await expect.poll(async () => (await fires("alice", triggerId)).length, { timeout: 15_000, interval: 100 }).toBe(1);
    const [fire] = await fires("alice", triggerId);
    expect(fire).toMatchObject({ outcome: "started", run_id: expect.any(Number) });
    const messages = await platform.call(`/runs/${fire!.run_id}/messages`, { key: account.key, query: { user_id: "alice" } });
    const first = JSON.stringify(messages.body.data[0]);
    expect(first).toContain("Triage the new issue.");
    expect(first).toContain("Login page is blank");
    const run = await platform.call(`/runs/${fire!.run_id}`, { key: account.key, query: { user_id: "alice" } });
    expect(run.body).toMatchObject({ task_id: tasks.alice, metadata: { source: "app_event", app: "codehost" } });
    // Later polls see it again and start nothing more.
    await polls("alice", triggerId, 2);
    expect(await fires("alice", triggerId)).toHaveLength(1);
  });

  it("takes no events while disabled, and does not catch up on them when enabled again", async () => {
    const off = await platform.call(`/tasks/${tasks.alice}/triggers/${triggerId}`, { method: "PATCH", key: account.key, query: { user_id: "alice" }, body: { enabled: false } });
    expect(off.status).toBe(200);
    expect(off.body.next_run_at).toBeNull();
    openIssue("Filed while paused");
    const on = await platform.call(`/tasks/${tasks.alice}/triggers/${triggerId}`, { method: "PATCH", key: account.key, query: { user_id: "alice" }, body: { enabled: true } });
    expect(on.body.enabled).toBe(true);
    await polls("alice", triggerId, 2);
    expect(await fires("alice", triggerId)).toHaveLength(1);
    openIssue("Filed after resuming");
    await expect.poll(async () => (await fires("alice", triggerId)).length, { timeout: 15_000, interval: 100 }).toBe(2);
  });

  it("refuses a PATCH that gives it a schedule, and checks a new config", async () => {
    const path = `/tasks/${tasks.alice}/triggers/${triggerId}`;
    const cron = await platform.call(path, { method: "PATCH", key: account.key, query: { user_id: "alice" }, body: { cron: "* * * * *" } });
    expect(cron.status).toBe(422);
    const bad = await platform.call(path, { method: "PATCH", key: account.key, query: { user_id: "alice" }, body: { trigger_config: { owner: "alice-gh" } } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.message).toMatch(/^trigger_config\.repo:/);
  });
});

describe("a trigger whose scope has no connection", () => {
  it("says why in poll_error and starts nothing", async () => {
    const created = await createTrigger("bob", { type: "codehost.issue_opened", trigger_config: { owner: "alice-gh", repo: "hello-world" } });
    expect(created.status).toBe(201);
    await polls("bob", created.body.id);
    expect((await getTrigger("bob", created.body.id)).poll_error).toMatch(/no active Code host connection/i);
    expect(await fires("bob", created.body.id)).toEqual([]);
  });
});
