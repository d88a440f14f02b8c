// The run view (runs.detail, runs.history): a run is read by its owner and by the admins of the
// owner's tenant, with its timeline, model, tokens and exact cost; another member's run (for a
// member), another tenant's, or an unknown id is NOT_FOUND, and so is another member's list.
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessDatabase } from "@/server/shared/db";
import { EMBED_ORIGIN_HEADER, EMBED_TOKEN_HEADER, setPlatformClientBinding } from "@/server/framework/chat/framework-context";
import { chatHandlers } from "@/server/framework/chat/handlers";
import { setAllowedOrigins } from "@/server/framework/embed/origins";
import { signEmbedToken } from "@/server/framework/embed/tokens";
import { costMicrosOf } from "@/server/framework/tenancy/run-ledger";
import { lazyPlatformClient } from "@/server/framework/tenancy/platform-users";
import { startFramework, type FrameworkHarness } from "../../helpers/framework";
import { waitForRun } from "../../helpers/poll";

type Caller = Awaited<ReturnType<FrameworkHarness["callerFor"]>>;

let fw: FrameworkHarness;
let member: Caller;
let admin: Caller;
let globex: Caller;
let agentId: string;
let acmeId: string;
const ORIGIN = "http://127.0.0.1:4100";

beforeAll(async () => {
  fw = await startFramework();
  setProcessDatabase(fw.database);
  setPlatformClientBinding((prisma, who) => lazyPlatformClient(prisma, () => fw.connect(), who.tenant, who.userId)());
  acmeId = (await fw.database.prisma.tenant.findUniqueOrThrow({ where: { slug: "acme" } })).id;
  await setAllowedOrigins(fw.database.prisma, acmeId, [ORIGIN]);
  member = await fw.callerFor("member@acme.test");
  admin = await fw.callerFor("admin@acme.test");
  globex = await fw.callerFor("admin@globex.test");
  agentId = (await member.agents.list()).agents.find((agent) => agent.name === "Acme assistant")!.id;
}, 120_000);
afterAll(() => fw?.close());

const settled = ["completed", "failed", "cancelled"];

async function finishedRun(caller: Caller, message: string) {
  const run = await caller.runs.create({ agentId, message });
  await waitForRun((id) => caller.runs.get({ runId: id }), run.id, settled);
  return run.id;
}

/** A run whose tool call the seeded agent (approval mode) asks about: allowed, then finished. */
async function approvedRun(caller: Caller, message: string) {
  const run = await caller.runs.create({ agentId, message });
  await waitForRun((id) => caller.runs.get({ runId: id }), run.id, ["awaiting_approval"]);
  const [request] = await caller.runs.permissions({ runId: run.id });
  await caller.runs.approve({ runId: run.id, requestId: request!.request_id, decision: "allow" });
  await waitForRun((id) => caller.runs.get({ runId: id }), run.id, settled);
  return run.id;
}

async function notFound(read: Promise<unknown>) {
  const error = await read.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TRPCError);
  expect((error as TRPCError).code).toBe("NOT_FOUND");
}

const userIdOf = async (email: string) => (await fw.database.prisma.user.findUniqueOrThrow({ where: { email } })).id;

