// Tool servers and skills a tenant's admins define for their members. The platform keeps both per
// end-user, so each member gets a copy in their own platform scope, as with tenant agents: made when
// the member next starts a run (prepareMemberRun), brought up to date when the definition's version
// moved, and removed from every member's scope when the admins delete it. A server's copy is approved
// on the admins' behalf (they registered it), so its tools join the member's runs at once.
//
// The admin's own copy is made while saving, so what the platform refuses (a URL it will not call, a
// name whose skill slug is taken) is the form's error, and the page can show the tools a server lists.
import { logger } from "@/lib/logger";
import { NotFoundError, PlatformApiError, ValidationError, type PlatformClient } from "@inlay/core/platform-client";
import { skillSlug } from "@inlay/core/schemas/skills";
import {
  tenantSkillInput,
  tenantToolServerInput,
  type TenantSkillInput,
  type TenantToolServerInput,
} from "@inlay/core/schemas/tenant-tools";
import type { Db } from "@/server/shared/db";
import { openWithKeys, seal } from "@/server/shared/secret-box";
import type { Caller } from "./agents";
import { TenancyError } from "./errors";
import type { PlatformConnection } from "./platform-connection";
import { keysFor, TOOL_SERVER_SECRET } from "./sealing";
import * as repo from "./tenant-tools-repository";
import type { TenantToolServerView, TenantSkillView } from "@inlay/core/schemas/tenant-tools";

const secretKeys = () => keysFor(TOOL_SERVER_SECRET);

// --- Views ----------------------------------------------------------------------------------------------

const configOf = (record: repo.TenantToolServerRecord) => (record.authConfig ?? {}) as { header?: string; username?: string };

function serverView(record: repo.TenantToolServerRecord, platform: TenantToolServerView["platform"]): TenantToolServerView {
  const config = configOf(record);
  return {
    id: record.id,
    name: record.name,
    description: record.description,
    url: record.url,
    kind: record.kind,
    authType: record.authType,
    header: config.header ?? "",
    username: config.username ?? "",
    hasSecret: record.secretSealed !== null,
    toolDefs: Array.isArray(record.toolDefs) ? record.toolDefs : [],
    autoApprove: record.autoApprove,
    version: record.version,
    updatedAt: record.updatedAt.toISOString(),
    platform,
  };
}

const skillView = (record: repo.TenantSkillRecord): TenantSkillView => ({
  id: record.id,
  name: record.name,
  slug: skillSlug(record.name),
  description: record.description,
  body: record.body,
  enabled: record.enabled,
  updatedAt: record.updatedAt.toISOString(),
});

// --- What a copy is on the platform -----------------------------------------------------------------------

function serverParams(record: repo.TenantToolServerRecord) {
  const config = configOf(record);
  const authConfig =
    record.authType === "api_key" ? { header: config.header } : record.authType === "basic" ? { username: config.username } : {};
  return {
    name: record.name,
    url: record.url,
    kind: record.kind as "rest_api" | "mcp_http" | "mcp_sse",
    auth_type: record.authType as "none" | "bearer" | "api_key" | "basic",
    auth_config: authConfig,
    ...(record.secretSealed ? { secret: openWithKeys(secretKeys(), record.secretSealed).value } : {}),
    tool_defs: Array.isArray(record.toolDefs) ? record.toolDefs : [],
    description: record.description,
    auto_approve: record.autoApprove,
  };
}

const skillParams = (record: repo.TenantSkillRecord) => ({ name: record.name, description: record.description, body: record.body });

/**
 * One kind of definition copied into members' scopes. `write` creates (id undefined) or updates the
 * platform copy and returns its id; `activate` runs after (approving a server).
 */
interface CopyKind<R extends { id: string; version: number }> {
  label: string;
  copies(prisma: Db, tenantId: string, userId: string): Promise<Map<string, repo.CopyRecord>>;
  insert(prisma: Db, definitionId: string, userId: string, platformId: number): Promise<boolean>;
  markSynced(prisma: Db, definitionId: string, userId: string, version: number): Promise<void>;
  remove(prisma: Db, definitionId: string, userId: string): Promise<void>;
  write(client: PlatformClient, record: R, platformId: number | undefined): Promise<number>;
  discard(client: PlatformClient, platformId: number): Promise<void>;
  activate?(client: PlatformClient, platformId: number): Promise<void>;
  /** False for a definition no member needs a first copy of (a disabled skill). */
  wanted?(record: R): boolean;
}

