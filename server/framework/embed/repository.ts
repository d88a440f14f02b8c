// The embed settings' only Prisma access.
import type { PrismaClient } from "@/server/generated/prisma/client";

export async function findAllowedOrigins(prisma: PrismaClient, tenantId: string): Promise<string[]> {
  const row = await prisma.tenantEmbedSettings.findUnique({ where: { tenantId }, select: { allowedOrigins: true } });
  return row?.allowedOrigins ?? [];
}

/**
 * The user's membership of the tenant, only while the tenant allows `origin` (normalized) to embed its
 * chat: what an embed token's every request checks, in one query. Null otherwise.
 */
export async function findEmbedMembership(
  prisma: PrismaClient,
  { tenantId, userId, origin }: { tenantId: string; userId: string; origin: string },
): Promise<{ tenant: { id: string; slug: string; name: string }; role: "member" | "admin" } | null> {
  const rows = await prisma.$queryRaw<{ id: string; slug: string; name: string; role: "member" | "admin" }[]>`
    SELECT t.id, t.slug, t.name, m.role::text AS role
    FROM memberships m
    JOIN tenants t ON t.id = m.tenant_id
    JOIN tenant_embed_settings s ON s.tenant_id = m.tenant_id
    WHERE m.tenant_id = ${tenantId}::uuid AND m.user_id = ${userId}::uuid AND ${origin} = ANY(s.allowed_origins)`;
  const row = rows[0];
  return row ? { tenant: { id: row.id, slug: row.slug, name: row.name }, role: row.role } : null;
}

/** A tenant's embed settings by its slug (what the embed page and its CSP read), in one query. */
export async function findEmbedSettingsBySlug(prisma: PrismaClient, slug: string): Promise<{ tenantId: string; origins: string[]; toolViews: unknown } | null> {
  const tenant = await prisma.tenant.findUnique({ where: { slug }, select: { id: true, embed: { select: { allowedOrigins: true, toolViews: true } } } });
  return tenant ? { tenantId: tenant.id, origins: tenant.embed?.allowedOrigins ?? [], toolViews: tenant.embed?.toolViews ?? {} } : null;
}

export async function saveAllowedOrigins(prisma: PrismaClient, tenantId: string, origins: string[]): Promise<string[]> {
  const row = await prisma.tenantEmbedSettings.upsert({
    where: { tenantId },
    create: { tenantId, allowedOrigins: origins },
    update: { allowedOrigins: origins },
    select: { allowedOrigins: true },
  });
  return row.allowedOrigins;
}

/** Whether any tenant allows `origin` (a CORS preflight names no tenant: its token comes only with the request after it). */
export async function isOriginAllowedByAnyTenant(prisma: PrismaClient, origin: string): Promise<boolean> {
  const row = await prisma.tenantEmbedSettings.findFirst({ where: { allowedOrigins: { has: origin } }, select: { tenantId: true } });
  return row !== null;
}

/** The tenant's tool views as stored (validated when saved). */
export async function findToolViews(prisma: PrismaClient, tenantId: string): Promise<unknown> {
  const row = await prisma.tenantEmbedSettings.findUnique({ where: { tenantId }, select: { toolViews: true } });
  return row?.toolViews ?? {};
}

export async function saveToolViews(prisma: PrismaClient, tenantId: string, views: Record<string, unknown>): Promise<void> {
  await prisma.tenantEmbedSettings.upsert({
    where: { tenantId },
    create: { tenantId, allowedOrigins: [], toolViews: views as object },
    update: { toolViews: views as object },
  });
}
