// Inbound webhooks, the entry points that start runs from a secret URL (POST /hooks/tasks/{token},
// POST /hooks/agents/{token}): the call's token finds its task or agent (only hashes are kept;
// services/tasks/webhook-tokens.ts), a paused webhook is a 409, and otherwise a run starts as the matching
// POST would start it, acting for the owner's account (admission, caps and billing included). The
// payload is the run's message; an Idempotency-Key replays the first call's run. No HTTP here.
import type { z } from "zod";
import type { TaskWebhookAccepted } from "@inlay/core/schemas/triggers";
import { PlatformError } from "../errors";
import { findAgentByWebhookHash } from "../repositories/agents";
import * as triggers from "../repositories/task-triggers";
import { findTaskByWebhookHash } from "../repositories/tasks";
import { findAccountAgent } from "../services/agents/agents";
import { accountActing } from "../services/account/auth";
import { createIdempotently, requestHash } from "../services/idempotency";
import { getRunInAccount } from "../services/runs/runs";
import { requestRun } from "../services/runs/run-target";
import type { RunServiceContext } from "../services/runs/run-context";
import { runTask } from "../services/tasks/tasks";
import { AGENT_HOOK_PATH, TASK_HOOK_PATH } from "../services/tasks/webhook-tokens";
import { sha256Hex } from "@/server/shared/secret-box";

/** The most of a payload a run's message carries; the rest is cut with a note saying how much. */
export const WEBHOOK_PAYLOAD_MAX_CHARS = 64_000;


export interface WebhookCall {
  token: string;
  contentType: string | undefined;
  body: string;
  idempotencyKey?: string;
}

const isJson = (contentType: string | undefined) => /^application\/([\w.+-]*\+)?json\b/i.test(contentType?.trim() ?? "");

/** The payload as the run's message shows it: JSON pretty-printed, anything else as sent; cut past the cap. */
export function webhookPayloadText(contentType: string | undefined, body: string): string {
  let text = body;
  if (isJson(contentType) && body.trim() !== "") {
    try {
      text = JSON.stringify(JSON.parse(body), null, 2);
    } catch {
      // Not JSON after all: the agent gets it as sent.
    }
  }
  if (text.trim() === "") return "(empty)";
  if (text.length <= WEBHOOK_PAYLOAD_MAX_CHARS) return text;
  return `${text.slice(0, WEBHOOK_PAYLOAD_MAX_CHARS)}\n[… payload truncated: ${WEBHOOK_PAYLOAD_MAX_CHARS} of ${text.length} characters shown]`;
}

/**
 * An inbound call: an unknown token is a 404, a paused webhook a 409 (nothing started); otherwise the
 * task's run starts as POST /tasks/{task_id}/runs with stream=false would start it, acting for the
 * task's account (admission, caps and billing included: a refusal is thrown as the spec's error). Each
 * call is recorded as a fire of the webhook trigger. An Idempotency-Key (scoped to the account, as on
 * the run-creating endpoints) replays the first call's run.
 */
export async function receiveTaskWebhook(
  ctx: RunServiceContext,
  call: WebhookCall,
): Promise<{ accepted: z.infer<typeof TaskWebhookAccepted>; replay: boolean }> {
  const task = await findTaskByWebhookHash(ctx.prisma, sha256Hex(call.token));
  if (!task) throw new PlatformError({ type: "not_found", message: "no webhook at this URL" });
  const trigger = await triggers.findWebhookTrigger(ctx.prisma, task.id);
  if (!task.webhookEnabled || !trigger?.enabled) {
    throw new PlatformError({
      type: "conflict_error",
      errorCode: "webhook_paused",
      message: "this task's webhook is paused; resume it with PATCH /tasks/{task_id}/webhook {\"enabled\": true}",
    });
  }
  const auth = accountActing(task.accountId);
  const idempotent =
    call.idempotencyKey === undefined
      ? undefined
      : {
          accountId: task.accountId,
          key: call.idempotencyKey,
          // The task, not the token: a retry after a rotation is still the same request.
          hash: requestHash({ method: "POST", path: `${TASK_HOOK_PATH}/task-${task.id}`, query: [], body: call.body }),
        };
  let outcome;
  try {
    outcome = await createIdempotently(ctx.prisma, idempotent, "run", (claim) =>
      runTask(ctx, auth, task, { stream: false }, claim, { webhookPayload: webhookPayloadText(call.contentType, call.body) }),
    );
  } catch (error) {
    if (error instanceof PlatformError) {
      await triggers.recordEventFire(ctx.prisma, trigger.id, { outcome: "refused", reason: `${error.type}: ${error.message}` });
    }
    throw error;
  }
  if (outcome.kind === "replay") {
    const run = await getRunInAccount(ctx, task.accountId, outcome.id);
    return { accepted: { run_id: run.id, status: run.status }, replay: true };
  }
  const { run } = outcome.value;
  await triggers.recordEventFire(ctx.prisma, trigger.id, { outcome: "started", runId: run.id });
  return { accepted: { run_id: run.id, status: run.status }, replay: false };
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
  const outcome = await createIdempotently(ctx.prisma, idempotent, "run", (claim) =>
    requestRun(
      ctx,
      accountActing(agent.accountId),
      agent.endUser?.externalId ?? undefined,
      { message, teammate_id: agent.id, stream: false, metadata: { source: "webhook" } },
      [],
      claim,
    ),
  );
  if (outcome.kind === "replay") {
    const run = await getRunInAccount(ctx, agent.accountId, outcome.id);
    return { accepted: { run_id: run.id, status: run.status }, replay: true };
  }
  const { run } = outcome.value;
  return { accepted: { run_id: run.id, status: run.status }, replay: false };
}
