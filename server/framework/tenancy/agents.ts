// Tenant agents: defined once in the framework (by the tenant's admins, or by a member for
// themselves where the tenant allows personal agents), provisioned as a copy in each member's own
// platform scope on first use, since the platform isolates agents per end-user and a run's user_id
// must match its agent's scope. Every edit bumps the agent's version; a copy behind it is updated
// (PATCH /agents/{id}) the next time its member uses it.
import { AGENT_TOOLS, agentNameKey, tenantAgentInput, type TenantAgentInput } from "@inlay/core/schemas/console";
import type { Agent, AgentCreateParams, PlatformClient } from "@inlay/core/platform-client";
import type { Db } from "@/server/shared/db";
import { databaseMemo } from "@/server/shared/database-memo";
import { TenancyError } from "./errors";
import {
  AgentNameTaken,
  archiveTenantAgent,
  createTenantAgent,
  findAgentCopy,
  findAllowPersonalAgents,
  findVisibleAgent,
  insertAgentCopy,
  listVisibleAgents,
  markAgentCopySynced,
  setAllowPersonalAgents,
  updateTenantAgent,
  type AgentCopyRecord,
  type TenantAgentFields,
  type TenantAgentRecord,
} from "./platform-repository";
import type { TenantAgentView } from "@inlay/core/schemas/console";

export interface Caller {
  tenantId: string;
  userId: string;
  role: "member" | "admin";
}

const toView = (agent: TenantAgentRecord, caller: Caller): TenantAgentView => ({
  id: agent.id,
  scope: agent.ownerUserId ? "personal" : "tenant",
  name: agent.name,
  instructions: agent.instructions,
  model: agent.model,
  permissionMode: agent.permissionMode as TenantAgentView["permissionMode"],
  tools: agent.tools,
  version: agent.version,
  canEdit: agent.ownerUserId ? agent.ownerUserId === caller.userId : caller.role === "admin",
  updatedAt: agent.updatedAt.toISOString(),
});

const fieldsOf = (input: TenantAgentInput): TenantAgentFields => {
  const parsed = tenantAgentInput.parse(input);
  return { ...parsed, tools: [...new Set(parsed.tools)] };
};

/** Whether the caller may define an agent of their own: the workspace's setting; its admins always may. */
const personalAgentsAllowed = (caller: Caller, workspaceAllows: boolean) => workspaceAllows || caller.role === "admin";

export async function listAgents(prisma: Db, caller: Caller) {
  const [agents, allowPersonal] = await Promise.all([
    listVisibleAgents(prisma, caller.tenantId, caller.userId),
    findAllowPersonalAgents(prisma, caller.tenantId),
  ]);
  return {
    agents: agents.map((agent) => toView(agent, caller)),
    canCreateTenant: caller.role === "admin",
    canCreatePersonal: personalAgentsAllowed(caller, allowPersonal),
    allowPersonalAgents: allowPersonal,
  };
}

/**
 * The agent the console's Chat opens when the URL names none: the oldest one the member can see, by
 * name (unique in the tenant), which the chat's header shows.
 */
export async function defaultChatAgentName(prisma: Db, tenantId: string, userId: string): Promise<string | undefined> {
  return (await listVisibleAgents(prisma, tenantId, userId))[0]?.name;
}

/**
 * The name of the agent a chat URL names (its id, or its name in any case) among those the member can
 * see, for the chat's header: undefined when it names none of them (the chat then says so, or makes a
 * personal agent of that name on the first message).
 */
export async function chatAgentTitle(prisma: Db, tenantId: string, userId: string, named: string): Promise<string | undefined> {
  return (await findNamedAgent(prisma, { tenantId, userId }, named))?.name;
}

/** The agent `named` (its id, or its name in any case) among those the member can see, in one query. */
export async function findNamedAgent(prisma: Db, caller: Pick<Caller, "tenantId" | "userId">, named: string): Promise<TenantAgentRecord | undefined> {
  const visible = await listVisibleAgents(prisma, caller.tenantId, caller.userId);
  const key = agentNameKey(named);
  return visible.find((agent) => agent.id === named) ?? visible.find((agent) => agentNameKey(agent.name) === key);
}

/** Whether the caller may define an agent of their own (reads the workspace's setting unless an admin). */
export async function mayCreatePersonalAgent(prisma: Db, caller: Caller): Promise<boolean> {
  return caller.role === "admin" || personalAgentsAllowed(caller, await findAllowPersonalAgents(prisma, caller.tenantId));
}

/** An agent the caller can see; NOT_FOUND for another tenant's or another member's personal one. */
export async function getVisibleAgent(prisma: Db, caller: Caller, id: string): Promise<TenantAgentRecord> {
  const agent = await findVisibleAgent(prisma, caller.tenantId, caller.userId, id);
  if (!agent) throw new TenancyError("NOT_FOUND", "no such agent");
  return agent;
}

export async function getAgent(prisma: Db, caller: Caller, id: string): Promise<TenantAgentView> {
  return toView(await getVisibleAgent(prisma, caller, id), caller);
}

