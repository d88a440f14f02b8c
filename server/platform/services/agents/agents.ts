// Agents: creation with the spec's defaults and validation, the null-versus-omitted rules of PATCH,
// archiving, template links and resets, and the system prompt. No HTTP here.
import { randomInt } from "node:crypto";
import type { z } from "zod";
import {
  type Agent,
  type AgentCreate,
  type AgentUpdate,
  type AgentSummary,
  DOCUMENT_MAX_BYTES,
  DOCUMENTS_PER_AGENT,
  DOCUMENT_SUMMARY_MAX_CHARS,
  RESETTABLE_FIELDS,
  isReservedMetadataKey,
} from "@inlay/core/schemas/agents";
import type { Page } from "@inlay/core/schemas/common";
import type { Db, JsonArray, JsonObject } from "../../repositories/db";
import type { PlatformConfig } from "../../platform-config";
import { agentCacheKey, type DataContext } from "../../infrastructure/hot-cache";
import { PlatformError } from "../../errors";
import type { JobQueue } from "../../infrastructure/job-queue";
import {
  type AgentData,
  type AgentRowUpdate,
  type AgentDocumentRow,
  type AgentRow,
  agentExistsInScope,
  agentInScope,
  agentsBoundToChannels,
  countAgentDocuments,
  createAgent as insertAgent,
  findAgentDocument,
  findAgentRow,
  leadAgentId,
  listAgentDocuments,
  listAgents as selectAgents,
  mateGroupHasMembers,
  updateAgent as updateAgentRow,
  upsertAgentDocument,
  withOwner,
} from "../../repositories/agents";
import { createOnboardingMemories, recentMemoryContents } from "../../repositories/memories";
import { buildSystemPrompt, PROMPT_MEMORY_LIMIT } from "../runs/system-prompt";
import { resolveForcedSkill } from "./skills";
import { type AgentTemplate, findTemplate } from "./agent-templates";
import { BUILT_IN_TOOLS, BUILT_IN_TOOL_NAMES, isBuiltInToolEnabled, resolveBuiltInTools } from "./built-in-tools";
import { type Effort, clampEffort, defaultModel, findModel } from "../../models/catalog";
import { toPage } from "../pagination";
import type { Scope } from "../scope";
import { emailSettings, newInboxAddress } from "../messaging/email-addresses";
import { ensureSelfReviewTask, stopSelfReview } from "./self-improvement";
import { issueAgentWebhook } from "../tasks/webhook-tokens";
import { seedTemplateTasks } from "../tasks/template-tasks";
import { CHAT_APP, createChatChannel } from "../apps/app-chat";
import type { AuthContext } from "../account/auth";
import { checkBridgeId } from "../messaging/bridges";
import { enqueueFire } from "../tasks/trigger-fires";

export interface AgentServiceContext extends DataContext {
  config: PlatformConfig;
}

/** Creating or changing an agent may schedule its self-review (services/agents/self-improvement.ts). */
export type AgentWriteContext = AgentServiceContext & { jobs: JobQueue };

type AgentOut = z.infer<typeof Agent>;
type CreateInput = z.infer<typeof AgentCreate>;
type UpdateInput = z.infer<typeof AgentUpdate>;

const invalid = (field: string, message: string, errorCode?: string) =>
  new PlatformError({ type: "validation_error", message: `${field}: ${message}`, errorCode, details: { field } });

const notFound = (id: number) =>
  new PlatformError({ type: "not_found", message: `agent ${id} not found` });

// ---------------------------------------------------------------------------------------------
// Mapping

