// Agents (and the earlier teammate form): request and response contracts.
import { z } from "zod";
import { ChatChannel } from "./apps";
import { BodyId, BoundedMetadata, IntId, MAX_INT_ID, Metadata, PageQuery, QueryBoolean, Timestamp, UserId } from "./common";

export const PermissionMode = z.enum(["autonomous", "approval", "plan"]);
export const Effort = z.enum(["low", "medium", "high", "xhigh", "max"]);
export const PromptProfile = z.enum(["platform", "bare"]);
export const AgentStatus = z.enum(["enabled", "disabled", "archived"]);

export const RESERVED_METADATA_KEYS = ["error_code", "auto_retryable", "interrupted"];
export const isReservedMetadataKey = (key: string) => RESERVED_METADATA_KEYS.includes(key) || key.startsWith("nudged_");

export const AgentName = z
  .string()
  .max(255, "must be at most 255 characters")
  .refine((value) => value.trim().length > 0, "must not be blank");

export const Instructions = z.string().max(50_000, "must be at most 50000 characters");

export const ToolNames = z.array(z.string().min(1).max(255)).max(50, "must have at most 50 items");

const EMAIL_OR_DOMAIN = /^(?:[^\s@]+@[^\s@]+\.[^\s@]+|@[^\s@]+\.[^\s@]+)$/;
export const AllowedSenders = z
  .array(z.string().regex(EMAIL_OR_DOMAIN, "each entry must be an email address or an @domain pattern"))
  .max(100, "must have at most 100 items");

const Handles = z.array(z.string().trim().min(1).max(255)).max(100, "must have at most 100 items");

/** Fields an agent can be created with (all optional). */
export const AgentCreate = z.object({
  name: AgentName.optional(),
  instructions: Instructions.optional(),
  tools: ToolNames.optional(),
  enable_memory: z.boolean().nullable().optional(),
  enable_history: z.boolean().nullable().optional(),
  enable_task_setup_tools: z.boolean().nullable().optional(),
  enable_feedback: z.boolean().nullable().optional(),
  enable_self_improvement: z.boolean().nullable().optional(),
  role: z.string().max(5_000).nullable().optional(),
  prompt_profile: PromptProfile.optional(),
  disabled_builtin_tools: z.array(z.string()).max(50).optional(),
  goals: z.string().max(10_000).nullable().optional(),
  user_id: UserId.optional(),
  metadata: BoundedMetadata.nullable().optional(),
  allowed_senders: AllowedSenders.optional(),
  inbound_imessage_enabled: z.boolean().optional(),
  imessage_chat_guid: z.string().max(255).nullable().optional(),
  bridge_id: BodyId.nullable().optional(),
  allowed_imessage_senders: Handles.optional(),
  inbound_chat_enabled: z.boolean().optional(),
  chat_slug: z.string().max(255).nullable().optional(),
  chat_channels: z.array(z.unknown()).max(100).optional(),
  allowed_chat_senders: Handles.nullable().optional(),
  email_inbox: z.boolean().optional(),
  webhook: z.boolean().optional(),
  default_permission_mode: PermissionMode.nullable().optional(),
  model: z.string().min(1).max(255).nullable().optional(),
  effort: Effort.nullable().optional(),
  from_template: z.string().min(1).max(100).optional(),
  onboarding_answers: z.record(z.string(), z.unknown()).optional(),
  enabled_task_slugs: z.array(z.string()).nullable().optional(),
  enabled_bootstrap_slugs: z.array(z.string()).nullable().optional(),
  group_id: BodyId.optional(),
});

/** Fields PATCH /agents/<id> accepts: omitted = unchanged; null as the spec says per field. */
export const AgentUpdate = AgentCreate.omit({
  user_id: true,
  email_inbox: true,
  webhook: true,
  from_template: true,
  onboarding_answers: true,
  enabled_task_slugs: true,
  enabled_bootstrap_slugs: true,
  group_id: true,
}).extend({
  // The column is a 32-bit integer: a larger value is the caller's 422, never a database error.
  display_order: z.number().int().min(-MAX_INT_ID - 1).max(MAX_INT_ID).nullable().optional(),
  group_id: BodyId.nullable().optional(),
  visibility: z.string().max(50).nullable().optional(),
});

