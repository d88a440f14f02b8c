// GET /account/export: everything the account owns, as one JSON document. Secrets stay out: no
// password hash, no key hash, no webhook token hash, and one-time tokens in recorded mail are
// redacted (the verification link in a mail would otherwise still verify the email).
import type { z } from "zod";
import type { AccountExport } from "@inlay/core/schemas/accounts";
import type { Db } from "../../repositories/db";
import { PlatformError } from "../../errors";
import { loadAccountData, type AccountData } from "../../repositories/account-export";
import type { PlatformConfig } from "../../platform-config";
import { toAccount, toApiKeyInfo } from "./accounts";
import { toAgentRepo } from "../agents/agent-repos";
import { toConnection } from "../apps/apps";
import { toBalanceTransaction } from "../billing/billing";
import { toBridge } from "../messaging/bridges";
import { toJudgment } from "../models/judgments";
import { toReceipt } from "../billing/payments";
import { toRun } from "../runs/runs";
import { toTrigger } from "../tasks/trigger-shape";
import { toTask } from "../tasks/tasks";
import { toWebhook } from "../webhooks/webhooks";
import { toSettings } from "./settings";
import { toSkill } from "../agents/skills";
import { toToolServer } from "../tool-servers/tool-servers";
import { toObservation, toUseCase } from "../agents/value";

type Export = z.infer<typeof AccountExport>;

const iso = (date: Date) => date.toISOString();
const isoOrNull = (date: Date | null) => date?.toISOString() ?? null;

/** Replaces the value of any `token` query parameter in the links of a message. */
export const redactTokens = (text: string) => text.replace(/([?&]token=)[^&\s#]+/g, "$1[redacted]");

export async function exportAccount(ctx: { prisma: Db; config: PlatformConfig }, accountId: number, now = new Date()): Promise<Export> {
  const data = await loadAccountData(ctx.prisma, accountId);
  if (!data) throw new PlatformError({ type: "not_found", message: "account not found" });
  return toAccountExport(ctx.config, data, now);
}

function toAccountExport(config: PlatformConfig, data: AccountData, now: Date): Export {
  // Rows keep the end-user's row id; the API speaks of the caller's own user_id.
  const userIds = new Map(data.endUsers.map((endUser) => [endUser.id, endUser.externalId]));
  const userIdOf = (endUserId: number | null) => (endUserId === null ? null : (userIds.get(endUserId) ?? null));
  return {
    exported_at: iso(now),
    account: {
      ...toAccount(data),
      signup_source: data.signupSource,
      email_verified_at: isoOrNull(data.emailVerifiedAt),
      updated_at: iso(data.updatedAt),
    },
    settings: toSettings(data),
    api_keys: data.apiKeys.map((key) => ({ ...toApiKeyInfo(key), revoked_at: isoOrNull(key.revokedAt) })),
    end_users: data.endUsers.map((endUser) => ({
      id: endUser.id,
      user_id: endUser.externalId,
      name: endUser.name,
      email: endUser.email,
      company: endUser.company,
      metadata: endUser.metadata,
      created_at: iso(endUser.createdAt),
      updated_at: iso(endUser.updatedAt),
    })),
    agents: data.agents.map((agent) => ({
      id: agent.id,
      user_id: userIdOf(agent.endUserId),
      name: agent.name,
      instructions: agent.instructions,
      tools: agent.tools,
      role: agent.role,
      goals: agent.goals,
      model: agent.model,
      effort: agent.effort,
      default_permission_mode: agent.defaultPermissionMode,
      enable_memory: agent.enableMemory,
      enable_history: agent.enableHistory,
      enable_task_setup_tools: agent.enableTaskSetupTools,
      enable_feedback: agent.enableFeedback,
      enable_self_improvement: agent.enableSelfImprovement,
      prompt_profile: agent.promptProfile,
      disabled_builtin_tools: agent.disabledBuiltinTools,
      metadata: agent.metadata,
      allowed_senders: agent.allowedSenders,
      inbound_imessage_enabled: agent.inboundImessageEnabled,
      imessage_chat_guid: agent.imessageChatGuid,
      bridge_id: agent.bridgeId,
      allowed_imessage_senders: agent.allowedImessageSenders,
      chat_slug: agent.chatSlug,
      chat_channels: agent.chatChannels,
      allowed_chat_senders: agent.allowedChatSenders,
      email_inbox: agent.emailInbox,
      email_address: agent.emailAddress,
      fetchmail: agent.fetchmail,
      webhook_enabled: agent.webhookEnabled,
      template: agent.template,
      customized_fields: agent.customizedFields,
      group_id: agent.groupId,
      visibility: agent.visibility,
      display_order: agent.displayOrder,
      status: agent.status,
      created_at: iso(agent.createdAt),
      updated_at: iso(agent.updatedAt),
    })),
    agent_documents: data.agentDocuments.map((document) => ({
      id: document.id,
      agent_id: document.agentId,
      name: document.name,
      summary: document.summary,
      mime_type: document.mimeType,
      content: document.content,
      size_bytes: document.sizeBytes,
      source: document.source,
      source_run_id: document.sourceRunId,
      created_at: iso(document.createdAt),
      updated_at: iso(document.updatedAt),
    })),
    issue_reports: data.issueReports.map((report) => ({
      id: report.id,
      agent_id: report.agentId,
      run_id: report.runId,
      user_id: userIdOf(report.endUserId),
      summary: report.summary,
      details: report.details,
      status: report.status,
      created_at: iso(report.createdAt),
      resolved_at: isoOrNull(report.resolvedAt),
    })),
    memories: data.memories.map((memory) => ({
      id: memory.id,
      user_id: userIdOf(memory.endUserId),
      content: memory.content,
      source: memory.source,
      agent_id: memory.agentId,
      created_at: iso(memory.createdAt),
    })),
    permissions: data.permissions.map((permission) => ({
      id: permission.id,
      user_id: userIdOf(permission.endUserId),
      tool: permission.tool,
      created_at: iso(permission.createdAt),
    })),
    mail: data.mail.map((mail) => ({
      id: mail.id,
      to: mail.to,
      subject: mail.subject,
      text: redactTokens(mail.text),
      kind: mail.kind,
      created_at: iso(mail.createdAt),
    })),
    runs: data.runs.map((run) => ({ ...toRun(run, run.endUser?.externalId ?? null), messages: run.messages as unknown[] })),
    tasks: data.tasks.map((task) => ({ ...toTask(task), triggers: task.triggers.map(toTrigger) })),
    webhooks: data.webhooks.map((webhook) => toWebhook({ config }, webhook)),
    app_connections: data.appConnections.map(toConnection),
    bridges: data.bridges.map((bridge) => toBridge(config, bridge)),
    balance_transactions: data.transactions.map(toBalanceTransaction),
    receipts: data.receipts.map(toReceipt),
    // A result is exported while GET /judgments/{id} would show it; the metadata always.
    judgments: data.judgments.map((judgment) =>
      toJudgment(judgment, judgment.result !== null && judgment.resultExpiresAt > now ? (judgment.result as Record<string, unknown>) : {}),
    ),
    agent_repos: data.agentRepos.map(toAgentRepo),
    tool_servers: data.toolServers.map(toToolServer),
    skills: data.skills.map(toSkill),
    value_use_cases: data.valueUseCases.map((useCase) => ({ ...toUseCase(useCase), run_ids: useCase.runLinks.map((link) => link.runId) })),
    value_observations: data.valueUseCases.flatMap((useCase) =>
      useCase.observations.map((observation) => toObservation({ ...observation, useCase: { endUser: useCase.endUser } })),
    ),
  };
}
