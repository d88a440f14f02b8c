// tRPC `tools` and the member side over the real embedded platform: a tenant admin registers a remote
// MCP server (a loopback one) and writes a skill; each member gets their own approved copy with their
// next run, which calls the server's tool; edits reach the copies, deletion removes them; members and
// other tenants neither manage nor receive them; the chat's `/` picker lists the skill.
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChatHandlers } from "@/server/framework/chat/bridge";
import type { ChatContext } from "@/server/framework/chat/context";
import { closeMcpClients } from "@/server/platform/tool-servers/mcp-client";
import { startFramework, type FrameworkHarness } from "../../helpers/framework";
import { startMcpServer, type McpTestServer } from "../../helpers/mcp-server";

let mcp: McpTestServer;
let fw: FrameworkHarness;
beforeAll(async () => {
  mcp = await startMcpServer();
  fw = await startFramework({ outboundAllowLoopback: true });
});
afterAll(async () => {
  await fw?.close();
  await closeMcpClients();
  await mcp?.close();
});

async function codeOf(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return error instanceof TRPCError ? error.code : String(error);
  }
  return "resolved";
}

const server = (overrides: Record<string, unknown> = {}) => ({
  name: "Helpdesk",
  description: "The helpdesk's tools",
  url: mcp.url,
  kind: "mcp_http" as const,
  authType: "none" as const,
  ...overrides,
});

async function tenantAgent(email: string, name: string) {
  const admin = await fw.callerFor(email);
  return admin.agents.create({ scope: "tenant", agent: { name, instructions: "", model: null, permissionMode: "autonomous", tools: [] } });
}

async function finished(caller: Awaited<ReturnType<FrameworkHarness["callerFor"]>>, runId: number) {
  let run = await caller.runs.get({ runId });
  await expect
    .poll(async () => (run = await caller.runs.get({ runId })).status, { timeout: 30_000 })
    .toMatch(/^(completed|failed|cancelled|waiting_for_approval|waiting_for_answer)$/);
  return run;
}

/** The platform's servers in a member's own scope (their copies). */
async function platformServersOf(email: string, tenantSlug = "acme") {
  const connection = await fw.connect();
  const tenant = await fw.database.prisma.tenant.findUniqueOrThrow({ where: { slug: tenantSlug } });
  const user = await fw.database.prisma.user.findUniqueOrThrow({ where: { email } });
  const row = await fw.database.prisma.tenantPlatformUser.findUnique({ where: { tenantId_userId: { tenantId: tenant.id, userId: user.id } } });
  if (!row) return [];
  return (await connection.client.forUser(row.platformUserId).mcpServers.list()).data;
}

describe("tools: tool servers", () => {
  it("admins register an MCP server: their own copy is approved at once and lists the server's tools", async () => {
    const admin = await fw.callerFor("admin@acme.test");
    const created = await admin.tools.createServer(server());
    expect(created).toMatchObject({ name: "Helpdesk", kind: "mcp_http", hasSecret: false, platform: { status: "approved" } });
    expect(created.platform!.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["echo", "add"]));
    expect((await admin.tools.servers()).map((each) => each.name)).toEqual(["Helpdesk"]);
    // One name per tenant.
    expect(await codeOf(admin.tools.createServer(server()))).toBe("CONFLICT");
  });

  it("refuses members, and keeps tenants apart", async () => {
    const member = await fw.callerFor("member@acme.test");
    expect(await codeOf(member.tools.servers())).toBe("FORBIDDEN");
    expect(await codeOf(member.tools.createServer(server({ name: "Mine" })))).toBe("FORBIDDEN");
    const globex = await fw.callerFor("admin@globex.test");
    expect(await globex.tools.servers()).toEqual([]);
    const acmeServer = (await (await fw.callerFor("admin@acme.test")).tools.servers())[0]!;
    expect(await codeOf(globex.tools.deleteServer({ id: acmeServer.id }))).toBe("NOT_FOUND");
  });

  it("refuses what the platform would refuse, keeping nothing, and a secret without an auth type's fields", async () => {
    const admin = await fw.callerFor("admin@acme.test");
    expect(await codeOf(admin.tools.createServer(server({ name: "Plain", url: "http://tools.example.test/mcp" })))).toBe("BAD_REQUEST");
    expect(await codeOf(admin.tools.createServer(server({ name: "Keyed", authType: "api_key", secret: "k" })))).toBe("BAD_REQUEST");
    expect(await codeOf(admin.tools.createServer(server({ name: "Tokenless", authType: "bearer" })))).toBe("BAD_REQUEST");
    expect((await admin.tools.servers()).map((each) => each.name)).toEqual(["Helpdesk"]);
  });

  it("a member's run gets their own approved copy and calls the server's tool", async () => {
    const agent = await tenantAgent("admin@acme.test", "Helper");
    const member = await fw.callerFor("member@acme.test");
    expect(await platformServersOf("member@acme.test")).toEqual([]);
    const before = mcp.calls.echo ?? 0;
    const run = await member.runs.create({ agentId: agent.id, message: '::tool *__echo {"text":"from max"}' });
    const done = await finished(member, run.id);
    expect(done.status).toBe("completed");
    expect(done.output).toMatch(/^Tool srv\d+__echo returned .*from max/);
    expect(mcp.calls.echo).toBe(before + 1);
    const copies = await platformServersOf("member@acme.test");
    expect(copies).toHaveLength(1);
    expect(copies[0]).toMatchObject({ name: "Helpdesk", status: "approved", user_id: expect.any(String) });
    // Another tenant's member has none, and their run finds no such tool.
    const globexAgent = await tenantAgent("admin@globex.test", "Helper");
    const globex = await fw.callerFor("admin@globex.test");
    const other = await finished(globex, (await globex.runs.create({ agentId: globexAgent.id, message: '::tool *__echo {"text":"x"}' })).id);
    expect(other.output).toMatch(/^Tool \*__echo failed/);
  });

  it("edits reach the members' copies with their next run; deleting removes every copy", async () => {
    const admin = await fw.callerFor("admin@acme.test");
    const [helpdesk] = await admin.tools.servers();
    const updated = await admin.tools.updateServer({ id: helpdesk!.id, server: server({ description: "Renamed tools", autoApprove: true }) });
    expect(updated).toMatchObject({ description: "Renamed tools", autoApprove: true, version: helpdesk!.version + 1 });
    const member = await fw.callerFor("member@acme.test");
    const agent = (await member.agents.list()).agents.find((each) => each.name === "Helper")!;
    await finished(member, (await member.runs.create({ agentId: agent.id, message: "hello" })).id);
    expect((await platformServersOf("member@acme.test"))[0]).toMatchObject({ description: "Renamed tools", auto_approve: true });

    await admin.tools.deleteServer({ id: helpdesk!.id });
    expect(await admin.tools.servers()).toEqual([]);
    expect(await platformServersOf("member@acme.test")).toEqual([]);
    expect(await platformServersOf("admin@acme.test")).toEqual([]);
    const after = await finished(member, (await member.runs.create({ agentId: agent.id, message: '::tool *__echo {"text":"x"}' })).id);
    expect(after.output).toMatch(/^Tool \*__echo failed/);
  });
});

