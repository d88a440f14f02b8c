// Permissions (per end-user tool allow-list). The only module that touches platform_permissions.
// Every query names the account, and the end-user when the caller gave one.
import type { PrismaClient } from "@/server/generated/prisma/client";
import { Prisma } from "@/server/generated/prisma/client";

const withUserId = { endUser: { select: { externalId: true } } } as const;

export type PermissionRow = NonNullable<Awaited<ReturnType<typeof findPermission>>>;

/** An account, optionally narrowed to one end-user (null: every end-user of the account). */
export interface PermissionScope {
  accountId: number;
  endUserId: number | null;
}

const scoped = (scope: PermissionScope) => ({
  accountId: scope.accountId,
  ...(scope.endUserId !== null ? { endUserId: scope.endUserId } : {}),
});

const findPermission = (prisma: PrismaClient, accountId: number, endUserId: number, tool: string) =>
  prisma.platformPermission.findUnique({
    where: { accountId_endUserId_tool: { accountId, endUserId, tool } },
    include: withUserId,
  });

/** The permission, created unless the end-user already has it. */
export async function ensurePermission(
  prisma: PrismaClient,
  scope: { accountId: number; endUserId: number },
  tool: string,
): Promise<PermissionRow> {
  const existing = await findPermission(prisma, scope.accountId, scope.endUserId, tool);
  if (existing) return existing;
  try {
    return await prisma.platformPermission.create({
      // Picked field by field: callers pass a wider Scope, and Prisma refuses unknown fields.
      data: { accountId: scope.accountId, endUserId: scope.endUserId, tool },
      include: withUserId,
    });
  } catch (error) {
    // Two requests for the same permission at once: the other one created it.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      const row = await findPermission(prisma, scope.accountId, scope.endUserId, tool);
      if (row) return row;
    }
    throw error;
  }
}

/** Newest first, after the cursor; limit + 1 rows so the caller can tell has_more. */
export const listPermissions = (
  prisma: PrismaClient,
  scope: PermissionScope,
  page: { limit: number; startingAfter?: number },
) =>
  prisma.platformPermission.findMany({
    where: { ...scoped(scope), ...(page.startingAfter !== undefined ? { id: { lt: page.startingAfter } } : {}) },
    orderBy: { id: "desc" },
    take: page.limit + 1,
    include: withUserId,
  });

/** False when the scope holds no permission with this id. */
export async function deletePermission(
  prisma: PrismaClient,
  scope: PermissionScope,
  permissionId: number,
): Promise<boolean> {
  const { count } = await prisma.platformPermission.deleteMany({ where: { ...scoped(scope), id: permissionId } });
  return count > 0;
}

/** The tools an end-user always allows, for a run in approval mode. */
export async function listPermissionsForEndUser(prisma: PrismaClient, accountId: number, endUserId: number): Promise<Set<string>> {
  const rows = await prisma.platformPermission.findMany({ where: { accountId, endUserId }, select: { tool: true } });
  return new Set(rows.map((row) => row.tool));
}