export function toAgent(row: AgentRow): AgentOut {
  const channels = Array.isArray(row.chatChannels) ? (row.chatChannels as unknown[]) : [];
  return {
    id: row.id,
    name: row.name,
    instructions: row.instructions,
    tools: row.tools,
    default_permission_mode: row.defaultPermissionMode as AgentOut["default_permission_mode"],
    inbound_imessage_enabled: row.inboundImessageEnabled,
    status: row.status as AgentOut["status"],
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    user_id: row.endUser?.externalId ?? null,
    role: row.role,
    goals: row.goals,
    model: row.model,
    effort: row.effort as AgentOut["effort"],
    metadata: (row.metadata as Record<string, unknown> | null) ?? null,
    enable_memory: row.enableMemory,
    enable_history: row.enableHistory,
    enable_task_setup_tools: row.enableTaskSetupTools,
    enable_feedback: row.enableFeedback,
    enable_self_improvement: row.enableSelfImprovement,
    prompt_profile: row.promptProfile as AgentOut["prompt_profile"],
    disabled_builtin_tools: row.disabledBuiltinTools,
    allowed_senders: row.allowedSenders,
    imessage_chat_guid: row.imessageChatGuid,
    bridge_id: row.bridgeId,
    allowed_imessage_senders: row.allowedImessageSenders,
    // Deprecated toggle: chat is on exactly when channels are bound.
    inbound_chat_enabled: channels.length > 0,
    chat_slug: row.chatSlug,
    chat_channels: channels,
    allowed_chat_senders: row.allowedChatSenders,
    email_inbox: row.emailInbox,
    email_address: row.emailInbox ? row.emailAddress : null,
    fetchmail: row.fetchmail,
    webhook_enabled: row.webhookEnabled,
    template: row.template,
    template_linked: row.template !== null && row.customizedFields.length === 0,
    group_id: row.groupId,
    visibility: row.visibility,
    display_order: row.displayOrder,
  };
}

export function toAgentSummary(row: AgentRow): z.infer<typeof AgentSummary> {
  const { instructions: _i, goals: _g, role: _r, metadata: _m, tools: _t, chat_channels: _c, ...summary } = toAgent(row);
  return summary;
}

// ---------------------------------------------------------------------------------------------
// Validation shared by create and update

const ADJECTIVES = ["Brisk", "Calm", "Clever", "Deft", "Eager", "Keen", "Lucid", "Nimble", "Quiet", "Steady", "Swift", "Witty"];
const NOUNS = ["Otter", "Falcon", "Heron", "Lynx", "Marten", "Osprey", "Panda", "Raven", "Robin", "Sparrow", "Tern", "Wren"];
const randomName = () => `${ADJECTIVES[randomInt(ADJECTIVES.length)]} ${NOUNS[randomInt(NOUNS.length)]}`;

function cleanMetadata(metadata: Record<string, unknown> | null | undefined) {
  if (metadata === undefined) return undefined;
  if (metadata === null) return null;
  return Object.fromEntries(Object.entries(metadata).filter(([key]) => !isReservedMetadataKey(key))) as JsonObject;
}

function resolveModel(config: PlatformConfig, model: string): string {
  const entry = findModel(config.models, model);
  if (!entry) throw invalid("model", `unknown model "${model}"; see GET /models for ids and aliases`);
  return entry.id;
}

function effectiveEffort(config: PlatformConfig, effort: Effort, modelId: string | null): Effort {
  const model = (modelId && findModel(config.models, modelId)) || defaultModel(config.models);
  return clampEffort(effort, model);
}

function checkBuiltInTools(names: string[]) {
  const unknown = names.filter((name) => !BUILT_IN_TOOL_NAMES.has(name));
  if (unknown.length > 0) {
    throw invalid("disabled_builtin_tools", `unknown built-in tool(s): ${unknown.join(", ")}; see GET /built-in-tools`);
  }
}

const leadCannotJoin = (id: number) =>
  invalid("group_id", `agent ${id} is the lead agent of this scope (its oldest agent not archived), which cannot join a mate group`, "lead_agent_cannot_join");

/**
 * Mate groups (group_id): agents of one end-user scope (or of the account level) grouped under a
 * number, the id of the agent that started the group. Group N exists in a scope while an agent of that
 * scope (not archived) is in it; joining N when none is starts it, if N is an agent of the same scope
 * that is in no group: that agent joins it too. The scope's lead agent (its oldest agent not archived,
 * the one unbound channels and DMs reach) cannot join, nor be pulled in as a group's first agent.
 * `joinerId` is the agent joining (null: one being created). Puts the first agent in the group when
 * this join starts it, after every check passed.
 */
async function joinMateGroup(ctx: DataContext, scope: Scope, groupId: number, joinerId: number | null): Promise<void> {
  const lead = await leadAgentId(ctx.prisma, scope);
  if (joinerId !== null && joinerId === lead) throw leadCannotJoin(joinerId);
  if (await mateGroupHasMembers(ctx.prisma, scope, groupId)) return;
  const first = await findScopedAgent(ctx, scope, groupId);
  if (!first || (first.groupId !== null && first.id !== joinerId)) {
    throw invalid("group_id", `no mate group ${groupId} in this scope (a group is named by the id of its first agent, of the same scope and in no other group)`);
  }
  if (first.id === lead) throw leadCannotJoin(first.id);
  if (first.id !== joinerId) await updateAgent(ctx, first, { groupId });
}

