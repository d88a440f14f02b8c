// Permissions: the tools an end-user has allowed for good, auto-approved when their runs use
// approval mode.
import type { z } from "zod";
import type { Page } from "@inlay/core/schemas/common";
import type { Permission } from "@inlay/core/schemas/permissions";
import { PlatformError } from "../../errors";
import * as permissions from "../../repositories/permissions";
import type { PermissionRow } from "../../repositories/permissions";
import type { DataContext } from "../../infrastructure/hot-cache";
import type { AuthContext } from "../account/auth";
import { toPage } from "../pagination";
import { resolveEndUserScope, resolveScope } from "../scope";

export const toPermission = (row: PermissionRow): z.infer<typeof Permission> => ({
  id: row.id,
  user_id: row.endUser.externalId,
  tool: row.tool,
  created_at: row.createdAt.toISOString(),
});

/** Idempotent: allowing a tool the end-user already allows returns the existing record unchanged. */
export async function allowTool(
  ctx: DataContext,
  auth: AuthContext,
  userId: string | undefined,
  tool: string,
): Promise<z.infer<typeof Permission>> {
  const scope = await resolveEndUserScope(ctx, auth, userId, "permissions");
  return toPermission(await permissions.ensurePermission(ctx.prisma, scope, tool));
}

/** One end-user's permissions, or (without user_id, strict mode off) every permission of the account. */
export async function listPermissions(
  ctx: DataContext,
  auth: AuthContext,
  userId: string | undefined,
  page: { limit: number; startingAfter?: number },
): Promise<Page<z.infer<typeof Permission>>> {
  const scope = await resolveScope(ctx, auth, userId, { strict: true });
  return toPage(await permissions.listPermissions(ctx.prisma, scope, page), page.limit, toPermission);
}

/**
 * Only with the end-user's user_id: permissions exist per end-user, and the account view must not
 * reach an end-user's objects (the spec's "guards against cross-user deletion").
 */
export async function revokePermission(
  ctx: DataContext,
  auth: AuthContext,
  userId: string | undefined,
  permissionId: number,
): Promise<void> {
  const scope = await resolveEndUserScope(ctx, auth, userId, "deleting a permission");
  if (!(await permissions.deletePermission(ctx.prisma, scope, permissionId))) {
    throw new PlatformError({ type: "not_found", message: `permission ${permissionId} not found for this user_id` });
  }
}