describe("runs.detail", () => {
  it("shows the owner their run: the message, the tool call with its input and result, the answer, model, tokens and exact cost", async () => {
    const runId = await approvedRun(member, '::tool calculator {"expression":"6*7"}');
    const detail = await member.runs.detail({ runId });
    const platformRun = await (await fw.connect()).client.forUser(
      (await fw.database.prisma.tenantPlatformUser.findFirstOrThrow({ where: { tenantId: acmeId, userId: await userIdOf("member@acme.test") } })).platformUserId,
    ).runs.get(runId);
    expect(detail).toMatchObject({
      id: runId,
      status: "completed",
      owner: { email: "member@acme.test" },
      model: platformRun.model,
      inputTokens: platformRun.usage.input_tokens,
      outputTokens: platformRun.usage.output_tokens,
      costMicros: costMicrosOf(platformRun.usage.cost_usd),
      trigger: { kind: "console" },
      complete: true,
    });
    expect(detail.costMicros).toBeGreaterThan(0);
    expect(detail.durationMs).toBe(Date.parse(platformRun.finished_at!) - Date.parse(platformRun.created_at));
    // In the order it happened: the call, the approval it waited for and the pause, the resume, then
    // the tool's result and the answer.
    expect(detail.timeline.map((entry) => (entry.type === "status" ? `status:${entry.status}` : entry.type))).toEqual([
      "message",
      "tool_call",
      "request",
      "status:awaiting_approval",
      "status:running",
      "tool_result",
      "message",
      "status:completed",
    ]);
    const [turn, call, approval, pause, resumed, result, answer, end] = detail.timeline;
    expect(turn).toMatchObject({ type: "message", role: "user", text: '::tool calculator {"expression":"6*7"}' });
    expect(call).toMatchObject({ type: "tool_call", name: "calculator", input: { expression: "6*7" }, done: true });
    // The agent asks before its tool (approval mode), and the member allowed it.
    expect(approval).toMatchObject({ type: "request", kind: "tool", toolName: "calculator", status: "allowed" });
    expect(resumed).toMatchObject({ resumed: true });
    expect(result).toMatchObject({ type: "tool_result", name: "calculator" });
    expect(JSON.stringify((result as { result: unknown }).result)).toContain("42");
    expect(answer).toMatchObject({ type: "message", role: "assistant" });
    expect(end).toMatchObject({ type: "status", status: "completed", error: null, durationMs: null });
    // Every step has its start, in order, within the run; the spans are what each lasted.
    const starts = detail.timeline.map((entry) => Date.parse(entry.at!));
    expect(starts.every(Number.isFinite)).toBe(true);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(starts[0]).toBeGreaterThanOrEqual(Date.parse(platformRun.created_at));
    expect(starts.at(-1)).toBeLessThanOrEqual(Date.parse(platformRun.finished_at!));
    expect(call!.durationMs).toBe(Date.parse(result!.at!) - Date.parse(call!.at!));
    expect(approval!.durationMs).toBe(Date.parse((approval as { resolvedAt: string }).resolvedAt) - Date.parse(approval!.at!));
    expect(pause!.durationMs).toBe(Date.parse(resumed!.at!) - Date.parse(pause!.at!));
    expect(answer!.durationMs).toEqual(expect.any(Number));
  });

  it("lets the tenant's admin read a member's run, and no one else", async () => {
    const runId = await finishedRun(member, "for the admin to read");
    expect((await admin.runs.detail({ runId })).owner.email).toBe("member@acme.test");
    await notFound(globex.runs.detail({ runId }));
    // A member does not read another member's run (here the admin's).
    const adminRun = await finishedRun(admin, "the admin's own");
    await notFound(member.runs.detail({ runId: adminRun }));
    await notFound(member.runs.detail({ runId: 2_000_000_000 }));
  });

  it("finds a chat's run (which the framework does not record) for its owner and the admin", async () => {
    const { token } = await signEmbedToken({ tenantId: acmeId, userId: await userIdOf("member@acme.test"), origin: ORIGIN });
    const response = await chatHandlers.send(
      new Request("http://127.0.0.1/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json", [EMBED_TOKEN_HEADER]: token, [EMBED_ORIGIN_HEADER]: ORIGIN },
        body: JSON.stringify({ agent: "Acme assistant", message: { id: "m1", role: "user", parts: [{ type: "text", text: "hello from the chat" }] } }),
      }),
    );
    expect(response.status).toBe(200);
    const runId = Number(response.headers.get("x-run-id"));
    await response.text();
    const mine = await waitForRun((id) => member.runs.detail({ runId: id }), runId, settled);
    expect(mine.trigger).toEqual({ kind: "chat" });
    expect(mine.timeline[0]).toMatchObject({ type: "message", role: "user", text: "hello from the chat" });
    expect((await admin.runs.detail({ runId })).owner.email).toBe("member@acme.test");
    await notFound(globex.runs.detail({ runId }));
  });
});

describe("runs.history", () => {
  it("lists a member's runs for them and their tenant's admin; not another member's for a member, nor across tenants", async () => {
    const runId = await finishedRun(member, "listed");
    const memberId = await userIdOf("member@acme.test");
    const own = await member.runs.history({});
    expect(own.owner?.email).toBe("member@acme.test");
    expect(own.runs.map((run) => run.id)).toContain(runId);
    expect((await admin.runs.history({ memberId })).runs.map((run) => run.id)).toContain(runId);
    await notFound(member.runs.history({ memberId: await userIdOf("admin@acme.test") }));
    await notFound(globex.runs.history({ memberId }));
  });
});
