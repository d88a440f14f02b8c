// A repository's env values never leave a run of its agent (infrastructure/secret-redactor.ts): whatever says
// one (the model echoing the person's message, split across deltas by `sim`; the code host's tool
// reading an issue that holds one; a tool call's input), the stream, the run, its conversation, its
// permission requests and its event log show the marker instead. Another agent is not redacted, and
// a value deleted from the env is not redacted in later runs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunFrame } from "@inlay/core/schemas/runs";
import { appendEvents } from "@/server/platform/repositories/run-events";
import { REDACTED_MARKER } from "@/server/platform/infrastructure/secret-redactor";
import { codehostSettings, startCodehostFake, type CodehostFake } from "../../helpers/app-fakes";
import { startOAuthServer, type OAuthServer } from "../../helpers/oauth-server";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { readFrames, textOf } from "../../helpers/sse";

const FRONTEND = "https://app.example.test";
const REDIRECT = `${FRONTEND}/connected`;
/** Has spaces: `sim` echoes it word by word, so it arrives in three deltas. */
const VALUE = "open sesame 42";
const OTHER_VALUE = "ghp_0123456789abcdef";

let oauth: OAuthServer;
let codehost: CodehostFake;
let platform: PlatformHarness;
let account: Account;
/** The agent with a bound repository and its env; `plain` has no repository. */
let agent: number;
let plain: number;
let repoId: number;

beforeAll(async () => {
  oauth = await startOAuthServer();
  codehost = await startCodehostFake(oauth);
  platform = await startPlatform({
    outboundAllowLoopback: true,
    apps: { overrides: { codehost: codehostSettings(oauth, codehost) }, redirectOrigins: [FRONTEND] },
  });
  oauth.register([`${platform.baseUrl}/apps/oauth/callback`, REDIRECT]);
  account = await platform.signup({ require_end_user_id: false });

  // The account-level code-host connection: binding needs it, and the agent's codehost tools use it.
  oauth.signInAs("octo");
  const started = await platform.call("/apps/codehost/connect", { key: account.key, body: { redirect_uri: REDIRECT } });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const landed = await oauth.authorize(started.body.authorization_url, REDIRECT);
  expect(landed.searchParams.get("status")).toBe("authorized");
  const completed = await platform.call("/apps/codehost/connect/complete", { key: account.key, body: { claim_ticket: landed.searchParams.get("connector_claim") } });
  expect(completed.status, JSON.stringify(completed.body)).toBe(200);

  const create = async (name: string) => {
    const response = await platform.call("/agents", { key: account.key, body: { name, instructions: "Work with code.", tools: ["codehost"], default_permission_mode: "autonomous" } });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body.id as number;
  };
  agent = await create("Coder");
  plain = await create("Plain");
  const bound = await platform.call(`/agents/${agent}/repos`, { key: account.key, body: { repo_full_name: "octo/hello-world" } });
  expect(bound.status, JSON.stringify(bound.body)).toBe(201);
  repoId = bound.body.id;
  const env = await platform.call(`/agents/${agent}/repos/${repoId}/env`, { key: account.key, method: "PUT", body: { env: { DEPLOY_KEY: VALUE, GH_TOKEN: OTHER_VALUE } } });
  expect(env.status, JSON.stringify(env.body)).toBe(200);
});

afterAll(async () => {
  await platform?.close();
  await codehost?.close();
  await oauth?.close();
});

const streamRun = (teammateId: number, message: string) =>
  platform.request("/runs", {
    method: "POST",
    headers: { authorization: `Bearer ${account.key}`, "content-type": "application/json" },
    body: JSON.stringify({ teammate_id: teammateId, message, stream: true }),
  });

