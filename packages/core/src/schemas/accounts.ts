// Accounts, keys and verification: request and response contracts.
import { z } from "zod";
import { IntId, Timestamp, listEnvelope } from "./common";
import { Settings } from "./settings";
import { Skill } from "./skills";
import { Observation, UseCase } from "./value";
import { ToolServer } from "./tool-servers";
import { AgentRepo } from "./agent-repos";
import { AppConnection } from "./apps";
import { BalanceTransaction } from "./billing";
import { Bridge } from "./bridges";
import { Judgment } from "./judgments";
import { Receipt } from "./payments";
import { Run } from "./runs";
import { Task } from "./tasks";
import { Trigger } from "./triggers";
import { Webhook } from "./webhooks";

export const Account = z
  .object({
    id: z.number().int(),
    email: z.string(),
    first_name: z.string(),
    product: z.string().nullable(),
    require_end_user_id: z.boolean(),
    email_verified: z.boolean(),
    created_at: Timestamp,
  })
  .meta({ id: "Account" });

export const ApiKeyInfo = z
  .object({
    id: z.number().int(),
    name: z.string(),
    kind: z.enum(["default", "named"]),
    hint: z.string().meta({ description: "The key's first characters and last four" }),
    created_at: Timestamp,
    expires_at: Timestamp.nullable(),
    last_used_at: Timestamp.nullable(),
  })
  .meta({ id: "ApiKey" });

/** A key as returned once, at creation or rotation: the only time the secret is shown. */
export const ApiKeyWithSecret = ApiKeyInfo.extend({
  key: z.string().meta({ description: "The full key. Shown once; store it now." }),
}).meta({ id: "ApiKeyWithSecret" });

export const Password = z.string().min(8, "must be at least 8 characters").max(1024);

export const SignupRequest = z.object({
  email: z.email("must be an email address").max(255),
  first_name: z.string().trim().min(1, "must not be blank").max(255),
  password: Password.optional(),
  product: z.string().max(255).optional(),
  require_end_user_id: z.boolean().optional(),
  invite_code: z
    .string()
    .max(200)
    .optional()
    .meta({ description: "An invite from the platform's operator (POST /operator/signup-invites), required when its sign-up is invite-only" }),
});

export const SignupInviteRequest = z.object({
  email: z.email("must be an email address").max(255),
  expires_in_days: z.number({ error: "must be a number of days" }).int().min(1).max(90).optional(),
});

export const SignupInvite = z
  .object({ email: z.string(), invite_code: z.string(), expires_at: Timestamp })
  .meta({ id: "SignupInvite" });

export const SignupResponse = z
  .object({ account: Account, api_key: z.string(), key: ApiKeyInfo })
  .meta({ id: "SignupResponse" });

export const TokenRequest = z.object({ email: z.email().max(255), password: z.string().min(1).max(1024) });

export const TokenResponse = z.object({ api_key: z.string(), key: ApiKeyInfo }).meta({ id: "TokenResponse" });

export const VerifyStatus = z
  .object({
    email: z.string(),
    verified: z.boolean(),
    verified_at: Timestamp.nullable(),
    unverified_run_limit: z.number().int(),
  })
  .meta({ id: "VerifyStatus" });

export const KeyIdParam = z.object({ key_id: IntId });

/** Ten years: long enough for any rotation policy, short enough that the date stays representable. */
export const MAX_KEY_LIFETIME_DAYS = 3650;

export const CreateKeyRequest = z.object({
  name: z.string().trim().min(1, "must not be blank").max(255, "must be at most 255 characters"),
  expires_in_days: z
    .number({ error: "must be an integer number of days" })
    .int("must be an integer number of days")
    .min(1, "must be at least 1")
    .max(MAX_KEY_LIFETIME_DAYS, `must be at most ${MAX_KEY_LIFETIME_DAYS}`)
    .nullable()
    .optional()
    .meta({ description: "Days until the key stops working; omit (or null) for no expiry" }),
});

export const ApiKeyList = listEnvelope(ApiKeyInfo).meta({ id: "ApiKeyList" });

// GET /account/export: a dump of everything the account owns. Secrets never appear in it: no
// password hash, no key hash or secret, no verification or webhook token.

/** Stored JSON, exported as it was written. */
const StoredJson = z.unknown().meta({ description: "JSON as stored, or null" });

const ExportedApiKey = ApiKeyInfo.extend({ revoked_at: Timestamp.nullable() }).meta({ id: "ExportedApiKey" });

const ExportedEndUser = z
  .object({
    id: z.number().int(),
    user_id: z.string(),
    name: z.string().nullable(),
    email: z.string().nullable(),
    company: z.string().nullable(),
    metadata: StoredJson,
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "ExportedEndUser" });

