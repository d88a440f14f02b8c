// Which apps a tenant offers its members (tenant_apps). No row, or enabled = false: not offered.
import type { PrismaClient } from "@/server/generated/prisma/client";

export async function listOfferedApps(prisma: PrismaClient, tenantId: string): Promise<string[]> {
  const rows = await prisma.tenantApp.findMany({ where: { tenantId, enabled: true }, select: { app: true }, orderBy: { app: "asc" } });
  return rows.map((row) => row.app);
}

export async function isAppOffered(prisma: PrismaClient, tenantId: string, app: string): Promise<boolean> {
  const row = await prisma.tenantApp.findUnique({ where: { tenantId_app: { tenantId, app } }, select: { enabled: true } });
  return row?.enabled === true;
}

export async function setAppOffered(prisma: PrismaClient, tenantId: string, app: string, enabled: boolean): Promise<void> {
  await prisma.tenantApp.upsert({
    where: { tenantId_app: { tenantId, app } },
    create: { tenantId, app, enabled },
    update: { enabled },
  });
}