describe("tools: skills", () => {
  it("admins write a skill; members cannot; a clashing slug is refused", async () => {
    const admin = await fw.callerFor("admin@acme.test");
    const skill = await admin.tools.createSkill({ name: "Weekly report", description: "Write the weekly report", body: "List the week's wins first." });
    expect(skill).toMatchObject({ slug: "weekly-report", enabled: true });
    expect(await codeOf(admin.tools.createSkill({ name: "weekly  REPORT", description: "d", body: "b" }))).toBe("CONFLICT");
    const member = await fw.callerFor("member@acme.test");
    expect(await codeOf(member.tools.skills())).toBe("FORBIDDEN");
    expect(await (await fw.callerFor("admin@globex.test")).tools.skills()).toEqual([]);
  });

  it("the chat's / picker lists it for a member (their copy made first), and not once turned off", async () => {
    const member = await fw.callerFor("member@acme.test");
    const agent = (await member.agents.list()).agents.find((each) => each.name === "Helper")!;
    const connection = await fw.connect();
    const tenant = await fw.database.prisma.tenant.findUniqueOrThrow({ where: { slug: "acme" } });
    const user = await fw.database.prisma.user.findUniqueOrThrow({ where: { email: "member@acme.test" } });
    const { prepareMemberRun } = await import("@/server/framework/tenancy/tenant-tools");
    const { ensurePlatformUser } = await import("@/server/framework/tenancy/platform-users");
    const client = connection.client.forUser(await ensurePlatformUser(fw.database.prisma, connection, tenant, user.id));
    const { ensureAgentCopy, getVisibleAgent } = await import("@/server/framework/tenancy/agents");
    const caller = { tenantId: tenant.id, userId: user.id, role: "member" as const };
    const handlers = createChatHandlers(async () => ({
      client,
      agentId: async () => ensureAgentCopy(fw.database.prisma, client, caller, await getVisibleAgent(fw.database.prisma, caller, agent.id)),
      prepare: () => prepareMemberRun(fw.database.prisma, client, caller),
      subject: { tenantId: tenant.id, userId: user.id, via: "session" },
    } satisfies ChatContext));
    const list = async () => {
      const response = await handlers.commands(new Request(`http://localhost/api/chat/commands?agent=${agent.id}`));
      expect(response.status).toBe(200);
      return ((await response.json()) as { commands: { slug: string; kind: string }[] }).commands;
    };
    expect(await list()).toContainEqual(expect.objectContaining({ slug: "weekly-report", kind: "skill" }));

    const admin = await fw.callerFor("admin@acme.test");
    const [skill] = await admin.tools.skills();
    await admin.tools.updateSkill({ id: skill!.id, skill: { name: skill!.name, description: skill!.description, body: skill!.body, enabled: false } });
    expect((await list()).some((command) => command.slug === "weekly-report")).toBe(false);

    await admin.tools.deleteSkill({ id: skill!.id });
    expect(await admin.tools.skills()).toEqual([]);
    expect((await client.skills.list()).data).toEqual([]);
  });
});