const ExportedAgent = z
  .object({
    id: z.number().int(),
    user_id: z.string().nullable(),
    name: z.string(),
    instructions: z.string(),
    tools: z.array(z.string()),
    role: z.string().nullable(),
    goals: z.string().nullable(),
    model: z.string().nullable(),
    effort: z.string().nullable(),
    default_permission_mode: z.string(),
    enable_memory: z.boolean().nullable(),
    enable_history: z.boolean().nullable(),
    enable_task_setup_tools: z.boolean().nullable(),
    enable_feedback: z.boolean().nullable(),
    enable_self_improvement: z.boolean().nullable(),
    prompt_profile: z.string(),
    disabled_builtin_tools: z.array(z.string()),
    metadata: StoredJson,
    allowed_senders: z.array(z.string()),
    inbound_imessage_enabled: z.boolean(),
    imessage_chat_guid: z.string().nullable(),
    bridge_id: z.number().int().nullable(),
    allowed_imessage_senders: z.array(z.string()),
    chat_slug: z.string().nullable(),
    chat_channels: StoredJson,
    allowed_chat_senders: z.array(z.string()),
    email_inbox: z.boolean(),
    email_address: z.string().nullable(),
    fetchmail: z.boolean(),
    webhook_enabled: z.boolean(),
    template: z.string().nullable(),
    customized_fields: z.array(z.string()),
    group_id: z.number().int().nullable(),
    visibility: z.string().nullable(),
    display_order: z.number().int().nullable(),
    status: z.string(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "ExportedAgent" });

const ExportedAgentDocument = z
  .object({
    id: z.number().int(),
    agent_id: z.number().int(),
    name: z.string(),
    summary: z.string(),
    mime_type: z.string(),
    content: z.string(),
    size_bytes: z.number().int(),
    source: z.string(),
    source_run_id: z.number().int().nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "ExportedAgentDocument" });

const ExportedIssueReport = z
  .object({
    id: z.number().int(),
    agent_id: z.number().int(),
    run_id: z.number().int().nullable(),
    user_id: z.string().nullable(),
    summary: z.string(),
    details: z.string().nullable(),
    status: z.string(),
    created_at: Timestamp,
    resolved_at: Timestamp.nullable(),
  })
  .meta({ id: "ExportedIssueReport" });

const ExportedMemory = z
  .object({
    id: z.number().int(),
    user_id: z.string().nullable(),
    content: z.string(),
    source: z.string(),
    agent_id: z.number().int().nullable(),
    created_at: Timestamp,
  })
  .meta({ id: "ExportedMemory" });

const ExportedPermission = z
  .object({ id: z.number().int(), user_id: z.string().nullable(), tool: z.string(), created_at: Timestamp })
  .meta({ id: "ExportedPermission" });

const ExportedMail = z
  .object({
    id: z.number().int(),
    to: z.string(),
    subject: z.string(),
    text: z.string().meta({ description: "The message, with one-time tokens in its links redacted" }),
    kind: z.string(),
    created_at: Timestamp,
  })
  .meta({ id: "ExportedMail" });

export const AccountExport = z
  .object({
    exported_at: Timestamp,
    account: Account.extend({
      signup_source: z.string(),
      email_verified_at: Timestamp.nullable(),
      updated_at: Timestamp,
    }),
    settings: Settings,
    api_keys: z.array(ExportedApiKey),
    end_users: z.array(ExportedEndUser),
    agents: z.array(ExportedAgent),
    agent_documents: z.array(ExportedAgentDocument),
    issue_reports: z.array(ExportedIssueReport),
    memories: z.array(ExportedMemory),
    permissions: z.array(ExportedPermission),
    mail: z.array(ExportedMail),
    runs: z.array(Run.extend({ messages: z.array(z.unknown()).meta({ description: "The stored conversation (a skeleton under metadata_only)" }) })).meta({
      description: "Every run, oldest first, as GET /runs/{id} shows it, with its conversation; the per-delta event log is not exported",
    }),
    tasks: z.array(Task.extend({ triggers: z.array(Trigger) })),
    webhooks: z.array(Webhook).meta({ description: "Signing secrets masked, as GET /webhooks shows them" }),
    app_connections: z.array(AppConnection).meta({ description: "Without credentials" }),
    bridges: z.array(Bridge).meta({ description: "Without the password or the inbound secret" }),
    balance_transactions: z.array(BalanceTransaction).meta({ description: "The whole ledger, oldest first" }),
    receipts: z.array(Receipt),
    judgments: z.array(Judgment).meta({ description: "Metadata always; the result while it is retained (as GET /judgments/{id})" }),
    agent_repos: z.array(AgentRepo).meta({ description: "Repository bindings; env values stay out, their keys are shown" }),
    tool_servers: z.array(ToolServer).meta({ description: "As GET /mcp-servers shows them: no secret, no script source, no OAuth grant" }),
    skills: z.array(Skill),
    value_use_cases: z.array(UseCase.extend({ run_ids: z.array(z.number().int()).meta({ description: "The linked runs, ascending" }) })),
    value_observations: z.array(Observation),
  })
  .meta({ id: "AccountExport" });

export const VerifyResendResult = z.object({ sent: z.boolean(), email: z.string() }).meta({ id: "VerifyResendResult" });

export const VerifyConfirmResult = z.object({ verified: z.literal(true) }).meta({ id: "VerifyConfirmResult" });