export const Agent = z
  .object({
    id: z.number().int(),
    name: z.string(),
    instructions: z.string(),
    tools: z.array(z.string()),
    default_permission_mode: PermissionMode,
    inbound_imessage_enabled: z.boolean(),
    status: AgentStatus,
    created_at: Timestamp,
    updated_at: Timestamp,
    user_id: z.string().nullable(),
    role: z.string().nullable(),
    goals: z.string().nullable(),
    model: z.string().nullable(),
    effort: Effort.nullable(),
    metadata: Metadata.nullable(),
    enable_memory: z.boolean().nullable(),
    enable_history: z.boolean().nullable(),
    enable_task_setup_tools: z.boolean().nullable(),
    enable_feedback: z.boolean().nullable(),
    enable_self_improvement: z.boolean().nullable(),
    prompt_profile: PromptProfile,
    disabled_builtin_tools: z.array(z.string()),
    allowed_senders: z.array(z.string()),
    imessage_chat_guid: z.string().nullable(),
    bridge_id: z.number().int().nullable(),
    allowed_imessage_senders: z.array(z.string()),
    inbound_chat_enabled: z.boolean(),
    chat_slug: z.string().nullable(),
    chat_channels: z.array(z.unknown()),
    allowed_chat_senders: z.array(z.string()),
    email_inbox: z.boolean(),
    email_address: z.string().nullable().meta({
      description: "The inbox's address while email_inbox is on (mail from allowed_senders starts a run); else null",
    }),
    fetchmail: z.boolean().meta({
      description: "Whether the agent polls an outside IMAP mailbox (POST /agents/{id}/fetchmail); each new message there starts a run",
    }),
    webhook_enabled: z.boolean(),
    webhook_url: z.string().optional().meta({
      description:
        "Only in the answer that issues the webhook (POST /agents with webhook: true, PATCH /agents/{id}/webhook giving the first or a rotated URL): the URL whose POSTs start a run of the agent, shown this once",
    }),
    template: z.string().nullable(),
    template_linked: z.boolean(),
    group_id: z.number().int().nullable(),
    visibility: z.string().nullable(),
    display_order: z.number().int().nullable(),
  })
  .meta({ id: "Agent" });

/** PATCH /agents/{id}/webhook. */
export const AgentWebhookUpdate = z.object({
  enabled: z.boolean().meta({ description: "true resumes (and gives an agent without a webhook its URL, shown once), false pauses" }),
  rotate: z.boolean().optional().meta({ description: "Inlay extension: true replaces the URL with a new one, shown once; the old one stops working" }),
});

/** The inbound call's path: the token, whatever it looks like (a wrong one is a 404, not a 422). */
export const AgentWebhookTokenParam = z.object({ token: z.string().max(512) });

/** POST /agents/{id}/chat-channel: the channel made and the agent it is now bound to. */
export const AgentChatChannel = z
  .object({ channel: ChatChannel, agent: Agent })
  .meta({ id: "AgentChatChannel" });

/** The `fields=summary` projection. */
export const AgentSummary = Agent.omit({
  instructions: true,
  goals: true,
  role: true,
  metadata: true,
  tools: true,
  chat_channels: true,
}).meta({ id: "AgentSummary" });

export const AgentListQuery = PageQuery.extend({
  include_archived: QueryBoolean.optional(),
  fields: z.enum(["summary"]).optional(),
  user_id: UserId.optional(),
});

export const AgentIdParam = z.object({ agent_id: IntId });

export const UnarchivedAgent = Agent.pick({ id: true, name: true, status: true, created_at: true }).meta({
  id: "UnarchivedAgent",
});

export const RESETTABLE_FIELDS = [
  "name",
  "instructions",
  "tools",
  "role",
  "goals",
  "model",
  "effort",
  "default_permission_mode",
  "enable_memory",
  "enable_history",
  "enable_task_setup_tools",
  "enable_feedback",
  "enable_self_improvement",
  "prompt_profile",
  "disabled_builtin_tools",
] as const;

export const AgentReset = z.object({ fields: z.array(z.enum(RESETTABLE_FIELDS)).optional() });

export const SystemPrompt = z
  .object({
    agent_id: z.number().int(),
    prompt_profile: PromptProfile,
    prompt: z.string(),
    skill: z.string().nullable().meta({ description: "The slug of the skill asked for with ?skill= (its playbook is in prompt); null without" }),
  })
  .meta({ id: "SystemPrompt" });

export const SystemPromptQuery = z.object({
  user_id: UserId.optional(),
  skill: z.string().min(1).max(100).optional().meta({
    description: "A skill slug: the prompt as a run forcing it gets (unknown or disabled: 422, as on POST /runs)",
  }),
});

export const AgentDocument = z
  .object({
    id: z.number().int(),
    name: z.string(),
    summary: z.string(),
    mime_type: z.string(),
    size_bytes: z.number().int(),
    source: z.string(),
    source_run_id: z.number().int().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "AgentDocument" });

