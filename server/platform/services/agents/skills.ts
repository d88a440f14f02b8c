// Skills: playbooks a run can force. CRUD in an owner scope (the account level or one end-user's, as
// for agents: neither sees the other's skills), the / picker's entries (platform commands plus the
// custom skills an agent is offered), and the resolution of a forced slug that POST /runs, replies
// and GET /agents/{id}/system-prompt share, so what the prompt endpoint shows is what a run gets.
//
// A slug is unique in its owner scope, whatever the skills' scope (account or agent): `skill: x`
// always names one playbook. A custom skill whose slug is a platform command's takes its place for
// the agents it is offered to.
import type { Page } from "@inlay/core/schemas/common";
import {
  type CreateSkillRequest,
  type InvokableSkill,
  type Skill,
  SKILL_SLUG_MAX_CHARS,
  skillSlug,
  type UpdateSkillRequest,
} from "@inlay/core/schemas/skills";
import { PlatformError } from "../../errors";
import { findAgent, findAgentAnyScope } from "../../repositories/agents";
import * as skills from "../../repositories/skills";
import { SkillSlugTaken, type SkillRow } from "../../repositories/skills";
import type { DataContext } from "../../infrastructure/hot-cache";
import type { AuthContext } from "../account/auth";
import { toPage } from "../pagination";
import { findPlatformCommand, PLATFORM_COMMANDS } from "./platform-commands";
import { resolveScope, type Scope } from "../scope";

