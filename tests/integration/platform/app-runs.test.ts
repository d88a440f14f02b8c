// Apps' tools in runs: a sim run calls `codehost__<tool>` with the end-user's token against a loopback
// fake of the code host's API; a call with no usable connection pauses the run until the person
// connects (then it goes on by itself) or declines; a token the app refuses is refreshed once.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openCredentials, sealCredentials } from "@/server/platform/services/apps/app-credentials";
import { codehostSettings, startCodehostFake, type CodehostFake } from "../../helpers/app-fakes";
import { startOAuthServer, type OAuthServer } from "../../helpers/oauth-server";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { readFrames } from "../../helpers/sse";

const FRONTEND = "https://app.example.test";
const REDIRECT = `${FRONTEND}/connected`;

let oauth: OAuthServer;
let codehost: CodehostFake;
let platform: PlatformHarness;
let account: Account;
let other: Account;
/** Agents by end-user: one naming the code host in its tools, one naming nothing. */
const agents: Record<string, { named: number; plain: number }> = {};

beforeAll(async () => {
  oauth = await startOAuthServer();
  codehost = await startCodehostFake(oauth);
  platform = await startPlatform({
    outboundAllowLoopback: true,
    apps: {
      overrides: {
        codehost: codehostSettings(oauth, codehost),
      },
      redirectOrigins: [FRONTEND],
    },
  });
  oauth.register([`${platform.baseUrl}/apps/oauth/callback`, REDIRECT]);
  account = await platform.signup();
  other = await platform.signup();
  for (const userId of ["alice", "bob", "carol", "dave"]) {
    const create = async (body: Record<string, unknown>) =>
      (await platform.call("/agents", { key: account.key, body: { instructions: "Work with code.", user_id: userId, default_permission_mode: "autonomous", ...body } })).body.id as number;
    agents[userId] = { named: await create({ name: "Coder", tools: ["codehost"] }), plain: await create({ name: "Plain" }) };
  }
  await platform.keepWebhookEvents(account.key, "alice");
});

afterAll(async () => {
  await platform?.close();
  await codehost?.close();
  await oauth?.close();
});

beforeEach(() => oauth.setAccessTokenTtl(3600));