// What the documents tool may write (runtime/tools.ts): names safe in a URL path segment, a size and a
// count that keep one agent's documents a working set, not a file store.
export const DOCUMENT_NAME_MAX_CHARS = 128;
export const DOCUMENT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
export const DOCUMENT_MAX_BYTES = 100_000;
export const DOCUMENT_SUMMARY_MAX_CHARS = 500;
export const DOCUMENTS_PER_AGENT = 100;
export const DOCUMENT_MIME_TYPES = ["text/markdown", "text/plain", "text/csv", "application/json"] as const;

export const DocumentName = z
  .string()
  .min(1, "must not be empty")
  .max(DOCUMENT_NAME_MAX_CHARS, `must be at most ${DOCUMENT_NAME_MAX_CHARS} characters`)
  .regex(DOCUMENT_NAME_PATTERN, "must start with a letter or digit and hold only letters, digits, '.', '-' and '_'");

export const AgentDocumentWithContent = AgentDocument.extend({ content: z.string() }).meta({
  id: "AgentDocumentWithContent",
});

/** The earlier /teammates form: same resource, fewer fields. */
export const TeammateCreate = AgentCreate.pick({
  name: true,
  instructions: true,
  tools: true,
  role: true,
  goals: true,
  user_id: true,
  metadata: true,
  allowed_senders: true,
  email_inbox: true,
  webhook: true,
  default_permission_mode: true,
});

export const TeammateUpdate = AgentUpdate.pick({
  name: true,
  instructions: true,
  tools: true,
  role: true,
  goals: true,
  metadata: true,
  allowed_senders: true,
  default_permission_mode: true,
});

/** POST /agents/{id}/email-inbox and /fetchmail: user_id may come in the body too, as the spec lists it there. */
export const AgentScopeBody = z.object({ user_id: UserId.optional() });

/** The fields that name a mailbox: all of them, or (the spec's form, user_id alone) none. */
export const FETCHMAIL_MAILBOX_FIELDS = ["host", "username", "password"] as const;

/**
 * POST /agents/{id}/fetchmail: the outside IMAP mailbox to poll (Inlay's fields; the spec names none beside
 * user_id). Without them the agent's mailbox already configured is used (services/messaging/fetchmail.ts).
 */
export const FetchmailBody = AgentScopeBody.extend({
  host: z
    .string()
    .trim()
    .min(1)
    .max(253)
    .regex(/^[A-Za-z0-9.:[\]-]+$/, "a host name or an IP address")
    .optional()
    .meta({ description: "The IMAP server's host name or IP address; it must resolve to public addresses only. Required with username and password; all three omitted: the agent's mailbox configured before" }),
  port: z.number().int().min(1).max(65_535).optional().meta({ description: "Default 993 with tls, 143 without" }),
  tls: z.boolean().default(true).meta({ description: "Implicit TLS (IMAPS); false: plain IMAP, upgraded with STARTTLS when the server offers it" }),
  username: z.string().min(1).max(320).optional().meta({ description: "Required with host and password" }),
  password: z.string().min(1).max(1024).optional().meta({ description: "Required with host and username. Sealed at rest and never returned" }),
  mailbox: z.string().trim().min(1).max(200).default("INBOX"),
}).superRefine((body, ctx) => {
  // A mailbox half named is a mistake to point out, field by field; none named is the spec's form.
  if (FETCHMAIL_MAILBOX_FIELDS.every((field) => body[field] === undefined) && body.port === undefined) return;
  for (const field of FETCHMAIL_MAILBOX_FIELDS) {
    if (body[field] === undefined) ctx.addIssue({ code: "custom", path: [field], message: `is required to name the mailbox (${FETCHMAIL_MAILBOX_FIELDS.join(", ")})` });
  }
});

/** The mailbox fetchmail polls, as answers show it (never the password). */
export const FetchmailMailbox = z.object({
  host: z.string(),
  port: z.number().int(),
  tls: z.boolean(),
  username: z.string(),
  mailbox: z.string(),
  last_polled_at: z.string().nullable(),
  last_error: z.string().nullable().meta({ description: "Why the last poll could not read the mailbox (a refused login, an unreachable server); null when it could" }),
});

/** The answer of POST/DELETE /agents/{id}/fetchmail: the agent, with the mailbox it polls (null once off). */
export const FetchmailAgent = Agent.extend({ fetchmail_mailbox: FetchmailMailbox.nullable() });