export const toSkill = (row: SkillRow): Skill => ({
  id: row.id,
  slug: row.slug,
  name: row.name,
  description: row.description,
  body: row.body,
  scope: row.scope as Skill["scope"],
  teammate_id: row.agentId,
  user_id: row.endUser?.externalId ?? null,
  status: row.status as Skill["status"],
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

const notFound = (id: number) => new PlatformError({ type: "not_found", message: `skill ${id} not found` });

const slugTaken = (slug: string) =>
  new PlatformError({
    type: "conflict_error",
    errorCode: "skill_exists",
    message: `a skill with slug "${slug}" already exists in this scope; choose another name`,
    details: { field: "name", slug },
  });

const agentNotFound = (id: number) => new PlatformError({ type: "not_found", message: `agent ${id} not found` });

export async function createSkill(
  ctx: DataContext,
  auth: AuthContext,
  userId: string | undefined,
  input: CreateSkillRequest,
): Promise<Skill> {
  const scope = await resolveScope(ctx, auth, userId, { strict: true });
  let agentId: number | null = null;
  if (input.teammate_id !== undefined) {
    // An agent of another scope is as unknown here as everywhere else.
    const agent = await findAgent(ctx.prisma, scope, input.teammate_id);
    if (!agent) throw agentNotFound(input.teammate_id);
    agentId = agent.id;
  }
  try {
    return toSkill(
      await skills.insertSkill(ctx.prisma, scope, {
        name: input.name,
        slug: skillSlug(input.name),
        description: input.description,
        body: input.body,
        scope: input.scope ?? (agentId === null ? "account" : "agent"),
        agentId,
      }),
    );
  } catch (error) {
    if (error instanceof SkillSlugTaken) throw slugTaken(error.slug);
    throw error;
  }
}

export async function listSkills(
  ctx: DataContext,
  auth: AuthContext,
  userId: string | undefined,
  page: { limit: number; startingAfter?: number },
): Promise<Page<Skill>> {
  const scope = await resolveScope(ctx, auth, userId, { strict: true });
  return toPage(await skills.listSkills(ctx.prisma, scope, page), page.limit, toSkill);
}

export async function getSkill(ctx: DataContext, auth: AuthContext, userId: string | undefined, id: number): Promise<Skill> {
  const scope = await resolveScope(ctx, auth, userId);
  const row = await skills.findSkill(ctx.prisma, scope, id);
  if (!row) throw notFound(id);
  return toSkill(row);
}

export async function updateSkill(
  ctx: DataContext,
  auth: AuthContext,
  userId: string | undefined,
  id: number,
  input: UpdateSkillRequest,
): Promise<Skill> {
  const scope = await resolveScope(ctx, auth, userId);
  try {
    const row = await skills.updateSkill(ctx.prisma, scope, id, {
      // A new name gives a new slug, so the slug always reads as the name.
      ...(input.name !== undefined ? { name: input.name, slug: skillSlug(input.name) } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.body !== undefined ? { body: input.body } : {}),
      ...(input.status !== undefined ? { status: input.status } : {}),
    });
    if (!row) throw notFound(id);
    return toSkill(row);
  } catch (error) {
    if (error instanceof SkillSlugTaken) throw slugTaken(error.slug);
    throw error;
  }
}

export async function deleteSkill(ctx: DataContext, auth: AuthContext, userId: string | undefined, id: number): Promise<void> {
  const scope = await resolveScope(ctx, auth, userId);
  if (!(await skills.deleteSkill(ctx.prisma, scope, id))) throw notFound(id);
}

// ---------------------------------------------------------------------------------------------
// The picker and forcing

/** What a run's agent is, for the skills it is offered. */
export interface SkillAgent {
  id: number;
  promptProfile: string;
}

/** The skill a run forces, as its system prompt carries it (services/runs/system-prompt.ts). */
export interface ForcedSkill {
  slug: string;
  name: string;
  body: string;
}

const bareAgent = (agent: SkillAgent | null) => agent?.promptProfile === "bare";

/**
 * Sorted by slug: platform commands (not for bare agents) and the active custom skills offered to the
 * agent (without one: the scope's account-wide skills). A custom skill takes a platform command's
 * place even while disabled: forcing it is then refused rather than falling back to the command.
 */
export async function invokableSkillsFor(ctx: DataContext, scope: Scope, agent: SkillAgent | null): Promise<InvokableSkill[]> {
  const custom = await skills.listSkillsForAgent(ctx.prisma, scope, agent?.id ?? null);
  const taken = new Set(custom.map((row) => row.slug));
  const entries: InvokableSkill[] = [
    ...(bareAgent(agent) ? [] : PLATFORM_COMMANDS.filter((command) => !taken.has(command.slug))).map((command) => ({
      slug: command.slug,
      name: command.name,
      description: command.description,
      kind: "command" as const,
      id: null,
    })),
    ...custom
      .filter((row) => row.status === "active")
      .map((row) => ({ slug: row.slug, name: row.name, description: row.description, kind: "skill" as const, id: row.id })),
  ];
  return entries.sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
}

/**
 * GET /skills/invokable. With teammate_id the agent's entries, in the agent's scope (without user_id
 * the agent's own scope, as a run on it would have); without, the scope's account-wide entries.
 */
export async function listInvokableSkills(
  ctx: DataContext,
  auth: AuthContext,
  userId: string | undefined,
  teammateId: number | undefined,
): Promise<Page<InvokableSkill>> {
  let scope = await resolveScope(ctx, auth, userId, { strict: true });
  let agent: SkillAgent | null = null;
  if (teammateId !== undefined) {
    const row = userId === undefined ? await findAgentAnyScope(ctx.prisma, auth.accountId, teammateId) : await findAgent(ctx.prisma, scope, teammateId);
    if (!row) throw agentNotFound(teammateId);
    if (userId === undefined && row.endUser) scope = { accountId: auth.accountId, endUserId: row.endUserId, userId: row.endUser.externalId };
    agent = row;
  }
  return { data: await invokableSkillsFor(ctx, scope, agent), has_more: false };
}

const unknownSkill = (slug: string, why: string, errorCode: string) =>
  new PlatformError({
    type: "validation_error",
    errorCode,
    message: `skill: ${why}`,
    details: { field: "skill", skill: slug },
  });

/**
 * The skill `slug` names for a run of `agent` in `scope`: the scope's custom skill offered to the
 * agent, else a platform command (not for bare agents). Unknown, or a disabled skill: 422.
 */
export async function resolveForcedSkill(ctx: DataContext, scope: Scope, agent: SkillAgent, slug: string): Promise<ForcedSkill> {
  const row = slug.length <= SKILL_SLUG_MAX_CHARS ? await skills.findSkillBySlug(ctx.prisma, scope, slug) : null;
  const offered = row && (row.scope === "account" || row.agentId === agent.id) ? row : null;
  if (offered) {
    if (offered.status !== "active") throw unknownSkill(slug, `skill "${slug}" is disabled`, "skill_disabled");
    return { slug: offered.slug, name: offered.name, body: offered.body };
  }
  const command = findPlatformCommand(slug);
  if (command && !bareAgent(agent)) return { slug: command.slug, name: command.name, body: command.body };
  throw unknownSkill(
    slug,
    command
      ? `"${slug}" is a platform command, which agents with prompt_profile bare cannot load`
      : `unknown skill "${slug}"; see GET /skills/invokable`,
    "unknown_skill",
  );
}

// A slug right after the message's first "/", then a space or the end: "/summarize this" names
// "summarize"; "/usr/bin is slow" names nothing (a path, not a command).
const LEADING_SLUG = /^\s*\/([a-z0-9]+(?:-[a-z0-9]+)*)(?=\s|$)/;

/** The slug a message starting with /slug forces; undefined for any other message. */
export const leadingSkillSlug = (message: string): string | undefined => LEADING_SLUG.exec(message)?.[1];

/**
 * The skill a caller's request forces: its `skill` field, else a leading /slug of its message. The
 * message is kept as written (the model sees the /slug the person typed). Only the caller's own
 * POST /runs and replies read a leading /slug: runs started by email or a task take their text as is.
 */
export const requestedSkill = (input: { message: string; skill?: string }): string | undefined =>
  input.skill ?? leadingSkillSlug(input.message);
