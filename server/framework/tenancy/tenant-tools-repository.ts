// Tool servers and skills a tenant's admins defined (tenant_tool_servers, tenant_skills) and the
// members' platform copies of them (…_copies); a new run reads them with the offered apps (tenant_apps). Copies follow the tenant agents' pattern
// (platform-repository.ts): inserted ON CONFLICT DO NOTHING, marked synced only forward.
import type { Prisma, PrismaClient } from "@/server/generated/prisma/client";

export interface TenantToolServerRecord {
  id: string;
  name: string;
  description: string;
  url: string;
  kind: string;
  authType: string;
  authConfig: Prisma.JsonValue;
  secretSealed: string | null;
  toolDefs: Prisma.JsonValue;
  autoApprove: boolean;
  version: number;
  updatedAt: Date;
}

export interface TenantSkillRecord {
  id: string;
  name: string;
  description: string;
  body: string;
  enabled: boolean;
  version: number;
  updatedAt: Date;
}

export type ToolServerFields = Omit<TenantToolServerRecord, "id" | "version" | "updatedAt">;
export type SkillFields = Omit<TenantSkillRecord, "id" | "version" | "updatedAt">;

export interface CopyRecord {
  platformId: number;
  syncedVersion: number;
}

/** A member's copy with the platform end-user it lives under (for removing it from the platform). */
export interface CopyOwner {
  userId: string;
  platformId: number;
  platformUserId: string | null;
}

const serverSelect = {
  id: true,
  name: true,
  description: true,
  url: true,
  kind: true,
  authType: true,
  authConfig: true,
  secretSealed: true,
  toolDefs: true,
  autoApprove: true,
  version: true,
  updatedAt: true,
} as const;

const skillSelect = { id: true, name: true, description: true, body: true, enabled: true, version: true, updatedAt: true } as const;

/** What a tenant offers every member's new run: its tool servers and skills (copied to the member), and the apps it enabled. */
export interface TenantOfferings {
  servers: TenantToolServerRecord[];
  skills: TenantSkillRecord[];
  apps: string[];
}

/**
 * The tenant's tool servers, skills and offered apps (tenant_apps, enabled) in one round trip: every
 * new run reads all three before it starts. Ordered by name, as the lists below.
 */
export async function listTenantOfferings(prisma: PrismaClient, tenantId: string): Promise<TenantOfferings> {
  const rows = await prisma.$queryRaw<{ servers: (Omit<TenantToolServerRecord, "updatedAt"> & { updatedAt: string })[]; skills: (Omit<TenantSkillRecord, "updatedAt"> & { updatedAt: string })[]; apps: string[] }[]>`
    SELECT
      (SELECT coalesce(json_agg(s ORDER BY s.name), '[]'::json) FROM (
        SELECT id, name, description, url, kind, auth_type AS "authType", auth_config AS "authConfig",
               secret_sealed AS "secretSealed", tool_defs AS "toolDefs", auto_approve AS "autoApprove", version, updated_at AS "updatedAt"
        FROM tenant_tool_servers WHERE tenant_id = ${tenantId}::uuid) s) AS servers,
      (SELECT coalesce(json_agg(k ORDER BY k.name), '[]'::json) FROM (
        SELECT id, name, description, body, enabled, version, updated_at AS "updatedAt"
        FROM tenant_skills WHERE tenant_id = ${tenantId}::uuid) k) AS skills,
      (SELECT coalesce(array_agg(app ORDER BY app), '{}') FROM tenant_apps WHERE tenant_id = ${tenantId}::uuid AND enabled) AS apps`;
  const row = rows[0]!;
  return {
    servers: row.servers.map((server) => ({ ...server, updatedAt: new Date(server.updatedAt) })),
    skills: row.skills.map((skill) => ({ ...skill, updatedAt: new Date(skill.updatedAt) })),
    apps: row.apps,
  };
}

// --- Tool servers ---------------------------------------------------------------------------------------

export const listTenantToolServers = (prisma: PrismaClient, tenantId: string): Promise<TenantToolServerRecord[]> =>
  prisma.tenantToolServer.findMany({ where: { tenantId }, select: serverSelect, orderBy: { name: "asc" } });

export const findTenantToolServer = (prisma: PrismaClient, tenantId: string, id: string): Promise<TenantToolServerRecord | null> =>
  prisma.tenantToolServer.findFirst({ where: { id, tenantId }, select: serverSelect });

export const insertTenantToolServer = (prisma: PrismaClient, tenantId: string, fields: ToolServerFields): Promise<TenantToolServerRecord> =>
  prisma.tenantToolServer.create({ data: { tenantId, ...fields, authConfig: fields.authConfig ?? {}, toolDefs: fields.toolDefs ?? [] }, select: serverSelect });

/** Every edit bumps the version: members' copies catch up when next used. */
export async function updateTenantToolServer(prisma: PrismaClient, tenantId: string, id: string, fields: ToolServerFields): Promise<boolean> {
  const { count } = await prisma.tenantToolServer.updateMany({
    where: { id, tenantId },
    data: { ...fields, authConfig: fields.authConfig ?? {}, toolDefs: fields.toolDefs ?? [], version: { increment: 1 } },
  });
  return count === 1;
}

