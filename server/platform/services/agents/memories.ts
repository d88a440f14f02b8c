// Memories an end-user's agents recall. Every operation needs user_id: account-level memories
// (written by agents running without one) are out of this API's reach, so they cannot be listed or
// deleted by naming no end-user.
import type { z } from "zod";
import type { Page } from "@inlay/core/schemas/common";
import type { Memory } from "@inlay/core/schemas/memories";
import { PlatformError } from "../../errors";
import * as memories from "../../repositories/memories";
import type { MemoryRow } from "../../repositories/memories";
import type { DataContext } from "../../infrastructure/hot-cache";
import type { AuthContext } from "../account/auth";
import { toPage } from "../pagination";
import { resolveEndUserScope } from "../scope";

export const toMemory = (row: MemoryRow): z.infer<typeof Memory> => ({
  id: row.id,
  user_id: row.endUser?.externalId ?? null,
  content: row.content,
  source: row.source,
  created_at: row.createdAt.toISOString(),
});

const WHAT = "memory operations";

export async function createMemory(
  ctx: DataContext,
  auth: AuthContext,
  userId: string | undefined,
  content: string,
): Promise<z.infer<typeof Memory>> {
  const scope = await resolveEndUserScope(ctx, auth, userId, WHAT);
  return toMemory(await memories.insertMemory(ctx.prisma, scope, content));
}

export async function listMemories(
  ctx: DataContext,
  auth: AuthContext,
  userId: string | undefined,
  page: { limit: number; startingAfter?: number },
): Promise<Page<z.infer<typeof Memory>>> {
  const scope = await resolveEndUserScope(ctx, auth, userId, WHAT);
  return toPage(await memories.listMemories(ctx.prisma, scope, page), page.limit, toMemory);
}

export async function deleteMemory(
  ctx: DataContext,
  auth: AuthContext,
  userId: string | undefined,
  memoryId: number,
): Promise<void> {
  const scope = await resolveEndUserScope(ctx, auth, userId, WHAT);
  if (!(await memories.deleteMemory(ctx.prisma, scope, memoryId))) {
    throw new PlatformError({ type: "not_found", message: `memory ${memoryId} not found for this user_id` });
  }
}
