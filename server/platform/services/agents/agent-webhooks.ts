// An agent's inbound webhook (`webhook: true` on POST /agents, PATCH /agents/{id}/webhook, POST
// /hooks/agents/{token}): the task webhooks' mechanism (services/tasks/task-webhooks.ts: a secret URL shown
// once, only its SHA-256 kept, a pause switch, the payload as the run's message, Idempotency-Key
// replays) applied to an agent, whose calls start a run of the agent itself. No HTTP here.
import type { z } from "zod";
import type { Agent, AgentWebhookUpdate } from "@inlay/core/schemas/agents";
import { loadAgent, toAgent, updateAgent, type AgentServiceContext } from "./agents";
import type { Scope } from "../scope";
import { issueAgentWebhook } from "../tasks/webhook-tokens";

type AgentOut = z.infer<typeof Agent>;

/**
 * PATCH /agents/{id}/webhook: `enabled` pauses (false) or resumes (true) the webhook, its URL unchanged.
 * An agent that has none yet gets one on `enabled: true` (its URL in the answer, this once), since the
 * spec gives no other way to add a webhook after creation; `rotate: true` replaces the URL likewise.
 */
export async function updateAgentWebhook(
  ctx: AgentServiceContext,
  scope: Scope,
  id: number,
  input: z.infer<typeof AgentWebhookUpdate>,
  baseUrl: string,
): Promise<AgentOut & { webhook_url?: string }> {
  const row = await loadAgent(ctx, scope, id);
  const issue = input.rotate === true || (input.enabled && row.webhookTokenHash === null);
  if (!issue) return toAgent(await updateAgent(ctx, row, { webhookEnabled: input.enabled && row.webhookTokenHash !== null }));
  const { data, url } = issueAgentWebhook(baseUrl);
  const updated = await updateAgent(ctx, row, { ...data, webhookEnabled: input.enabled });
  return { ...toAgent(updated), webhook_url: url };
}
