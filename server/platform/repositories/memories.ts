// Memories. The only module that touches platform_memories. Every query names the account and the
// end-user, so a foreign id is simply not found.
import { Prisma, type PrismaClient } from "@/server/generated/prisma/client";
import { queryRows } from "./direct";

const withUserId = { endUser: { select: { externalId: true } } } as const;

export type MemoryRow = Awaited<ReturnType<typeof insertMemory>>;

export interface MemoryScope {
  accountId: number;
  endUserId: number;
}

// Picked field by field: callers pass a wider Scope, and Prisma refuses unknown fields.
const scoped = (scope: MemoryScope) => ({ accountId: scope.accountId, endUserId: scope.endUserId });

export const insertMemory = (prisma: PrismaClient, scope: MemoryScope, content: string, source = "api") =>
  prisma.platformMemory.create({ data: { ...scoped(scope), content, source }, include: withUserId });

/** Newest first, after the cursor; limit + 1 rows so the caller can tell has_more. */
export const listMemories = (
  prisma: PrismaClient,
  scope: MemoryScope,
  page: { limit: number; startingAfter?: number },
) =>
  prisma.platformMemory.findMany({
    where: { ...scoped(scope), ...(page.startingAfter !== undefined ? { id: { lt: page.startingAfter } } : {}) },
    orderBy: { id: "desc" },
    take: page.limit + 1,
    include: withUserId,
  });

/** False when the scope holds no memory with this id (missing, account-level or someone else's). */
export async function deleteMemory(prisma: PrismaClient, scope: MemoryScope, memoryId: number): Promise<boolean> {
  const { count } = await prisma.platformMemory.deleteMany({ where: { ...scoped(scope), id: memoryId } });
  return count > 0;
}

/** The scope's memories for the system prompt, newest first (account-level when endUserId is null). */
export const recentMemoryContents = async (
  prisma: PrismaClient,
  scope: { accountId: number; endUserId: number | null },
  take: number,
) =>
  // Read for every run with the memory tool (its system prompt): one of the hot statements (direct.ts).
  (
    await queryRows<{ content: string }>(
      prisma,
      Prisma.sql`SELECT content FROM platform_memories
        WHERE account_id = ${scope.accountId} AND ${scope.endUserId === null ? Prisma.sql`end_user_id IS NULL` : Prisma.sql`end_user_id = ${scope.endUserId}`}
        ORDER BY id DESC LIMIT ${take}`,
    )
  ).map((row) => row.content);

/**
 * The same, as a jsonb array in a column of a statement reading a run (the worker's claim); `run`
 * names the run's row.
 */
export const recentMemoriesOfRun = (run: Prisma.Sql, take: number) => Prisma.sql`
  (SELECT COALESCE(jsonb_agg(m.content ORDER BY m.id DESC), '[]'::jsonb) FROM (
     SELECT id, content FROM platform_memories
     WHERE account_id = ${run}.account_id
       AND (end_user_id = ${run}.end_user_id OR (end_user_id IS NULL AND ${run}.end_user_id IS NULL))
     ORDER BY id DESC LIMIT ${take}) m)`;

/** Memories an agent's creation brings (template onboarding answers), in the agent's own scope. */
export const createOnboardingMemories = (
  prisma: PrismaClient,
  scope: { accountId: number; endUserId: number | null },
  agentId: number,
  contents: string[],
) =>
  prisma.platformMemory.createMany({
    data: contents.map((content) => ({
      accountId: scope.accountId,
      endUserId: scope.endUserId,
      agentId,
      content,
      source: "onboarding",
    })),
  });