const serverCopies: CopyKind<repo.TenantToolServerRecord> = {
  label: "tool server",
  copies: repo.toolServerCopies,
  insert: repo.insertToolServerCopy,
  markSynced: repo.markToolServerCopySynced,
  remove: repo.deleteToolServerCopy,
  async write(client, record, platformId) {
    const params = serverParams(record);
    if (platformId === undefined) return (await client.mcpServers.create(params)).id;
    const { kind: _kind, ...update } = params;
    await client.mcpServers.update(platformId, update);
    return platformId;
  },
  discard: (client, platformId) => client.mcpServers.delete(platformId),
  async activate(client, platformId) {
    await client.mcpServers.approve(platformId);
  },
};

const skillCopiesKind: CopyKind<repo.TenantSkillRecord & { enabled: boolean }> = {
  label: "skill",
  copies: repo.skillCopies,
  insert: repo.insertSkillCopy,
  markSynced: repo.markSkillCopySynced,
  remove: repo.deleteSkillCopy,
  async write(client, record, platformId) {
    if (platformId === undefined) return (await client.skills.create({ ...skillParams(record), scope: "account" })).id;
    await client.skills.update(platformId, { ...skillParams(record), status: record.enabled ? "active" : "disabled" });
    return platformId;
  },
  discard: (client, platformId) => client.skills.delete(platformId),
  wanted: (record) => record.enabled,
};

/** The copy was written but not activated (a server that did not answer its approval): retried next sync. */
class ActivationError extends Error {
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
  }
}

/**
 * Brings one member's copy of `record` up to date. Throws what the platform said when it refused.
 * Two first uses at once: both create, one copy row wins, the loser discards its own.
 */
async function syncCopy<R extends { id: string; version: number }>(
  prisma: Db,
  client: PlatformClient,
  kind: CopyKind<R>,
  record: R,
  userId: string,
  copy: repo.CopyRecord | undefined,
): Promise<number> {
  let platformId = copy?.platformId;
  if (platformId === undefined) {
    const created = await kind.write(client, record, undefined);
    if (!(await kind.insert(prisma, record.id, userId, created))) {
      await kind.discard(client, created).catch(() => {});
      return created;
    }
    platformId = created;
  } else {
    try {
      await kind.write(client, record, platformId);
    } catch (error) {
      // The copy went away on the platform (its end-user was deleted): make it again next time.
      if (error instanceof NotFoundError) await kind.remove(prisma, record.id, userId);
      throw error;
    }
  }
  try {
    await kind.activate?.(client, platformId);
  } catch (error) {
    throw new ActivationError(error);
  }
  await kind.markSynced(prisma, record.id, userId, record.version);
  return platformId;
}

async function syncAll<R extends { id: string; version: number }>(
  prisma: Db,
  client: PlatformClient,
  kind: CopyKind<R>,
  records: R[],
  caller: Pick<Caller, "tenantId" | "userId">,
) {
  if (records.length === 0) return; // nothing the tenant defines: no copies to read
  const copies = await kind.copies(prisma, caller.tenantId, caller.userId);
  for (const record of records) {
    const copy = copies.get(record.id);
    if (copy ? copy.syncedVersion >= record.version : kind.wanted?.(record) === false) continue;
    try {
      await syncCopy(prisma, client, kind, record, caller.userId, copy);
    } catch (error) {
      // One definition the platform refuses (a server down while approving) must not stop the run.
      logger.warn({ err: error instanceof Error ? error.message : String(error), id: record.id }, `could not sync a member's ${kind.label}`);
    }
  }
}

/**
 * Before a member's new run: their copies of the tenant's tool servers and skills, made or brought up
 * to date, and the apps the tenant offers (the run names them in its tools: a call to one the member
 * has not connected pauses for a connection). `client` is bound to the member's platform user_id.
 */
export async function prepareMemberRun(prisma: Db, client: PlatformClient, caller: Pick<Caller, "tenantId" | "userId">): Promise<{ apps: string[] }> {
  const { servers, skills, apps } = await repo.listTenantOfferings(prisma, caller.tenantId);
  await syncAll(prisma, client, serverCopies, servers, caller);
  await syncAll(prisma, client, skillCopiesKind, skills, caller);
  return { apps };
}

// --- Admins: tool servers ---------------------------------------------------------------------------------