export async function createAgent(
  prisma: Db,
  caller: Caller,
  scope: "tenant" | "personal",
  input: TenantAgentInput,
): Promise<TenantAgentView> {
  if (scope === "tenant" && caller.role !== "admin") throw new TenancyError("FORBIDDEN", "only admins define the workspace's agents");
  if (scope === "personal" && !(await mayCreatePersonalAgent(prisma, caller))) {
    throw new TenancyError("FORBIDDEN", "this workspace does not allow personal agents");
  }
  const fields = fieldsOf(input);
  const agent = await createTenantAgent(prisma, caller.tenantId, scope === "personal" ? caller.userId : null, fields).catch(conflictOnName(fields.name));
  return toView(agent, caller);
}

/** A taken name as the form's error on its field (tRPC CONFLICT, 409). */
function conflictOnName(name: string) {
  return (error: unknown): never => {
    if (error instanceof AgentNameTaken) {
      throw new TenancyError("CONFLICT", `An agent named “${name}” already exists in this workspace: choose another name.`, "name");
    }
    throw error;
  };
}

function assertCanEdit(agent: TenantAgentRecord, caller: Caller) {
  const allowed = agent.ownerUserId ? agent.ownerUserId === caller.userId : caller.role === "admin";
  if (!allowed) throw new TenancyError("FORBIDDEN", "only the workspace's admins change its agents");
}

export async function updateAgent(prisma: Db, caller: Caller, id: string, input: TenantAgentInput) {
  assertCanEdit(await getVisibleAgent(prisma, caller, id), caller);
  const fields = fieldsOf(input);
  if (!(await updateTenantAgent(prisma, caller.tenantId, id, fields).catch(conflictOnName(fields.name)))) {
    throw new TenancyError("NOT_FOUND", "no such agent");
  }
  return getAgent(prisma, caller, id);
}

/** Archived in the framework: no new runs. Members' copies stay on the platform with their history. */
export async function archiveAgent(prisma: Db, caller: Caller, id: string) {
  assertCanEdit(await getVisibleAgent(prisma, caller, id), caller);
  await archiveTenantAgent(prisma, caller.tenantId, id);
}

export async function setPersonalAgentsAllowed(prisma: Db, tenantId: string, allow: boolean) {
  await setAllowPersonalAgents(prisma, tenantId, allow);
}

/** The platform fields of a copy: what the tenant agent says, tools not chosen withheld. */
function platformFields(agent: TenantAgentRecord) {
  return {
    name: agent.name,
    instructions: agent.instructions,
    model: agent.model,
    default_permission_mode: agent.permissionMode as TenantAgentView["permissionMode"],
    enable_memory: agent.tools.includes("memory"),
    disabled_builtin_tools: AGENT_TOOLS.map((tool) => tool.name).filter((name) => !agent.tools.includes(name)),
    metadata: { tenant_agent_id: agent.id, tenant_agent_version: String(agent.version) },
  } satisfies Partial<AgentCreateParams>;
}

const SYNC_ATTEMPTS = 3;
// A member's copy of an agent keeps its platform id, and its synced version only moves forward: a copy
// remembered at the agent's version needs no read.
const knownCopies = databaseMemo<AgentCopyRecord>();

/**
 * The platform agent id of the caller's copy of `agent`, created on first use and brought up to the
 * agent's version. Two first uses at once: both create a platform agent, one copy row wins (ON
 * CONFLICT DO NOTHING), the loser archives its own and uses the winner's.
 */
export async function ensureAgentCopy(
  prisma: Db,
  platform: PlatformClient,
  caller: Caller,
  agent: TenantAgentRecord,
): Promise<number> {
  const key = `${agent.id}:${caller.userId}`;
  const remembered = knownCopies.get(prisma, key);
  if (remembered && remembered.syncedVersion >= agent.version) return remembered.platformAgentId;
  let current = agent;
  for (let attempt = 0; attempt < SYNC_ATTEMPTS; attempt++) {
    const copy = await findAgentCopy(prisma, current.id, caller.userId);
    if (!copy) {
      const created: Agent = await platform.agents.create(platformFields(current));
      if (await insertAgentCopy(prisma, current.id, caller.userId, { platformAgentId: created.id, syncedVersion: current.version })) {
        knownCopies.set(prisma, key, { platformAgentId: created.id, syncedVersion: current.version });
        return created.id;
      }
      await platform.agents.archive(created.id);
      continue;
    }
    knownCopies.set(prisma, key, copy);
    if (copy.syncedVersion >= current.version) return copy.platformAgentId;
    await platform.agents.update(copy.platformAgentId, platformFields(current));
    await markAgentCopySynced(prisma, current.id, caller.userId, current.version);
    knownCopies.set(prisma, key, { platformAgentId: copy.platformAgentId, syncedVersion: current.version });
    // An edit that landed while we patched has a higher version: go round once more for it.
    const latest = await findVisibleAgent(prisma, caller.tenantId, caller.userId, current.id);
    if (!latest || latest.version === current.version) return copy.platformAgentId;
    current = latest;
  }
  const copy = await findAgentCopy(prisma, current.id, caller.userId);
  if (!copy) throw new Error("could not provision the agent's copy");
  return copy.platformAgentId;
}

export type AgentListResult = Awaited<ReturnType<typeof listAgents>>;
