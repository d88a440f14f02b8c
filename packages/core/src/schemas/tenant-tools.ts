// Contracts of the console's tool servers and skills: what a tenant's admins define for their members
// (server/framework/tenancy/tool-servers.ts, skills.ts). The limits are the platform's (packages/core/src/schemas/tool-servers.ts,
// skills.ts), so what the form accepts the platform takes.
import { z } from "zod";
import { SKILL_BODY_MAX_CHARS, SKILL_DESCRIPTION_MAX_CHARS, SKILL_NAME_MAX_CHARS, skillSlug } from "./skills";
import { RestToolDef, TOOL_DEFS_MAX } from "./tool-servers";

/**
 * Kinds a tenant can register. A script server cannot belong to an end-user on the platform (its code
 * runs for the whole account), so a tenant, whose members are end-users, cannot have one.
 */
export const TENANT_TOOL_SERVER_KINDS = ["rest_api", "mcp_http", "mcp_sse"] as const;
/** oauth2 needs each member's own grant (a connect flow per member): not offered here yet. */
export const TENANT_TOOL_SERVER_AUTH_TYPES = ["none", "bearer", "api_key", "basic"] as const;

const name = z.string().trim().min(1, { message: "Enter a name." }).max(100, { message: "Use at most 100 characters." });

export const tenantToolServerInput = z
  .object({
    name,
    description: z.string().trim().max(2_000, { message: "Use at most 2,000 characters." }).default(""),
    url: z.url({ protocol: /^https?$/, message: "Enter the server's URL (https://…)." }).max(2_048, { message: "Use at most 2,048 characters." }),
    kind: z.enum(TENANT_TOOL_SERVER_KINDS, { message: "Choose REST API, MCP (streamable HTTP) or MCP (SSE)." }),
    authType: z.enum(TENANT_TOOL_SERVER_AUTH_TYPES, { message: "Choose how the server is authenticated." }),
    /** api_key: the header carrying the key. */
    header: z.string().trim().max(100, { message: "Use at most 100 characters." }).regex(/^[A-Za-z0-9-]*$/, { message: "Use letters, digits and -." }).default(""),
    /** basic: the user name (the secret is the password). */
    username: z.string().max(200, { message: "Use at most 200 characters." }).default(""),
    /** Write-only: omitted (or empty) on an edit keeps the stored one. */
    secret: z.string().max(8_192, { message: "Use at most 8,192 characters." }).optional(),
    /** rest_api: the tools (method, name, path); MCP servers list their own. */
    toolDefs: z.array(RestToolDef).max(TOOL_DEFS_MAX, { message: `Define at most ${TOOL_DEFS_MAX} tools.` }).default([]),
    autoApprove: z.boolean().default(false),
  })
  .superRefine((input, ctx) => {
    if (input.kind === "rest_api" && input.toolDefs.length === 0) {
      ctx.addIssue({ code: "custom", path: ["toolDefs"], message: "A REST API needs at least one tool." });
    }
    if (input.kind !== "rest_api" && input.toolDefs.length > 0) {
      ctx.addIssue({ code: "custom", path: ["toolDefs"], message: "An MCP server lists its own tools: leave this empty." });
    }
    if (input.authType === "api_key" && !input.header) ctx.addIssue({ code: "custom", path: ["header"], message: "Name the header the key goes in." });
    if (input.authType === "basic" && !input.username) ctx.addIssue({ code: "custom", path: ["username"], message: "Enter the user name." });
  });
export type TenantToolServerInput = z.input<typeof tenantToolServerInput>;

export const tenantToolServerUpdateInput = z.object({ id: z.uuid(), server: tenantToolServerInput });

export const tenantSkillInput = z.object({
  name: name.max(SKILL_NAME_MAX_CHARS).refine((value) => skillSlug(value) !== "", { message: "Use at least one letter or digit." }),
  description: z
    .string()
    .trim()
    .min(1, { message: "Say what the skill does (the / picker shows it)." })
    .max(SKILL_DESCRIPTION_MAX_CHARS, { message: `Use at most ${SKILL_DESCRIPTION_MAX_CHARS} characters.` }),
  body: z
    .string()
    .trim()
    .min(1, { message: "Write the playbook." })
    .max(SKILL_BODY_MAX_CHARS, { message: `Use at most ${SKILL_BODY_MAX_CHARS.toLocaleString("en-US")} characters.` }),
  enabled: z.boolean().default(true),
});
export type TenantSkillInput = z.input<typeof tenantSkillInput>;

export const tenantSkillUpdateInput = z.object({ id: z.uuid(), skill: tenantSkillInput });

// --- Answers of the tools procedures (their tRPC .output) ----------------------------------------------

export const TenantToolServerView = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  url: z.string(),
  kind: z.string(),
  authType: z.string(),
  header: z.string(),
  username: z.string(),
  hasSecret: z.boolean(),
  toolDefs: z.array(z.unknown()),
  autoApprove: z.boolean(),
  version: z.number().int(),
  updatedAt: z.string(),
  /** As the platform has the admin's own copy: its status and the tools it offers runs. */
  platform: z.object({ status: z.string(), tools: z.array(z.object({ name: z.string(), description: z.string() })) }).nullable(),
});

export const TenantSkillView = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  body: z.string(),
  enabled: z.boolean(),
  updatedAt: z.string(),
});

export type TenantToolServerView = z.infer<typeof TenantToolServerView>;
export type TenantSkillView = z.infer<typeof TenantSkillView>;
