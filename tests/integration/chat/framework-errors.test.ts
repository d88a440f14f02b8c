// The chat routes through the framework's own context (tenant agents, members' copies, the embedded
// platform): another member's or a missing run is 404 on every route, and an agent name the member
// cannot see is 404 that creates nothing, unless a message is sent where personal agents are on.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessDatabase } from "@/server/shared/db";
import { EMBED_ORIGIN_HEADER, EMBED_TOKEN_HEADER, setPlatformClientBinding } from "@/server/framework/chat/framework-context";
import { chatHandlers } from "@/server/framework/chat/handlers";
import { setAllowedOrigins } from "@/server/framework/embed/origins";
import { signEmbedToken } from "@/server/framework/embed/tokens";
import { setPersonalAgentsAllowed } from "@/server/framework/tenancy/agents";
import { lazyPlatformClient } from "@/server/framework/tenancy/platform-users";
import { startFramework, type FrameworkHarness } from "../../helpers/framework";

let fw: FrameworkHarness;
let acmeId: string;
let adminRun: number;
const ORIGIN = "http://127.0.0.1:4000";
const AGENT = "Acme assistant";

async function headersFor(email: string) {
  const user = await fw.database.prisma.user.findUniqueOrThrow({ where: { email } });
  const { token } = await signEmbedToken({ tenantId: acmeId, userId: user.id, origin: ORIGIN });
  return { "content-type": "application/json", [EMBED_TOKEN_HEADER]: token, [EMBED_ORIGIN_HEADER]: ORIGIN };
}

let counter = 0;
const message = (text: string) => ({ id: `m${++counter}`, role: "user", parts: [{ type: "text", text }] });
const post = (path: string, headers: Record<string, string>, body: unknown) =>
  new Request(`http://127.0.0.1${path}`, { method: "POST", headers, body: JSON.stringify(body) });
const get = (path: string, headers: Record<string, string>) => new Request(`http://127.0.0.1${path}`, { headers });

async function errorOf(response: Response) {
  return { status: response.status, kind: ((await response.json()) as { error: { kind: string } }).error.kind };
}

const personalAgents = () => fw.database.prisma.tenantAgent.count({ where: { tenantId: acmeId, ownerUserId: { not: null } } });
const admissions = () => fw.database.prisma.runAdmission.count({ where: { tenantId: acmeId } });

beforeAll(async () => {
  fw = await startFramework();
  setProcessDatabase(fw.database);
  setPlatformClientBinding((prisma, member) => lazyPlatformClient(prisma, () => fw.connect(), member.tenant, member.userId)());
  acmeId = (await fw.database.prisma.tenant.findUniqueOrThrow({ where: { slug: "acme" } })).id;
  await setAllowedOrigins(fw.database.prisma, acmeId, [ORIGIN]);
  const sent = await chatHandlers.send(post("/api/chat", await headersFor("admin@acme.test"), { agent: AGENT, message: message("hello") }));
  expect(sent.status).toBe(200);
  adminRun = Number(sent.headers.get("x-run-id"));
  await sent.text();
});
afterAll(() => fw?.close());

describe("another member's run, or a missing one", () => {
  it("is 404 on /api/chat (reattach and reply), /api/chat/conversation and /api/chat/actions", async () => {
    const member = await headersFor("member@acme.test");
    for (const runId of [adminRun, 987_654]) {
      expect(await errorOf(await chatHandlers.resume(get(`/api/chat?runId=${runId}`, member)))).toEqual({ status: 404, kind: "not_found" });
      expect(await errorOf(await chatHandlers.conversation(get(`/api/chat/conversation?agent=${encodeURIComponent(AGENT)}&runId=${runId}`, member)))).toEqual({
        status: 404,
        kind: "not_found",
      });
      for (const action of [
        { action: "cancel", runId },
        { action: "approve", runId, requestId: "req_1", decision: "allow" },
        { action: "answer", runId, answers: { question: "yes" } },
      ]) {
        expect(await errorOf(await chatHandlers.act(post("/api/chat/actions", member, action)))).toEqual({ status: 404, kind: "not_found" });
      }
      // A reply on it: refused before the member's limits count anything.
      const before = await admissions();
      expect(await errorOf(await chatHandlers.send(post("/api/chat", member, { agent: AGENT, runId, message: message("me too") })))).toEqual({
        status: 404,
        kind: "not_found",
      });
      expect(await admissions()).toBe(before);
    }
  });
});

describe("an agent name the member cannot see", () => {
  it("is 404 and creates nothing for a member while the workspace has personal agents off; its admins always may", async () => {
    await setPersonalAgentsAllowed(fw.database.prisma, acmeId, false);
    const [before, admitted] = [await personalAgents(), await admissions()];
    const member = await headersFor("member@acme.test");
    expect(await errorOf(await chatHandlers.send(post("/api/chat", member, { agent: "Nobody", message: message("hi") })))).toEqual({
      status: 404,
      kind: "not_found",
    });
    expect(await errorOf(await chatHandlers.history(get("/api/chat/history?agent=Nobody", member)))).toEqual({ status: 404, kind: "not_found" });
    expect([await personalAgents(), await admissions()]).toEqual([before, admitted]);
    // As on the Agents page, the workspace's setting is for its members: an admin defines their own.
    const admin = await headersFor("admin@acme.test");
    expect(await errorOf(await chatHandlers.history(get("/api/chat/history?agent=Nobody", admin)))).toEqual({ status: 404, kind: "not_found" });
    const sent = await chatHandlers.send(post("/api/chat", admin, { agent: "Nobody", message: message("hi") }));
    expect(sent.status).toBe(200);
    await sent.text();
    expect(await personalAgents()).toBe(before + 1);
  });

  it("is 404 when only read (history, conversation, commands) even with personal agents on; a sent message makes it", async () => {
    await setPersonalAgentsAllowed(fw.database.prisma, acmeId, true);
    const member = await headersFor("member@acme.test");
    const before = await personalAgents();
    expect(await errorOf(await chatHandlers.history(get("/api/chat/history?agent=Scribe", member)))).toEqual({ status: 404, kind: "not_found" });
    expect(await errorOf(await chatHandlers.commands(get("/api/chat/commands?agent=Scribe", member)))).toEqual({ status: 404, kind: "not_found" });
    expect(await errorOf(await chatHandlers.conversation(get(`/api/chat/conversation?agent=Scribe&runId=${adminRun}`, member)))).toEqual({
      status: 404,
      kind: "not_found",
    });
    expect(await personalAgents()).toBe(before);

    const sent = await chatHandlers.send(post("/api/chat", member, { agent: "Scribe", message: message("hi") }));
    expect(sent.status).toBe(200);
    await sent.text();
    expect(await personalAgents()).toBe(before + 1);
    expect((await chatHandlers.history(get("/api/chat/history?agent=scribe", member))).status).toBe(200);
    await setPersonalAgentsAllowed(fw.database.prisma, acmeId, false);
  });

  it("finds the workspace's agent whatever the case of its name", async () => {
    const member = await headersFor("member@acme.test");
    const response = await chatHandlers.history(get(`/api/chat/history?agent=${encodeURIComponent("ACME Assistant")}`, member));
    expect(response.status).toBe(200);
  });
});