function requireAdmin(caller: Caller) {
  if (caller.role !== "admin") throw new TenancyError("FORBIDDEN", "only the workspace's admins manage tool servers and skills");
}

/** The platform's refusal of the admin's copy, as the form's error. */
function refusal(error: unknown, what: string): never {
  if (error instanceof ValidationError || (error instanceof PlatformApiError && (error.status ?? 500) < 500)) {
    throw new TenancyError("BAD_REQUEST", `The platform refused this ${what}: ${error.message}`);
  }
  throw error;
}

function serverFields(input: TenantToolServerInput, previous?: repo.TenantToolServerRecord): repo.ToolServerFields {
  const parsed = tenantToolServerInput.parse(input);
  const authConfig = parsed.authType === "api_key" ? { header: parsed.header } : parsed.authType === "basic" ? { username: parsed.username } : {};
  const needsSecret = parsed.authType !== "none";
  const secretSealed = !needsSecret ? null : parsed.secret ? seal(secretKeys()[0]!, parsed.secret) : (previous?.secretSealed ?? null);
  if (needsSecret && !secretSealed) throw new TenancyError("BAD_REQUEST", "Enter the secret (token, key or password).", "secret");
  return {
    name: parsed.name,
    description: parsed.description,
    url: parsed.url,
    kind: parsed.kind,
    authType: parsed.authType,
    authConfig,
    secretSealed,
    toolDefs: parsed.toolDefs as repo.ToolServerFields["toolDefs"],
    autoApprove: parsed.autoApprove,
  };
}

async function adminServerView(prisma: Db, client: PlatformClient, caller: Caller, record: repo.TenantToolServerRecord) {
  const copy = (await repo.toolServerCopies(prisma, caller.tenantId, caller.userId)).get(record.id);
  if (!copy) return serverView(record, null);
  try {
    const server = await client.mcpServers.get(copy.platformId);
    return serverView(record, { status: server.status, tools: server.tools.map((tool) => ({ name: tool.name, description: tool.description })) });
  } catch (error) {
    if (error instanceof NotFoundError) return serverView(record, null);
    throw error;
  }
}

export async function listToolServers(prisma: Db, client: PlatformClient, caller: Caller): Promise<TenantToolServerView[]> {
  requireAdmin(caller);
  const records = await repo.listTenantToolServers(prisma, caller.tenantId);
  return Promise.all(records.map((record) => adminServerView(prisma, client, caller, record)));
}

/** Saves the admin's own copy first, so what the platform refuses is the form's error and nothing is kept. */
async function saveWithAdminCopy(prisma: Db, client: PlatformClient, caller: Caller, record: repo.TenantToolServerRecord) {
  const copy = (await repo.toolServerCopies(prisma, caller.tenantId, caller.userId)).get(record.id);
  try {
    await syncCopy(prisma, client, serverCopies, record, caller.userId, copy);
  } catch (error) {
    // Written, but approval failed (the server did not answer): saved; the page shows the copy pending.
    if (!(error instanceof ActivationError)) throw error;
  }
}

export async function createToolServer(prisma: Db, client: PlatformClient, caller: Caller, input: TenantToolServerInput) {
  requireAdmin(caller);
  const fields = serverFields(input);
  const existing = await repo.listTenantToolServers(prisma, caller.tenantId);
  if (existing.some((server) => server.name === fields.name)) throw new TenancyError("CONFLICT", "A tool server of that name exists.", "name");
  const record = await repo.insertTenantToolServer(prisma, caller.tenantId, fields);
  try {
    await saveWithAdminCopy(prisma, client, caller, record);
  } catch (error) {
    await repo.deleteTenantToolServer(prisma, caller.tenantId, record.id);
    refusal(error, "tool server");
  }
  return adminServerView(prisma, client, caller, (await repo.findTenantToolServer(prisma, caller.tenantId, record.id)) ?? record);
}

