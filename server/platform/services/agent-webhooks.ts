// An agent's inbound webhook (`webhook: true` on POST /agents, PATCH /agents/{id}/webhook, POST
// /hooks/agents/{token}): the task webhooks' mechanism (services/task-webhooks.ts: a secret URL shown
// once, only its SHA-256 kept, a pause switch, the payload as the run's message, Idempotency-Key
// replays) applied to an agent, whose calls start a run of the agent itself. No HTTP here.
import type { z } from "zod";
import type { Agent, AgentWebhookUpdate } from "@/lib/schemas/agents";
import type { TaskWebhookAccepted } from "@/lib/schemas/triggers";
import { PlatformError } from "../errors";
import { findAgentByWebhookHash } from "../repositories/agents";
import { findAccountAgent, loadAgent, toAgent, updateAgent, type AgentServiceContext } from "./agents";
import { accountActing } from "./auth";
import { createIdempotently, requestHash } from "./idempotency";
import { createRun, getRunInAccount, type RunServiceContext } from "./runs";
import type { Scope } from "./scope";
import { newWebhookToken, webhookPayloadText, type WebhookCall } from "./task-webhooks";
import { sha256Hex } from "@/server/secret-box";

/** Where an agent's inbound calls go, under the platform's base URL (…/api/v2). */
export const AGENT_HOOK_PATH = "/hooks/agents";

type AgentOut = z.infer<typeof Agent>;

/** A new token for an agent: the row's fields to write and the URL to show once. */
export function issueAgentWebhook(baseUrl: string) {
  const { token, hash } = newWebhookToken();
  return { data: { webhookEnabled: true, webhookTokenHash: hash }, url: `${baseUrl}${AGENT_HOOK_PATH}/${token}` };
}

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

/**
 * An inbound call: an unknown token (or an archived agent's) is a 404, a paused webhook a 409 (nothing
 * started); otherwise a run of the agent starts as POST /runs with stream=false would start it, in the
 * agent's scope, acting for its account (admission, caps and billing included; a disabled agent is the
 * run's usual 409). The payload is the run's message. An Idempotency-Key replays the first call's run.
 */
export async function receiveAgentWebhook(
  ctx: RunServiceContext,
  call: WebhookCall,
): Promise<{ accepted: z.infer<typeof TaskWebhookAccepted>; replay: boolean }> {
  const found = await findAgentByWebhookHash(ctx.prisma, sha256Hex(call.token));
  const agent = found ? await findAccountAgent(ctx, found.accountId, found.id) : null;
  if (!agent) throw new PlatformError({ type: "not_found", message: "no webhook at this URL" });
  if (!agent.webhookEnabled) {
    throw new PlatformError({
      type: "conflict_error",
      errorCode: "webhook_paused",
      message: "this agent's webhook is paused; resume it with PATCH /agents/{agent_id}/webhook {\"enabled\": true}",
    });
  }
  const idempotent =
    call.idempotencyKey === undefined
      ? undefined
      : {
          accountId: agent.accountId,
          key: call.idempotencyKey,
          // The agent, not the token: a retry after a rotation is still the same request.
          hash: requestHash({ method: "POST", path: `${AGENT_HOOK_PATH}/agent-${agent.id}`, query: [], body: call.body }),
        };
  const message = `Webhook payload:\n${webhookPayloadText(call.contentType, call.body)}`;
  const outcome = await createIdempotently(ctx.prisma, idempotent, (claim) =>
    createRun(
      ctx,
      accountActing(agent.accountId),
      agent.endUser?.externalId ?? undefined,
      { message, teammate_id: agent.id, stream: false, metadata: { source: "webhook" } },
      [],
      claim,
    ),
  );
  if (outcome.kind === "replay") {
    const run = await getRunInAccount(ctx, agent.accountId, outcome.runId);
    return { accepted: { run_id: run.id, status: run.status }, replay: true };
  }
  const { run } = outcome.value;
  return { accepted: { run_id: run.id, status: run.status }, replay: false };
}