async function startRun(teammateId: number, message: string, body: Record<string, unknown> = {}) {
  const response = await platform.call("/runs", { key: account.key, body: { teammate_id: teammateId, message, stream: false, ...body } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.id as number;
}

/** The run as every reader sees it once it settled: GET /runs/{id}, its turns, its permission requests, its log. */
async function seen(runId: number) {
  const run = await platform.call(`/runs/${runId}`, { key: account.key });
  const messages = await platform.call(`/runs/${runId}/messages`, { key: account.key });
  const permissions = await platform.call(`/runs/${runId}/permissions`, { key: account.key });
  const log = await platform.request(`/runs/${runId}/events`, { headers: { authorization: `Bearer ${account.key}` } });
  const events = await readFrames(log, { until: (frame) => frame.data.type === "done" || frame.data.status === "awaiting_approval" });
  const stored = await platform.database.prisma.platformRun.findUniqueOrThrow({ where: { id: runId }, select: { messages: true, output: true, outputData: true, error: true, checkpoint: true } });
  const rows = await platform.database.prisma.platformRunEvent.findMany({ where: { runId }, select: { data: true } });
  const requests = await platform.database.prisma.platformPermissionRequest.findMany({ where: { runId } });
  return { run: run.body, messages: messages.body, permissions: permissions.body, events, all: JSON.stringify([run.body, messages.body, permissions.body, events, stored, rows, requests]) };
}

describe("a repository's env values in its agent's runs", () => {
  it("are redacted from the stream, the run, its conversation and its log when the model echoes one across deltas", async () => {
    const response = await streamRun(agent, `please use ${VALUE} and ${OTHER_VALUE} today`);
    expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
    const frames = await readFrames(response, { until: (frame) => frame.data.type === "done" });
    const expected = `Echo: please use ${REDACTED_MARKER} and ${REDACTED_MARKER} today`;
    expect(textOf(frames)).toBe(expected);
    expect(JSON.stringify(frames)).not.toContain("sesame");
    // Ordinary words are not held back: each goes out as its own delta.
    expect(frames.filter((frame) => frame.data.type === "content_block_delta").map((frame) => frame.data.delta.text)).toEqual(
      expect.arrayContaining(["Echo: ", "please ", "use ", "and ", "today"]),
    );

    const runId = Number(response.headers.get("x-run-id"));
    const { run, messages, events, all } = await seen(runId);
    expect(run.status).toBe("completed");
    expect(run.output).toBe(expected);
    expect(textOf(events)).toBe(expected);
    expect(messages.data.map((turn: { text: string }) => turn.text)).toEqual([`please use ${REDACTED_MARKER} and ${REDACTED_MARKER} today`, expected]);
    expect(all).not.toContain(VALUE);
    expect(all).not.toContain(OTHER_VALUE);
  });

  it("are redacted from an app tool's result (an issue that holds one) and the answer that quotes it", async () => {
    codehost.issues.set("octo/deploys", [{ number: 1, title: "Rotate the key", body: `the key is ${VALUE}, keep it`, comments: [] }]);
    const runId = await startRun(agent, '::tool codehost__get_issue {"owner":"octo","repo":"deploys","issue_number":1}');
    await platform.waitForRun(account.key, runId, ["completed", "failed"]);
    const { run, events, all } = await seen(runId);
    expect(run.status, JSON.stringify(run)).toBe("completed");
    const result = events.find((frame) => frame.data.type === "tool_result")!.data;
    expect(result.content).toContain(`the key is ${REDACTED_MARKER}, keep it`);
    expect(result.result).toMatchObject({ data: { title: "Rotate the key", body: `the key is ${REDACTED_MARKER}, keep it` } });
    expect(run.output).toContain(`the key is ${REDACTED_MARKER}, keep it`);
    expect(all).not.toContain(VALUE);
  });

  it("are redacted from a tool call's input, which the tool itself gets whole", async () => {
    const runId = await startRun(agent, `::tool codehost__create_issue {"owner":"octo","repo":"deploys","title":"Key ${VALUE}"}`);
    await platform.waitForRun(account.key, runId, ["completed", "failed"]);
    const { run, events, all } = await seen(runId);
    expect(run.status, JSON.stringify(run)).toBe("completed");
    expect(events.find((frame) => frame.data.type === "tool_use")!.data.input).toMatchObject({ title: `Key ${REDACTED_MARKER}` });
    expect(all).not.toContain(VALUE);
    // The model's input keeps the values: the code host got the title as written.
    expect(codehost.issues.get("octo/deploys")?.at(-1)?.title).toBe(`Key ${VALUE}`);
  });

  it("are redacted from a permission request's input", async () => {
    const runId = await startRun(agent, `::tool codehost__create_issue {"owner":"octo","repo":"deploys","title":"${OTHER_VALUE}"}`, { permission_mode: "approval" });
    await platform.waitForRun(account.key, runId, ["awaiting_approval", "completed", "failed"]);
    const { run, permissions, events, all } = await seen(runId);
    expect(run.status, JSON.stringify(run)).toBe("awaiting_approval");
    expect(permissions.data[0].input).toMatchObject({ title: REDACTED_MARKER });
    expect(events.find((frame) => frame.data.type === "permission_request")!.data.input).toMatchObject({ title: REDACTED_MARKER });
    expect(all).not.toContain(OTHER_VALUE);
    await platform.call(`/runs/${runId}/cancel`, { key: account.key, method: "POST" });
  });

  it("are not redacted in runs of another agent of the account, which has no repository", async () => {
    const runId = await startRun(plain, `please use ${VALUE} today`);
    const run = await platform.waitForRun(account.key, runId, ["completed", "failed"]);
    expect(run.output).toBe(`Echo: please use ${VALUE} today`);
  });

  it("are no longer redacted in new runs once deleted from the env", async () => {
    const removed = await platform.call(`/agents/${agent}/repos/${repoId}/env/DEPLOY_KEY`, { key: account.key, method: "DELETE" });
    expect(removed.status).toBe(204);
    const runId = await startRun(agent, `${VALUE} and ${OTHER_VALUE}`);
    const run = await platform.waitForRun(account.key, runId, ["completed", "failed"]);
    expect(run.output).toBe(`Echo: ${VALUE} and ${REDACTED_MARKER}`);
  });
});

describe("a resumed run of an agent with env values", () => {
  it("says a cut-off answer that holds a redacted value again whole (not the model's own words to continue): no word twice, none lost", async () => {
    const create = await platform.call("/agents", { key: account.key, body: { name: "Resumable", default_permission_mode: "autonomous" } });
    const resumable = create.body.id as number;
    const bound = await platform.call(`/agents/${resumable}/repos`, { key: account.key, body: { repo_full_name: "octo/resumable" } });
    await platform.call(`/agents/${resumable}/repos/${bound.body.id}/env`, { key: account.key, method: "PUT", body: { env: { DEPLOY_KEY: VALUE } } });
    const { prisma } = platform.database;
    // A pass that died after streaming the value (redacted) and before the last word; its lease is held.
    const run = await prisma.platformRun.create({
      data: {
        accountId: account.id,
        agentId: resumable,
        status: "running",
        permissionMode: "autonomous",
        humanInTheLoop: false,
        model: "inlay/sim",
        effort: "max",
        maxTurns: 20,
        messages: [{ role: "user", content: `say ${VALUE} please` }],
        leaseOwner: "worker_gone",
        leaseExpiresAt: new Date(Date.now() + 60_000),
      },
    });
    const delta = (text: string): RunFrame => ({ type: "content_block_delta", id: "t0", delta: { type: "text_delta", text } });
    await appendEvents(prisma, run.id, [{ type: "run_status", status: "running" }, delta("Echo: "), delta("say "), delta(`${REDACTED_MARKER} `)]);
    await prisma.platformRun.update({ where: { id: run.id }, data: { leaseExpiresAt: new Date(Date.now() - 60_000) } });
    await (await platform.runtime()).worker!.claim();

    const done = await platform.waitForRun(account.key, run.id, ["completed", "failed"]);
    expect(done.output).toBe(`Echo: say ${REDACTED_MARKER} please`);
    const log = await platform.request(`/runs/${run.id}/events`, { headers: { authorization: `Bearer ${account.key}` } });
    const frames = await readFrames(log, { until: (frame) => frame.data.type === "done" });
    expect(textOf(frames)).toBe(done.output);
    // One resume frame, telling readers to drop the cut-off text (back to the run's first frame).
    const resumed = frames.filter((frame) => frame.data.resumed);
    expect(resumed).toHaveLength(1);
    expect(resumed[0]!.data.discard_after).toBe(frames[0]!.id);
    expect(JSON.stringify([frames, done, (await platform.call(`/runs/${run.id}/messages`, { key: account.key })).body])).not.toContain(VALUE);
  });
});
