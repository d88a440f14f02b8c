// End-user profiles: explicit creation and editing of the profiles that user_id also creates on
// first use, and their deletion with everything scoped to them. Every write drops the profile (and,
// for a deletion, its agents) from every instance's cache (infrastructure/hot-cache.ts).
import type { z } from "zod";
import type { EndUser } from "@inlay/core/schemas/end-users";
import type { Page } from "@inlay/core/schemas/common";
import { PlatformError } from "../../errors";
import type { DataContext } from "../../infrastructure/hot-cache";
import * as endUsers from "../../repositories/end-users";
import type { EndUserRow, ProfileFields } from "../../repositories/end-users";
import { toPage } from "../pagination";

export const toEndUser = (row: EndUserRow): z.infer<typeof EndUser> => ({
  id: row.id,
  user_id: row.externalId,
  name: row.name,
  email: row.email,
  company: row.company,
  metadata: (row.metadata as Record<string, unknown> | null) ?? null,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

const notFound = (userId: string) =>
  new PlatformError({
    type: "not_found",
    message: `no end-user with user_id ${JSON.stringify(userId)} in this account`,
  });

/**
 * Creates the profile. A profile that so far exists only because its user_id was used (no name,
 * email, company or metadata yet) is filled in instead: from the caller's side it was never created.
 * One that already holds profile data is a 409, so a second POST cannot silently overwrite it.
 */
export async function createEndUser(
  ctx: DataContext,
  accountId: number,
  userId: string,
  fields: ProfileFields,
): Promise<z.infer<typeof EndUser>> {
  const row =
    (await endUsers.insertEndUser(ctx.prisma, accountId, userId, fields)) ??
    (await endUsers.fillBlankEndUser(ctx.prisma, accountId, userId, fields));
  if (row) ctx.cache.endUserChanged(accountId, userId, row.id);
  if (!row) {
    throw new PlatformError({
      type: "conflict_error",
      errorCode: "end_user_exists",
      message:
        `user_id: an end-user profile with user_id ${JSON.stringify(userId)} already exists; ` +
        "change it with PATCH /users/{user_id}",
    });
  }
  return toEndUser(row);
}

export async function listEndUsers(
  ctx: DataContext,
  accountId: number,
  page: { limit: number; startingAfter?: number },
): Promise<Page<z.infer<typeof EndUser>>> {
  return toPage(await endUsers.listEndUsers(ctx.prisma, accountId, page), page.limit, toEndUser);
}

export async function getEndUser(ctx: DataContext, accountId: number, userId: string) {
  const row = await endUsers.findEndUser(ctx.prisma, accountId, userId);
  if (!row) throw notFound(userId);
  return toEndUser(row);
}

export async function updateEndUser(ctx: DataContext, accountId: number, userId: string, fields: ProfileFields) {
  const row = await endUsers.updateEndUser(ctx.prisma, accountId, userId, fields);
  if (!row) throw notFound(userId);
  ctx.cache.endUserChanged(accountId, userId, row.id);
  return toEndUser(row);
}

export async function deleteEndUser(ctx: DataContext, accountId: number, userId: string): Promise<void> {
  const rowId = await endUsers.deleteEndUser(ctx.prisma, accountId, userId);
  if (rowId === null) throw notFound(userId);
  ctx.cache.endUserChanged(accountId, userId, rowId);
}