export async function deleteTenantToolServer(prisma: PrismaClient, tenantId: string, id: string): Promise<boolean> {
  const { count } = await prisma.tenantToolServer.deleteMany({ where: { id, tenantId } });
  return count === 1;
}

export async function toolServerCopies(prisma: PrismaClient, tenantId: string, userId: string): Promise<Map<string, CopyRecord>> {
  const rows = await prisma.tenantToolServerCopy.findMany({
    where: { userId, server: { tenantId } },
    select: { tenantToolServerId: true, platformServerId: true, syncedVersion: true },
  });
  return new Map(rows.map((row) => [row.tenantToolServerId, { platformId: row.platformServerId, syncedVersion: row.syncedVersion }]));
}

export async function insertToolServerCopy(prisma: PrismaClient, tenantToolServerId: string, userId: string, platformId: number): Promise<boolean> {
  const { count } = await prisma.tenantToolServerCopy.createMany({
    data: [{ tenantToolServerId, userId, platformServerId: platformId, syncedVersion: 0 }],
    skipDuplicates: true,
  });
  return count === 1;
}

export async function markToolServerCopySynced(prisma: PrismaClient, tenantToolServerId: string, userId: string, version: number) {
  await prisma.tenantToolServerCopy.updateMany({ where: { tenantToolServerId, userId, syncedVersion: { lt: version } }, data: { syncedVersion: version } });
}

export async function deleteToolServerCopy(prisma: PrismaClient, tenantToolServerId: string, userId: string) {
  await prisma.tenantToolServerCopy.deleteMany({ where: { tenantToolServerId, userId } });
}

export async function toolServerCopyOwners(prisma: PrismaClient, tenantId: string, tenantToolServerId: string): Promise<CopyOwner[]> {
  const rows = await prisma.tenantToolServerCopy.findMany({
    where: { tenantToolServerId, server: { tenantId } },
    select: { userId: true, platformServerId: true, user: { select: { platformUsers: { where: { tenantId }, select: { platformUserId: true } } } } },
  });
  return rows.map((row) => ({ userId: row.userId, platformId: row.platformServerId, platformUserId: row.user.platformUsers[0]?.platformUserId ?? null }));
}

// --- Skills ---------------------------------------------------------------------------------------------

export const listTenantSkills = (prisma: PrismaClient, tenantId: string): Promise<TenantSkillRecord[]> =>
  prisma.tenantSkill.findMany({ where: { tenantId }, select: skillSelect, orderBy: { name: "asc" } });

export const findTenantSkill = (prisma: PrismaClient, tenantId: string, id: string): Promise<TenantSkillRecord | null> =>
  prisma.tenantSkill.findFirst({ where: { id, tenantId }, select: skillSelect });

export const insertTenantSkill = (prisma: PrismaClient, tenantId: string, fields: SkillFields): Promise<TenantSkillRecord> =>
  prisma.tenantSkill.create({ data: { tenantId, ...fields }, select: skillSelect });

export async function updateTenantSkill(prisma: PrismaClient, tenantId: string, id: string, fields: SkillFields): Promise<boolean> {
  const { count } = await prisma.tenantSkill.updateMany({ where: { id, tenantId }, data: { ...fields, version: { increment: 1 } } });
  return count === 1;
}

export async function deleteTenantSkill(prisma: PrismaClient, tenantId: string, id: string): Promise<boolean> {
  const { count } = await prisma.tenantSkill.deleteMany({ where: { id, tenantId } });
  return count === 1;
}

export async function skillCopies(prisma: PrismaClient, tenantId: string, userId: string): Promise<Map<string, CopyRecord>> {
  const rows = await prisma.tenantSkillCopy.findMany({
    where: { userId, skill: { tenantId } },
    select: { tenantSkillId: true, platformSkillId: true, syncedVersion: true },
  });
  return new Map(rows.map((row) => [row.tenantSkillId, { platformId: row.platformSkillId, syncedVersion: row.syncedVersion }]));
}

export async function insertSkillCopy(prisma: PrismaClient, tenantSkillId: string, userId: string, platformId: number): Promise<boolean> {
  const { count } = await prisma.tenantSkillCopy.createMany({ data: [{ tenantSkillId, userId, platformSkillId: platformId, syncedVersion: 0 }], skipDuplicates: true });
  return count === 1;
}

export async function markSkillCopySynced(prisma: PrismaClient, tenantSkillId: string, userId: string, version: number) {
  await prisma.tenantSkillCopy.updateMany({ where: { tenantSkillId, userId, syncedVersion: { lt: version } }, data: { syncedVersion: version } });
}

export async function deleteSkillCopy(prisma: PrismaClient, tenantSkillId: string, userId: string) {
  await prisma.tenantSkillCopy.deleteMany({ where: { tenantSkillId, userId } });
}

export async function skillCopyOwners(prisma: PrismaClient, tenantId: string, tenantSkillId: string): Promise<CopyOwner[]> {
  const rows = await prisma.tenantSkillCopy.findMany({
    where: { tenantSkillId, skill: { tenantId } },
    select: { userId: true, platformSkillId: true, user: { select: { platformUsers: { where: { tenantId }, select: { platformUserId: true } } } } },
  });
  return rows.map((row) => ({ userId: row.userId, platformId: row.platformSkillId, platformUserId: row.user.platformUsers[0]?.platformUserId ?? null }));
}