function checkImessage(enabled: boolean, senders: string[]) {
  if (enabled && senders.length === 0) {
    throw invalid(
      "allowed_imessage_senders",
      "is required when inbound_imessage_enabled is true (iMessage fails closed)",
    );
  }
}

const channelKey = (channel: unknown) =>
  typeof channel === "object" && channel !== null && "id" in channel ? String((channel as { id: unknown }).id) : JSON.stringify(channel);

async function checkChannelsFree(ctx: AgentServiceContext, accountId: number, channels: unknown[], exceptId: number | null) {
  if (channels.length === 0) return;
  const wanted = new Set(channels.map(channelKey));
  for (const agent of await agentsBoundToChannels(ctx.prisma, accountId, exceptId)) {
    const taken = (Array.isArray(agent.chatChannels) ? agent.chatChannels : []).map(channelKey).find((key) => wanted.has(key));
    if (taken !== undefined) {
      throw new PlatformError({
        type: "conflict_error",
        errorCode: "chat_channel_taken",
        message: `chat_channels: channel ${taken} is already bound to agent ${agent.id} (one agent per channel)`,
      });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Operations

const TEMPLATE_COMPATIBLE = new Set([
  "from_template",
  "user_id",
  "metadata",
  "onboarding_answers",
  "enabled_task_slugs",
  "enabled_bootstrap_slugs",
]);

function templateFields(template: AgentTemplate, input: CreateInput) {
  const conflicting = Object.entries(input).find(([key, value]) => value !== undefined && !TEMPLATE_COMPATIBLE.has(key));
  if (conflicting) throw invalid(conflicting[0], "cannot be set together with from_template");
  const check = (field: string, slugs: string[] | null | undefined, known: { slug: string }[]) => {
    const unknown = (slugs ?? []).filter((slug) => !known.some((task) => task.slug === slug));
    if (unknown.length > 0) throw invalid(field, `unknown task slug(s) for template ${template.slug}: ${unknown.join(", ")}`);
  };
  check("enabled_task_slugs", input.enabled_task_slugs, template.default_tasks);
  check("enabled_bootstrap_slugs", input.enabled_bootstrap_slugs, template.bootstrap_tasks);
  // Unknown answer keys are ignored, as the spec says; known ones become memories.
  const memories = template.questions.flatMap((question) => {
    const answer = input.onboarding_answers?.[question.key];
    return answer === undefined || answer === null || answer === "" ? [] : [`${question.label} ${String(answer)}`];
  });
  return { template, name: template.name, instructions: template.instructions, role: template.role, goals: template.goals, memories };
}

/**
 * POST /agents (and /teammates, and POST /runs creating its agent). With `webhook: true` the agent's
 * webhook URL (built on `baseUrl`) is in the answer, this once (services/agents/agent-webhooks.ts).
 */
/**
 * What createAgent gives an agent whose input leaves these out. POST /runs decides the run of an agent
 * it creates from them before it creates it (services/runs/run-target.ts).
 */
export const NEW_AGENT_DEFAULTS = { defaultPermissionMode: "approval", promptProfile: "platform", model: null, effort: null } as const;

export async function createAgent(
  ctx: AgentServiceContext & { jobs?: JobQueue },
  scope: Scope,
  input: CreateInput,
  baseUrl?: string,
): Promise<AgentOut & { webhook_url?: string }> {
  let fromTemplate: ReturnType<typeof templateFields> | undefined;
  if (input.from_template !== undefined) {
    const template = findTemplate(input.from_template);
    if (!template) throw invalid("from_template", `unknown template "${input.from_template}"; see GET /agent-templates`);
    fromTemplate = templateFields(template, input);
  } else {
    for (const field of ["onboarding_answers", "enabled_task_slugs", "enabled_bootstrap_slugs"] as const) {
      if (input[field] !== undefined) throw invalid(field, "is only accepted with from_template");
    }
  }
  await checkBridgeId(ctx, scope.accountId, input.bridge_id);
  checkBuiltInTools(input.disabled_builtin_tools ?? []);
  checkImessage(input.inbound_imessage_enabled ?? false, input.allowed_imessage_senders ?? []);
  await checkChannelsFree(ctx, scope.accountId, input.chat_channels ?? [], null);
  const model = input.model ? resolveModel(ctx.config, input.model) : NEW_AGENT_DEFAULTS.model;
  // Last of the checks: starting a group writes its first agent.
  if (input.group_id !== undefined && input.group_id !== null) await joinMateGroup(ctx, scope, input.group_id, null);
  const data: AgentData = {
    name: fromTemplate?.name ?? input.name?.trim() ?? randomName(),
    instructions: fromTemplate?.instructions ?? input.instructions ?? "",
    tools: input.tools ?? [],
    role: fromTemplate?.role ?? input.role ?? null,
    goals: fromTemplate?.goals ?? input.goals ?? null,
    model,
    effort: input.effort ? effectiveEffort(ctx.config, input.effort, model) : NEW_AGENT_DEFAULTS.effort,
    defaultPermissionMode: input.default_permission_mode ?? NEW_AGENT_DEFAULTS.defaultPermissionMode,
    enableMemory: input.enable_memory ?? null,
    enableHistory: input.enable_history ?? null,
    enableTaskSetupTools: input.enable_task_setup_tools ?? null,
    enableFeedback: input.enable_feedback ?? null,
    enableSelfImprovement: input.enable_self_improvement ?? null,
    promptProfile: input.prompt_profile ?? NEW_AGENT_DEFAULTS.promptProfile,
    disabledBuiltinTools: input.disabled_builtin_tools ?? [],
    metadata: cleanMetadata(input.metadata) ?? null,
    allowedSenders: input.allowed_senders ?? [],
    inboundImessageEnabled: input.inbound_imessage_enabled ?? false,
    imessageChatGuid: input.imessage_chat_guid ?? null,
    bridgeId: input.bridge_id ?? null,
    allowedImessageSenders: input.allowed_imessage_senders ?? [],
    chatSlug: input.chat_slug ?? null,
    chatChannels: input.chat_channels && input.chat_channels.length > 0 ? (input.chat_channels as JsonArray) : null,
    allowedChatSenders: input.allowed_chat_senders ?? [],
    template: input.from_template ?? null,
    groupId: input.group_id ?? null,
  };
  // email_inbox: true gives the agent its inbox address at once (services/messaging/email-addresses.ts).
  if (input.email_inbox) Object.assign(data, { emailInbox: true, emailAddress: newInboxAddress(emailSettings(ctx.config).domain, data.name) });
  let webhookUrl: string | undefined;
  if (input.webhook) {
    if (baseUrl === undefined) throw new Error("createAgent: webhook: true needs the API's base URL");
    const issued = issueAgentWebhook(baseUrl);
    Object.assign(data, issued.data);
    webhookUrl = issued.url;
  }
  const { row, triggers } = await ctx.prisma.$transaction(async (tx) => {
    const created = await insertAgent(tx as Db, scope, data);
    if (!fromTemplate) return { row: created, triggers: [] };
    if (fromTemplate.memories.length > 0) {
      await createOnboardingMemories(tx as Db, scope, created.id, fromTemplate.memories);
    }
    return { row: created, triggers: await seedTemplateTasks(tx as Db, created, fromTemplate.template, input) };
  });
  for (const trigger of triggers) await enqueueFire(withJobs(ctx).jobs, trigger);
  if (row.enableSelfImprovement === true) await ensureSelfReviewTask(withJobs(ctx), row);
  return webhookUrl === undefined ? toAgent(row) : { ...toAgent(row), webhook_url: webhookUrl };
}

function withJobs(ctx: AgentServiceContext & { jobs?: JobQueue }): AgentWriteContext {
  // Every caller that can set enable_self_improvement passes the queue; a missing one is a wiring bug.
  if (!ctx.jobs) throw new Error("enable_self_improvement needs the job queue in the agent service's context");
  return { ...ctx, jobs: ctx.jobs };
}

// ---------------------------------------------------------------------------------------------
// Reads through this process's cache (infrastructure/hot-cache.ts), and the one write they must hear of

const cachedAgentRow = (ctx: DataContext, accountId: number, id: number) =>
  ctx.cache.agents.get(agentCacheKey(accountId, id), () => findAgentRow(ctx.prisma, accountId, id));

/** The agent `id` as the scope sees it (repositories/agents.ts findAgent), from the cache when it holds it. */
export async function findScopedAgent(
  ctx: DataContext,
  scope: Scope,
  id: number,
  options: { includeArchived?: boolean } = {},
): Promise<AgentRow | null> {
  return agentInScope(await cachedAgentRow(ctx, scope.accountId, id), scope, options);
}

/** The account's agent `id` in any scope, not archived, with its user_id (findAgentAnyScope), cached likewise. */
export async function findAccountAgent(ctx: DataContext, accountId: number, id: number): Promise<AgentRow | null> {
  return withOwner(ctx.prisma, await cachedAgentRow(ctx, accountId, id));
}

/** Every change to an agent row goes through here, so every instance drops its copy once it is written. */
export async function updateAgent(ctx: DataContext, agent: AgentRow, data: AgentRowUpdate) {
  try {
    return await updateAgentRow(ctx.prisma, agent.id, data);
  } finally {
    // Also when it failed: a row that went away meanwhile leaves a stale copy too.
    ctx.cache.agentChanged(agent.accountId, agent.id);
  }
}

/** The agent `id` as the scope sees it, not archived unless asked: else 404. */
export async function loadAgent(ctx: DataContext, scope: Scope, id: number, options: { includeArchived?: boolean } = {}) {
  const row = await findScopedAgent(ctx, scope, id, options);
  if (!row) throw notFound(id);
  return row;
}

export const getAgent = async (ctx: AgentServiceContext, scope: Scope, id: number) =>
  toAgent(await loadAgent(ctx, scope, id));

interface AgentListOptions {
  limit: number;
  starting_after?: number;
  include_archived?: boolean;
}

export function listAgents(ctx: AgentServiceContext, scope: Scope, query: AgentListOptions): Promise<Page<AgentOut>>;
export function listAgents(
  ctx: AgentServiceContext,
  scope: Scope,
  query: AgentListOptions & { fields?: "summary" },
): Promise<Page<AgentOut> | Page<z.infer<typeof AgentSummary>>>;
export async function listAgents(
  ctx: AgentServiceContext,
  scope: Scope,
  query: AgentListOptions & { fields?: "summary" },
): Promise<Page<AgentOut> | Page<z.infer<typeof AgentSummary>>> {
  if (query.starting_after !== undefined && !(await agentExistsInScope(ctx.prisma, scope, query.starting_after))) {
    throw invalid("starting_after", `no agent ${query.starting_after} in this scope`);
  }
  const rows = await selectAgents(ctx.prisma, scope, {
    limit: query.limit + 1,
    startingAfter: query.starting_after,
    includeArchived: query.include_archived ?? false,
  });
  return query.fields === "summary" ? toPage(rows, query.limit, toAgentSummary) : toPage(rows, query.limit, toAgent);
}

export async function patchAgent(ctx: AgentWriteContext, scope: Scope, id: number, input: UpdateInput): Promise<AgentOut> {
  const current = await loadAgent(ctx, scope, id);
  const data: AgentRowUpdate = {};
  const changed: string[] = [];
  const set = <K extends keyof AgentRowUpdate>(field: string, key: K, value: AgentRowUpdate[K]) => {
    data[key] = value;
    changed.push(field);
  };

  if (input.name !== undefined) set("name", "name", input.name.trim());
  if (input.instructions !== undefined) set("instructions", "instructions", input.instructions);
  if (input.tools !== undefined) set("tools", "tools", input.tools);
  if (input.role !== undefined) set("role", "role", input.role);
  if (input.goals !== undefined) set("goals", "goals", input.goals);
  if (input.enable_memory !== undefined) set("enable_memory", "enableMemory", input.enable_memory);
  if (input.enable_history !== undefined) set("enable_history", "enableHistory", input.enable_history);
  if (input.enable_task_setup_tools !== undefined) set("enable_task_setup_tools", "enableTaskSetupTools", input.enable_task_setup_tools);
  if (input.enable_feedback !== undefined) set("enable_feedback", "enableFeedback", input.enable_feedback);
  if (input.enable_self_improvement !== undefined) set("enable_self_improvement", "enableSelfImprovement", input.enable_self_improvement);
  if (input.prompt_profile !== undefined) set("prompt_profile", "promptProfile", input.prompt_profile);
  if (input.disabled_builtin_tools !== undefined) {
    checkBuiltInTools(input.disabled_builtin_tools);
    set("disabled_builtin_tools", "disabledBuiltinTools", input.disabled_builtin_tools);
  }
  if (input.metadata !== undefined) set("metadata", "metadata", cleanMetadata(input.metadata));
  if (input.allowed_senders !== undefined) set("allowed_senders", "allowedSenders", input.allowed_senders);
  if (input.inbound_imessage_enabled !== undefined) set("inbound_imessage_enabled", "inboundImessageEnabled", input.inbound_imessage_enabled);
  if (input.imessage_chat_guid !== undefined) set("imessage_chat_guid", "imessageChatGuid", input.imessage_chat_guid);
  if (input.bridge_id !== undefined) {
    await checkBridgeId(ctx, current.accountId, input.bridge_id);
    set("bridge_id", "bridgeId", input.bridge_id);
  }
  if (input.allowed_imessage_senders !== undefined) set("allowed_imessage_senders", "allowedImessageSenders", input.allowed_imessage_senders);
  if (input.chat_slug !== undefined) set("chat_slug", "chatSlug", input.chat_slug);
  if (input.chat_channels !== undefined) {
    await checkChannelsFree(ctx, scope.accountId, input.chat_channels, id);
    set("chat_channels", "chatChannels", input.chat_channels.length > 0 ? (input.chat_channels as JsonArray) : null);
  }
  if (input.allowed_chat_senders !== undefined) set("allowed_chat_senders", "allowedChatSenders", input.allowed_chat_senders ?? []);
  // null or omitted leaves these unchanged (the spec's rule for them).
  if (input.default_permission_mode !== undefined && input.default_permission_mode !== null) {
    set("default_permission_mode", "defaultPermissionMode", input.default_permission_mode);
  }
  if (input.visibility !== undefined && input.visibility !== null) set("visibility", "visibility", input.visibility);
  if (input.display_order !== undefined) set("display_order", "displayOrder", input.display_order);
  // null ungroups; a group is joined after every other check passed (starting one writes its first agent).
  if (input.group_id !== undefined) set("group_id", "groupId", input.group_id);
  // Explicit null resets the model to the platform default.
  const model = input.model === undefined ? current.model : input.model === null ? null : resolveModel(ctx.config, input.model);
  if (input.model !== undefined) set("model", "model", model);
  if (input.effort !== undefined) {
    set("effort", "effort", input.effort === null ? null : effectiveEffort(ctx.config, input.effort, model));
  }

  checkImessage(
    input.inbound_imessage_enabled ?? current.inboundImessageEnabled,
    input.allowed_imessage_senders ?? current.allowedImessageSenders,
  );
  if (input.group_id !== undefined && input.group_id !== null && input.group_id !== current.groupId) {
    await joinMateGroup(ctx, { accountId: current.accountId, endUserId: current.endUserId, userId: scope.userId }, input.group_id, current.id);
  }
  if (current.template && changed.length > 0) {
    data.customizedFields = [...new Set([...current.customizedFields, ...changed])];
  }
  const updated = await updateAgent(ctx, current, data);
  // Only a change of the flag acts: on schedules the weekly review (once), off stops it.
  const wasOn = current.enableSelfImprovement === true;
  const isOn = updated.enableSelfImprovement === true;
  if (isOn && !wasOn) await ensureSelfReviewTask(ctx, updated);
  if (wasOn && !isOn) await stopSelfReview(ctx, updated);
  return toAgent(updated);
}

/**
 * POST /agents/{id}/chat-channel: a new public channel in the account's chat workspace (through its
 * account-level chat connection, services/apps/app-chat.ts), named after the agent, and bound to the agent
 * (added to its chat_channels, the one agent of that channel). 404 for an agent out of reach, 422
 * app_not_connected without the connection.
 */
export async function createAgentChatChannel(ctx: AgentServiceContext, auth: AuthContext, scope: Scope, id: number) {
  const row = await loadAgent(ctx, scope, id);
  // Slack's channel names: lower case, letters, digits, - and _, at most 80 characters.
  const name = row.name.toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 80) || `agent-${row.id}`;
  const channel = await createChatChannel(ctx, auth, CHAT_APP, name);
  const current = Array.isArray(row.chatChannels) ? (row.chatChannels as JsonArray) : [];
  await checkChannelsFree(ctx, scope.accountId, [channel.id], row.id);
  const agent = toAgent(await updateAgent(ctx, row, { chatChannels: [...current, channel.id] }));
  return { channel, agent };
}

export async function archiveAgent(ctx: AgentServiceContext, scope: Scope, id: number): Promise<void> {
  await updateAgent(ctx, await loadAgent(ctx, scope, id), { status: "archived" });
}

export async function setAgentEnabled(ctx: AgentServiceContext, scope: Scope, id: number, enabled: boolean) {
  return toAgent(await updateAgent(ctx, await loadAgent(ctx, scope, id), { status: enabled ? "enabled" : "disabled" }));
}

export async function unarchiveAgent(ctx: AgentServiceContext, scope: Scope, id: number) {
  const row = await loadAgent(ctx, scope, id, { includeArchived: true });
  if (row.status !== "archived") {
    throw new PlatformError({ type: "conflict_error", message: `agent ${id} is not archived` });
  }
  const agent = toAgent(await updateAgent(ctx, row, { status: "disabled" }));
  return { id: agent.id, name: agent.name, status: agent.status, created_at: agent.created_at };
}

// ---------------------------------------------------------------------------------------------
// Email inbox (POST/DELETE /agents/{id}/email-inbox; docs/platform-api.md, "Email")

/**
 * Turns the agent's inbox on (an address on the configured domain; the same one again when it is on
 * already) or off (the address is released: mail to it is refused, and turning it on again gives a new one).
 */
export async function setAgentEmailInbox(ctx: AgentServiceContext, scope: Scope, id: number, enabled: boolean): Promise<AgentOut> {
  const row = await loadAgent(ctx, scope, id);
  if (enabled === row.emailInbox && (!enabled || row.emailAddress !== null)) return toAgent(row);
  const data = enabled
    ? { emailInbox: true, emailAddress: newInboxAddress(emailSettings(ctx.config).domain, row.name) }
    : { emailInbox: false, emailAddress: null };
  return toAgent(await updateAgent(ctx, row, data));
}

/** Resets the named fields (all resettable ones when none are named) to the template or defaults. */
export async function resetAgent(
  ctx: AgentServiceContext,
  scope: Scope,
  id: number,
  fields: readonly (typeof RESETTABLE_FIELDS)[number][] | undefined,
) {
  const row = await loadAgent(ctx, scope, id);
  const template = row.template ? findTemplate(row.template) : undefined;
  const names = fields ?? RESETTABLE_FIELDS;
  const defaults: Record<(typeof RESETTABLE_FIELDS)[number], Partial<AgentRowUpdate>> = {
    // A name is only an override when a template gave the original.
    name: template ? { name: template.name } : {},
    instructions: { instructions: template?.instructions ?? "" },
    tools: { tools: [] },
    role: { role: template?.role ?? null },
    goals: { goals: template?.goals ?? null },
    model: { model: null },
    effort: { effort: null },
    default_permission_mode: { defaultPermissionMode: "approval" },
    enable_memory: { enableMemory: null },
    enable_history: { enableHistory: null },
    enable_task_setup_tools: { enableTaskSetupTools: null },
    enable_feedback: { enableFeedback: null },
    enable_self_improvement: { enableSelfImprovement: null },
    prompt_profile: { promptProfile: "platform" },
    disabled_builtin_tools: { disabledBuiltinTools: [] },
  };
  const data: AgentRowUpdate = Object.assign({}, ...names.map((name) => defaults[name]));
  data.customizedFields = row.customizedFields.filter((field) => !names.includes(field as (typeof RESETTABLE_FIELDS)[number]));
  return toAgent(await updateAgent(ctx, row, data));
}

export async function agentSystemPrompt(ctx: AgentServiceContext, scope: Scope, id: number, skillSlug?: string) {
  const row = await loadAgent(ctx, scope, id);
  // Resolved as POST /runs resolves `skill`, so the text is what a run forcing it gets.
  const skill = skillSlug === undefined ? null : await resolveForcedSkill(ctx, scope, row, skillSlug);
  // The prompt of a new interactive run of no task with no toggles: no save_lesson, and no lessons (a
  // task's runs get both).
  const tools = resolveBuiltInTools(row, { memory: null, history: null, taskSetupTools: null, feedback: null, interactive: true, taskId: null });
  const memories = tools.includes("memory") ? await recentMemoryContents(ctx.prisma, scope, PROMPT_MEMORY_LIMIT) : [];
  const promptProfile = row.promptProfile === "bare" ? "bare" : "platform";
  return {
    agent_id: row.id,
    prompt_profile: promptProfile,
    prompt: buildSystemPrompt(
      { name: row.name, instructions: row.instructions, role: row.role, goals: row.goals, promptProfile },
      { memories, builtInTools: tools, skill },
    ),
    skill: skill?.slug ?? null,
  } as const;
}

const toAgentDocument = (row: AgentDocumentRow) => ({
  id: row.id,
  name: row.name,
  summary: row.summary,
  mime_type: row.mimeType,
  size_bytes: row.sizeBytes,
  source: row.source,
  source_run_id: row.sourceRunId,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

export async function listDocuments(ctx: AgentServiceContext, scope: Scope, id: number, query: { limit: number; starting_after?: number }) {
  await loadAgent(ctx, scope, id);
  const rows = await listAgentDocuments(ctx.prisma, id, { limit: query.limit, startingAfter: query.starting_after });
  return toPage(rows, query.limit, toAgentDocument);
}

export async function getDocument(ctx: AgentServiceContext, scope: Scope, id: number, name: string) {
  await loadAgent(ctx, scope, id);
  const row = await findAgentDocument(ctx.prisma, id, name);
  if (!row) throw new PlatformError({ type: "not_found", message: `agent ${id} has no document named "${name}"` });
  return { ...toAgentDocument(row), content: row.content };
}

/** The first non-blank line, cut: what a document written without a summary is listed with. */
const defaultSummary = (content: string) => (content.split("\n").find((line) => line.trim())?.trim() ?? "").slice(0, 200);

/**
 * The documents tool's write (runtime/tools.ts): the run's agent's document `name`, created or
 * replaced. The run's scope is its agent's (a run's user_id must match its agent's), so the agent id
 * scopes the document. Name and MIME type are checked by the tool's input schema; size, count and
 * JSON content here.
 */
export async function writeAgentDocument(
  prisma: Db,
  owner: { accountId: number; agentId: number; runId: number | null },
  input: { name: string; content: string; summary?: string; mime_type?: string },
) {
  const sizeBytes = Buffer.byteLength(input.content, "utf8");
  if (sizeBytes > DOCUMENT_MAX_BYTES) throw invalid("content", `must be at most ${DOCUMENT_MAX_BYTES} bytes (UTF-8); it is ${sizeBytes}`);
  const summary = input.summary?.trim() ?? defaultSummary(input.content);
  if (summary.length > DOCUMENT_SUMMARY_MAX_CHARS) throw invalid("summary", `must be at most ${DOCUMENT_SUMMARY_MAX_CHARS} characters`);
  const mimeType = input.mime_type ?? "text/markdown";
  if (mimeType === "application/json") {
    try {
      JSON.parse(input.content);
    } catch {
      throw invalid("content", "must be valid JSON for mime_type application/json");
    }
  }
  // A replacement does not add one; a new name beyond the cap is refused (a soft cap: two parallel new
  // names can pass together, which a working set tolerates).
  if (!(await findAgentDocument(prisma, owner.agentId, input.name)) && (await countAgentDocuments(prisma, owner.agentId)) >= DOCUMENTS_PER_AGENT) {
    throw invalid("name", `the agent already has ${DOCUMENTS_PER_AGENT} documents (the most it keeps); replace one instead`);
  }
  const row = await upsertAgentDocument(prisma, {
    accountId: owner.accountId,
    agentId: owner.agentId,
    name: input.name,
    summary,
    mimeType,
    content: input.content,
    sizeBytes,
    source: "agent",
    sourceRunId: owner.runId,
  });
  return toAgentDocument(row);
}

/** The documents tool's read and list: the run's agent's documents (the run's scope). */
export async function readAgentDocument(prisma: Db, agentId: number, name: string) {
  const row = await findAgentDocument(prisma, agentId, name);
  return row ? { ...toAgentDocument(row), content: row.content } : null;
}

export async function listAgentDocumentsForRun(prisma: Db, agentId: number) {
  return (await listAgentDocuments(prisma, agentId, { limit: DOCUMENTS_PER_AGENT })).slice(0, DOCUMENTS_PER_AGENT).map(toAgentDocument);
}

/**
 * GET /built-in-tools: every tool, with `enabled` resolved for the agent when one is named, by the
 * function a run's tools come from (save_lesson and AskUserQuestion are then offered to the runs that
 * can use them: a task's, an interactive one).
 */
export async function builtInToolsFor(ctx: AgentServiceContext, scope: Scope, agentId: number | undefined) {
  const row = agentId === undefined ? undefined : await loadAgent(ctx, scope, agentId);
  return BUILT_IN_TOOLS.map((tool) => ({
    ...tool,
    configurable: tool.agent_toggle !== null,
    enabled: row ? isBuiltInToolEnabled(tool, row) : true,
  }));
}
