// Skills (/skills): playbooks an agent follows when a run forces one (`skill` on POST /runs, or a
// message starting with /slug), request and response contracts, and the picker's entries.
import { z } from "zod";
import { BodyId, IntId, PageQuery, Timestamp, UserId } from "./common";

export const SKILL_NAME_MAX_CHARS = 100;
export const SKILL_DESCRIPTION_MAX_CHARS = 1_000;
/** A playbook goes into the system prompt of every run that forces it: kept to a prompt's size. */
export const SKILL_BODY_MAX_CHARS = 20_000;
export const SKILL_SLUG_MAX_CHARS = 64;

export const SKILL_SCOPES = ["account", "agent"] as const;
export const SKILL_STATUSES = ["active", "disabled"] as const;

/**
 * The slug of a skill's name: lower case ASCII letters and digits, other runs of characters become
 * one hyphen ("Weekly Report!" → "weekly-report"; accents are dropped, "Café" → "cafe"). Empty when the
 * name has no letter or digit it can keep.
 */
export function skillSlug(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, SKILL_SLUG_MAX_CHARS)
    .replace(/^-+|-+$/g, "");
}

/** A slug as `skill` and /slug name one: what skillSlug produces. */
export const SKILL_SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export const Skill = z
  .object({
    id: z.number().int(),
    slug: z.string().meta({ description: "Derived from name; force the skill with `skill: <slug>` or a message starting with /<slug>" }),
    name: z.string(),
    description: z.string(),
    body: z.string().meta({ description: "The playbook the model follows when the skill is forced" }),
    scope: z.enum(SKILL_SCOPES).meta({ description: "account: offered to every agent of its scope; agent: only to teammate_id" }),
    teammate_id: z.number().int().nullable().meta({ description: "The agent of a scope-agent skill; null otherwise" }),
    user_id: z.string().nullable().meta({ description: "The end-user it belongs to; null for account-level skills" }),
    status: z.enum(SKILL_STATUSES).meta({ description: "active, or disabled (neither offered nor forceable)" }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "Skill" });
export type Skill = z.infer<typeof Skill>;

const SkillName = z
  .string()
  .trim()
  .min(1, "must not be blank")
  .max(SKILL_NAME_MAX_CHARS, `must be at most ${SKILL_NAME_MAX_CHARS} characters`)
  .refine((name) => skillSlug(name) !== "", "must contain a letter or a digit (the slug is derived from it)")
  .meta({ description: `At most ${SKILL_NAME_MAX_CHARS} characters; the slug is derived from it (kebab-case)` });

const SkillDescription = z
  .string()
  .trim()
  .min(1, "must not be blank")
  .max(SKILL_DESCRIPTION_MAX_CHARS, `must be at most ${SKILL_DESCRIPTION_MAX_CHARS} characters`)
  .meta({ description: "What the skill does (shown in the / picker)" });

const SkillBody = z
  .string()
  .min(1, "must not be empty")
  .max(SKILL_BODY_MAX_CHARS, `must be at most ${SKILL_BODY_MAX_CHARS} characters`)
  .refine((body) => body.trim() !== "", "must not be blank")
  .meta({ description: `The playbook text, at most ${SKILL_BODY_MAX_CHARS} characters` });

export const CreateSkillRequest = z
  .object({
    name: SkillName,
    description: SkillDescription,
    body: SkillBody,
    scope: z
      .enum(SKILL_SCOPES, { error: "must be account or agent" })
      .optional()
      .meta({ description: "account (default without teammate_id) or agent (default with it)" }),
    teammate_id: BodyId.optional().meta({
      description: "Required for scope agent (and only then): an agent of the same scope",
    }),
    user_id: UserId.optional().meta({ description: "End-user scope (or in the query string); omit for an account-level skill" }),
  })
  .superRefine((value, context) => {
    if (value.scope === "agent" && value.teammate_id === undefined) {
      context.addIssue({ code: "custom", path: ["teammate_id"], message: "is required when scope is agent" });
    }
    if (value.scope === "account" && value.teammate_id !== undefined) {
      context.addIssue({ code: "custom", path: ["teammate_id"], message: "is only accepted when scope is agent" });
    }
  });
export type CreateSkillRequest = z.infer<typeof CreateSkillRequest>;

export const UpdateSkillRequest = z.object({
  name: SkillName.optional().meta({ description: "A new name gives a new slug" }),
  description: SkillDescription.optional(),
  body: SkillBody.optional(),
  status: z.enum(SKILL_STATUSES, { error: "must be active or disabled" }).optional(),
});
export type UpdateSkillRequest = z.infer<typeof UpdateSkillRequest>;

export const ListSkillsQuery = PageQuery.extend({ user_id: UserId.optional() });

export const InvokableSkillsQuery = z.object({
  teammate_id: IntId.optional().meta({
    description: "The agent the picker is for: adds its scope-agent skills, and no platform commands for a bare prompt_profile",
  }),
  user_id: UserId.optional(),
});

export const InvokableSkill = z
  .object({
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    kind: z.enum(["command", "skill"]).meta({ description: "command: a platform command (built in); skill: a custom skill" }),
    id: z.number().int().nullable().meta({ description: "The custom skill's id; null for a platform command" }),
  })
  .meta({ id: "InvokableSkill" });
export type InvokableSkill = z.infer<typeof InvokableSkill>;

export const SkillIdParam = z.object({ skill_id: IntId });