export async function updateToolServer(prisma: Db, client: PlatformClient, caller: Caller, id: string, input: TenantToolServerInput) {
  requireAdmin(caller);
  const previous = await repo.findTenantToolServer(prisma, caller.tenantId, id);
  if (!previous) throw new TenancyError("NOT_FOUND", "no such tool server");
  const fields = serverFields(input, previous);
  if (fields.kind !== previous.kind) throw new TenancyError("BAD_REQUEST", "A server's kind cannot change: delete it and add a new one.", "kind");
  const others = await repo.listTenantToolServers(prisma, caller.tenantId);
  if (others.some((server) => server.id !== id && server.name === fields.name)) {
    throw new TenancyError("CONFLICT", "A tool server of that name exists.", "name");
  }
  await repo.updateTenantToolServer(prisma, caller.tenantId, id, fields);
  const record = (await repo.findTenantToolServer(prisma, caller.tenantId, id))!;
  try {
    await saveWithAdminCopy(prisma, client, caller, record);
  } catch (error) {
    // Put the definition back as it was: members keep the copies they have.
    await repo.updateTenantToolServer(prisma, caller.tenantId, id, previous);
    refusal(error, "tool server");
  }
  return adminServerView(prisma, client, caller, record);
}

/** Removed from every member's scope on the platform, then here. */
async function removeCopies(connection: PlatformConnection, owners: repo.CopyOwner[], discard: (client: PlatformClient, id: number) => Promise<void>) {
  for (const owner of owners) {
    if (!owner.platformUserId) continue;
    try {
      await discard(connection.client.forUser(owner.platformUserId), owner.platformId);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
}

export async function deleteToolServer(prisma: Db, connection: PlatformConnection, caller: Caller, id: string) {
  requireAdmin(caller);
  if (!(await repo.findTenantToolServer(prisma, caller.tenantId, id))) throw new TenancyError("NOT_FOUND", "no such tool server");
  await removeCopies(connection, await repo.toolServerCopyOwners(prisma, caller.tenantId, id), serverCopies.discard);
  await repo.deleteTenantToolServer(prisma, caller.tenantId, id);
}

// --- Admins: skills ------------------------------------------------------------------------------------------

export async function listSkills(prisma: Db, caller: Caller): Promise<TenantSkillView[]> {
  requireAdmin(caller);
  return (await repo.listTenantSkills(prisma, caller.tenantId)).map(skillView);
}

async function checkSkillName(prisma: Db, tenantId: string, name: string, exceptId?: string) {
  const slug = skillSlug(name);
  const taken = (await repo.listTenantSkills(prisma, tenantId)).find((skill) => skill.id !== exceptId && skillSlug(skill.name) === slug);
  if (taken) throw new TenancyError("CONFLICT", `"${taken.name}" already answers to /${slug}.`, "name");
}

export async function createSkill(prisma: Db, client: PlatformClient, caller: Caller, input: TenantSkillInput) {
  requireAdmin(caller);
  const fields = tenantSkillInput.parse(input);
  await checkSkillName(prisma, caller.tenantId, fields.name);
  const record = await repo.insertTenantSkill(prisma, caller.tenantId, fields);
  if (record.enabled) {
    try {
      await syncCopy(prisma, client, skillCopiesKind, record, caller.userId, undefined);
    } catch (error) {
      await repo.deleteTenantSkill(prisma, caller.tenantId, record.id);
      refusal(error, "skill");
    }
  }
  return skillView(record);
}

export async function updateSkill(prisma: Db, client: PlatformClient, caller: Caller, id: string, input: TenantSkillInput) {
  requireAdmin(caller);
  const previous = await repo.findTenantSkill(prisma, caller.tenantId, id);
  if (!previous) throw new TenancyError("NOT_FOUND", "no such skill");
  const fields = tenantSkillInput.parse(input);
  await checkSkillName(prisma, caller.tenantId, fields.name, id);
  await repo.updateTenantSkill(prisma, caller.tenantId, id, fields);
  const record = (await repo.findTenantSkill(prisma, caller.tenantId, id))!;
  const copy = (await repo.skillCopies(prisma, caller.tenantId, caller.userId)).get(id);
  if (record.enabled || copy) {
    try {
      await syncCopy(prisma, client, skillCopiesKind, record, caller.userId, copy);
    } catch (error) {
      await repo.updateTenantSkill(prisma, caller.tenantId, id, previous);
      refusal(error, "skill");
    }
  }
  return skillView(record);
}

export async function deleteSkill(prisma: Db, connection: PlatformConnection, caller: Caller, id: string) {
  requireAdmin(caller);
  if (!(await repo.findTenantSkill(prisma, caller.tenantId, id))) throw new TenancyError("NOT_FOUND", "no such skill");
  await removeCopies(connection, await repo.skillCopyOwners(prisma, caller.tenantId, id), skillCopiesKind.discard);
  await repo.deleteTenantSkill(prisma, caller.tenantId, id);
}