async function start(userId: string, agentId: number, message: string, body: Record<string, unknown> = {}) {
  const response = await platform.call("/runs", { key: account.key, query: { user_id: userId }, body: { teammate_id: agentId, stream: false, message, ...body } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.id as number;
}

const waitFor = (runId: number, userId: string, statuses: string[]) => platform.waitForRun(account.key, runId, statuses, { user_id: userId });

const permissions = async (runId: number, userId: string) =>
  (await platform.call(`/runs/${runId}/permissions`, { key: account.key, query: { user_id: userId } })).body.data as {
    request_id: string;
    kind: string;
    app: string | null;
    tool_name: string;
    status: string;
  }[];

/** The run's log as frames (GET /runs/{id}/events on a finished or paused run ends after the log). */
async function frames(runId: number, userId: string, until: (frame: { data: any }) => boolean) {
  const response = await platform.request(`/runs/${runId}/events?user_id=${userId}`, { headers: { authorization: `Bearer ${account.key}` } });
  return (await readFrames(response, { until })).map((frame) => frame.data);
}

/** Connects the code host for `userId` as `login`, the way the framework does: connect, authorize, complete. */
async function connect(userId: string, login: string, body: Record<string, unknown> = {}) {
  oauth.signInAs(login);
  const started = await platform.call("/apps/codehost/connect", { key: account.key, query: { user_id: userId }, body: { redirect_uri: REDIRECT } });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const landed = await oauth.authorize(started.body.authorization_url, REDIRECT);
  expect(landed.searchParams.get("status")).toBe("authorized");
  const completed = await platform.call("/apps/codehost/connect/complete", {
    key: account.key,
    body: { connection_id: started.body.connection_id, user_id: userId, ...body },
  });
  expect(completed.status, JSON.stringify(completed.body)).toBe(200);
  return started.body.connection_id as string;
}

const callsBy = (login: string, path: string) => codehost.calls.filter((call) => call.accountId === login && call.path === path);

describe("a run that needs an app the person has not connected", () => {
  it("pauses for the connection, and goes on by itself with the user's token once connected", async () => {
    const runId = await start("alice", agents.alice!.named, "::tool codehost__list_repos {}");
    expect((await waitFor(runId, "alice", ["awaiting_approval", "completed", "failed"])).status).toBe("awaiting_approval");

    const [request] = await permissions(runId, "alice");
    expect(request).toMatchObject({ kind: "connection", app: "codehost", tool_name: "codehost__list_repos", status: "pending" });
    const paused = await frames(runId, "alice", (frame) => frame.data.type === "run_status" && frame.data.status === "awaiting_approval");
    expect(paused.find((frame) => frame.type === "permission_request")).toMatchObject({
      kind: "connection",
      app: "codehost",
      app_name: expect.any(String),
      connection_status: "missing",
      request_id: request!.request_id,
    });
    const waiting = await platform.database.prisma.platformWebhookEvent.findFirstOrThrow({ where: { runId, type: "run.awaiting_input" } });
    expect(waiting.payload).toMatchObject({ pending_requests: [{ kind: "connection", app: "codehost", tool_name: "codehost__list_repos" }] });

    // Allowing it without a connection would only pause again.
    const early = await platform.call(`/runs/${runId}/approve`, { key: account.key, query: { user_id: "alice" }, body: { request_id: request!.request_id, decision: "allow" } });
    expect(early.status).toBe(409);
    expect(early.body.error.error_code).toBe("connection_required");
    expect(callsBy("alice-gh", "/user/repos")).toHaveLength(0);

    await connect("alice", "alice-gh");
    const done = await waitFor(runId, "alice", ["completed", "failed"]);
    expect(done.status).toBe("completed");
    expect(done.output).toContain("Tool codehost__list_repos returned");
    expect(done.output).toContain("alice-gh/hello-world");
    expect(callsBy("alice-gh", "/user/repos")).toHaveLength(1);
    expect((await permissions(runId, "alice"))[0]).toMatchObject({ kind: "connection", status: "allowed" });
  });

  it("fails the call cleanly when the person declines, and calls nothing", async () => {
    const before = codehost.calls.length;
    const runId = await start("bob", agents.bob!.named, "::tool codehost__list_repos {}");
    await waitFor(runId, "bob", ["awaiting_approval"]);
    const [request] = await permissions(runId, "bob");
    const declined = await platform.call(`/runs/${runId}/approve`, { key: account.key, query: { user_id: "bob" }, body: { request_id: request!.request_id, decision: "deny" } });
    expect(declined.body).toMatchObject({ status: "denied" });
    const done = await waitFor(runId, "bob", ["completed", "failed"]);
    expect(done.status).toBe("completed");
    expect(done.output).toContain("Tool codehost__list_repos was denied");
    expect(codehost.calls.length).toBe(before);
  });

  it("is not resumed by another end-user's or another account's connection", async () => {
    const runId = await start("carol", agents.carol!.named, "::tool codehost__list_repos {}");
    await waitFor(runId, "carol", ["awaiting_approval"]);
    await connect("dave", "dave-gh");
    // The same app connected by a stranger account's end-user named carol.
    oauth.signInAs("stranger-gh");
    const started = await platform.call("/apps/codehost/connect", { key: other.key, query: { user_id: "carol" }, body: { redirect_uri: REDIRECT } });
    await oauth.authorize(started.body.authorization_url, REDIRECT);
    expect((await platform.call("/apps/codehost/connect/complete", { key: other.key, body: { connection_id: started.body.connection_id, user_id: "carol" } })).status).toBe(200);
    // Completing a connection settles its scope's waiting requests before it answers: a wrongful
    // resume would show already.
    expect((await permissions(runId, "carol"))[0]).toMatchObject({ kind: "connection", status: "pending" });
    expect((await platform.call(`/runs/${runId}`, { key: account.key, query: { user_id: "carol" } })).body.status).toBe("awaiting_approval");
    await platform.call(`/runs/${runId}/cancel`, { key: account.key, query: { user_id: "carol" } });
  });

  it("does not pause a non-interactive run: the call answers that the app is not connected", async () => {
    const runId = await start("bob", agents.bob!.named, "hello");
    await waitFor(runId, "bob", ["completed"]);
    const replied = await platform.call(`/runs/${runId}/reply`, { key: account.key, query: { user_id: "bob" }, body: { message: "::tool codehost__list_repos {}" } });
    expect(replied.status, JSON.stringify(replied.body)).toBe(200);
    const done = await waitFor(runId, "bob", ["completed", "failed"]);
    expect(done.output).toContain("Tool codehost__list_repos returned");
    expect(done.output).toContain("not connected");
  });
});

describe("a run of an end-user who connected the app", () => {
  it("gets the app's tools without naming them, and acts with the user's own token", async () => {
    const runId = await start("dave", agents.dave!.plain, '::tool codehost__create_issue {"owner":"dave-gh","repo":"hello-world","title":"From a run","body":"Filed by an agent."}');
    const done = await waitFor(runId, "dave", ["completed", "failed"]);
    expect(done.status).toBe("completed");
    expect(done.output).toContain('"title":"From a run"');
    expect(codehost.issues.get("dave-gh/hello-world")?.at(-1)).toMatchObject({ title: "From a run", body: "Filed by an agent." });
    const [call] = callsBy("dave-gh", "/repos/dave-gh/hello-world/issues");
    expect(call).toMatchObject({ method: "POST", body: { title: "From a run", body: "Filed by an agent." } });
  });

  it("answers the app's own errors as the tool's result", async () => {
    const runId = await start("dave", agents.dave!.plain, '::tool codehost__get_issue {"owner":"dave-gh","repo":"hello-world","issue_number":999}');
    const done = await waitFor(runId, "dave", ["completed", "failed"]);
    expect(done.status).toBe("completed");
    expect(done.output).toContain('"status":404');
  });

  it("refreshes a token the app refuses before its expiry, once, and keeps going", async () => {
    const id = (await platform.database.prisma.platformAppConnection.findFirstOrThrow({ where: { app: "codehost", endUser: { externalId: "dave" }, accountId: account.id, status: "active" } })).id;
    const row = await platform.database.prisma.platformAppConnection.findUniqueOrThrow({ where: { id } });
    const { credentials } = openCredentials(platform.config, row.credentialsSealed!);
    if (credentials.kind !== "oauth2") throw new Error("expected OAuth credentials");
    // The app no longer accepts the stored access token (as after a rotation on its side).
    await platform.database.prisma.platformAppConnection.update({
      where: { id },
      data: { credentialsSealed: sealCredentials(platform.config, { ...credentials, access_token: "revoked-at-the-app" }) },
    });
    const refreshes = oauth.grants.refresh_token ?? 0;
    const runId = await start("dave", agents.dave!.plain, "::tool codehost__list_repos {}");
    const done = await waitFor(runId, "dave", ["completed", "failed"]);
    expect(done.output).toContain("dave-gh/hello-world");
    expect(oauth.grants.refresh_token).toBe(refreshes + 1);
    expect(codehost.calls.filter((call) => call.token === "revoked-at-the-app")).toHaveLength(1);
  });

  it("pauses again for a reconnect when the connection expired", async () => {
    await platform.database.prisma.platformAppConnection.updateMany({ where: { app: "codehost", endUser: { externalId: "dave" }, accountId: account.id }, data: { status: "expired" } });
    const runId = await start("dave", agents.dave!.plain, "::tool codehost__list_repos {}");
    await waitFor(runId, "dave", ["awaiting_approval"]);
    const paused = await frames(runId, "dave", (frame) => frame.data.type === "run_status" && frame.data.status === "awaiting_approval");
    expect(paused.find((frame) => frame.type === "permission_request")).toMatchObject({ kind: "connection", connection_status: "expired" });
    await connect("dave", "dave-gh");
    expect((await waitFor(runId, "dave", ["completed", "failed"])).output).toContain("dave-gh/hello-world");
  });

  it("offers a connection granted to one agent to that agent only", async () => {
    await connect("carol", "carol-gh", { agent_id: agents.carol!.named });
    const plain = await start("carol", agents.carol!.plain, "::tool codehost__list_repos {}");
    const done = await waitFor(plain, "carol", ["completed", "failed"]);
    // Not offered at all: the model's call names a tool the run does not have.
    expect(done.output).toContain("Tool codehost__list_repos failed");
    const named = await start("carol", agents.carol!.named, "::tool codehost__list_repos {}");
    expect((await waitFor(named, "carol", ["completed", "failed"])).output).toContain("carol-gh/hello-world");
  });
});

describe("approval mode: a write tool never runs unapproved", () => {
  const createIssue = (login: string, title: string) => `::tool codehost__create_issue ${JSON.stringify({ owner: login, repo: "hello-world", title })}`;
  const issuesCreated = (login: string) => codehost.calls.filter((call) => call.accountId === login && call.method === "POST" && call.path.endsWith("/issues"));
  const approvalAgent = async (userId: string) =>
    (await platform.call("/agents", { key: account.key, body: { name: "Careful", instructions: "Ask first.", user_id: userId, tools: ["codehost"], default_permission_mode: "approval" } })).body.id as number;
  const reply = (runId: number, userId: string, body: Record<string, unknown>) =>
    platform.call(`/runs/${runId}/reply`, { key: account.key, query: { user_id: userId }, body: { stream: false, ...body } });
  const decide = (runId: number, userId: string, requestId: string, decision: "allow" | "deny") =>
    platform.call(`/runs/${runId}/approve`, { key: account.key, query: { user_id: userId }, body: { request_id: requestId, decision } });

  it("asks on the first turn, refuses on a plain reply, asks on an interactive reply, and runs only what a person allowed", async () => {
    await connect("erin", "erin-gh");
    const agentId = await approvalAgent("erin");

    // First turn: the call waits for its approval; nothing reaches the app until it is allowed.
    const runId = await start("erin", agentId, createIssue("erin-gh", "first"));
    expect((await waitFor(runId, "erin", ["awaiting_approval", "completed", "failed"])).status).toBe("awaiting_approval");
    const [first] = await permissions(runId, "erin");
    expect(first).toMatchObject({ kind: "tool", tool_name: "codehost__create_issue", status: "pending" });
    expect(issuesCreated("erin-gh")).toHaveLength(0);
    await decide(runId, "erin", first!.request_id, "allow");
    expect((await waitFor(runId, "erin", ["completed", "failed"])).status).toBe("completed");
    expect(issuesCreated("erin-gh")).toHaveLength(1);

    // A plain reply (the spec's, non-interactive) cannot ask: the call is refused, not run.
    expect((await reply(runId, "erin", { message: createIssue("erin-gh", "follow-up") })).status).toBe(200);
    const refused = await waitFor(runId, "erin", ["completed", "failed"]);
    expect(refused).toMatchObject({ status: "completed", interactive: false });
    expect(refused.output).toContain("approval_required");
    expect(issuesCreated("erin-gh")).toHaveLength(1);

    // An interactive reply (a chat's follow-up) asks again; denied, nothing runs.
    expect((await reply(runId, "erin", { message: createIssue("erin-gh", "asked"), interactive: true })).status).toBe(200);
    expect((await waitFor(runId, "erin", ["awaiting_approval", "completed", "failed"])).status).toBe("awaiting_approval");
    const asked = (await permissions(runId, "erin")).find((request) => request.status === "pending");
    expect(asked).toMatchObject({ kind: "tool", tool_name: "codehost__create_issue" });
    await decide(runId, "erin", asked!.request_id, "deny");
    expect((await waitFor(runId, "erin", ["completed", "failed"])).output).toContain("was denied");
    expect(issuesCreated("erin-gh")).toHaveLength(1);

    // What the person allowed for themselves runs in a plain reply too.
    expect((await platform.call("/permissions", { key: account.key, body: { user_id: "erin", tool: "codehost__create_issue" } })).status).toBe(201);
    const allowed = await reply(runId, "erin", { message: createIssue("erin-gh", "allowed") });
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    const ran = await waitFor(runId, "erin", ["completed", "failed"]);
    expect(ran.output, JSON.stringify(ran)).toContain("returned");
    expect(issuesCreated("erin-gh").map((call) => (call.body as { title: string }).title)).toEqual(["first", "allowed"]);
  });

  it("after connecting from a connect card, the call asks for its own approval before it runs", async () => {
    const agentId = await approvalAgent("frank");
    const runId = await start("frank", agentId, createIssue("frank-gh", "from the card"));
    await waitFor(runId, "frank", ["awaiting_approval"]);
    const [request] = await permissions(runId, "frank");
    expect(request).toMatchObject({ kind: "connection", status: "pending" });

    await connect("frank", "frank-gh");
    // Connecting answered the connection only: the same request now asks for the call's approval.
    expect((await permissions(runId, "frank"))[0]).toMatchObject({ request_id: request!.request_id, kind: "tool", status: "pending" });
    expect((await platform.call(`/runs/${runId}`, { key: account.key, query: { user_id: "frank" } })).body.status).toBe("awaiting_approval");
    const asked = await frames(runId, "frank", (frame) => frame.data.type === "permission_request" && frame.data.kind === "tool");
    expect(asked.at(-1)).toMatchObject({ type: "permission_request", kind: "tool", request_id: request!.request_id, tool_name: "codehost__create_issue" });
    expect(issuesCreated("frank-gh")).toHaveLength(0);

    await decide(runId, "frank", request!.request_id, "allow");
    expect((await waitFor(runId, "frank", ["completed", "failed"])).status).toBe("completed");
    expect(issuesCreated("frank-gh")).toHaveLength(1);
  });
});
