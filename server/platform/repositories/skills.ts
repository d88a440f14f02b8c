// Skills. The only module that touches platform_skills. Every query names the account and the owner
// scope (account level or one end-user), so another scope's skill is simply not found.
import { Prisma, type PrismaClient } from "@/server/generated/prisma/client";

const withUserId = { endUser: { select: { externalId: true } } } as const;

export type SkillRow = Prisma.PlatformSkillGetPayload<{ include: typeof withUserId }>;

export interface SkillScope {
  accountId: number;
  /** Null for the account-level scope. */
  endUserId: number | null;
}

// Picked field by field: callers pass a wider Scope, and Prisma refuses unknown fields.
const scoped = (scope: SkillScope) => ({ accountId: scope.accountId, endUserId: scope.endUserId });

/** The owner_key column: the end-user's row id, 0 for the account level (see schema.prisma). */
const ownerKey = (scope: SkillScope) => scope.endUserId ?? 0;

export interface NewSkill {
  name: string;
  slug: string;
  description: string;
  body: string;
  scope: "account" | "agent";
  agentId: number | null;
}

/** Thrown when the scope already has a skill with the slug (the unique index decides races). */
export class SkillSlugTaken extends Error {
  constructor(readonly slug: string) {
    super(`a skill with slug "${slug}" exists in this scope`);
  }
}

const isUniqueViolation = (error: unknown) => error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";

export async function insertSkill(prisma: PrismaClient, scope: SkillScope, skill: NewSkill): Promise<SkillRow> {
  try {
    return await prisma.platformSkill.create({
      data: { ...scoped(scope), ownerKey: ownerKey(scope), ...skill },
      include: withUserId,
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new SkillSlugTaken(skill.slug);
    throw error;
  }
}

export const findSkill = (prisma: PrismaClient, scope: SkillScope, id: number) =>
  prisma.platformSkill.findFirst({ where: { ...scoped(scope), id }, include: withUserId });

/** Newest first, after the cursor; limit + 1 rows so the caller can tell has_more. */
export const listSkills = (prisma: PrismaClient, scope: SkillScope, page: { limit: number; startingAfter?: number }) =>
  prisma.platformSkill.findMany({
    where: { ...scoped(scope), ...(page.startingAfter !== undefined ? { id: { lt: page.startingAfter } } : {}) },
    orderBy: { id: "desc" },
    take: page.limit + 1,
    include: withUserId,
  });

/** The skills (any status) an agent of the scope is offered: scope account, and scope agent for this agent. */
export const listSkillsForAgent = (prisma: PrismaClient, scope: SkillScope, agentId: number | null) =>
  prisma.platformSkill.findMany({
    where: {
      ...scoped(scope),
      OR: [{ scope: "account" }, ...(agentId === null ? [] : [{ scope: "agent", agentId }])],
    },
    orderBy: { slug: "asc" },
    include: withUserId,
  });

/** The scope's skill with this slug, whatever its status and agent (the caller decides what it may do). */
export const findSkillBySlug = (prisma: PrismaClient, scope: SkillScope, slug: string) =>
  prisma.platformSkill.findFirst({ where: { accountId: scope.accountId, ownerKey: ownerKey(scope), slug }, include: withUserId });

/** Null when the scope holds no skill with this id. */
export async function updateSkill(
  prisma: PrismaClient,
  scope: SkillScope,
  id: number,
  data: Partial<Pick<NewSkill, "name" | "slug" | "description" | "body">> & { status?: string },
): Promise<SkillRow | null> {
  // Prisma answers an update of no field with a count of 0 without asking the database.
  if (Object.keys(data).length === 0) return findSkill(prisma, scope, id);
  try {
    const { count } = await prisma.platformSkill.updateMany({ where: { ...scoped(scope), id }, data });
    if (count === 0) return null;
  } catch (error) {
    if (isUniqueViolation(error) && data.slug !== undefined) throw new SkillSlugTaken(data.slug);
    throw error;
  }
  return findSkill(prisma, scope, id);
}

/** False when the scope holds no skill with this id. */
export async function deleteSkill(prisma: PrismaClient, scope: SkillScope, id: number): Promise<boolean> {
  const { count } = await prisma.platformSkill.deleteMany({ where: { ...scoped(scope), id } });
  return count > 0;
}
