// The secret URLs of inbound webhooks (tasks' and agents'): a token shown once, only its SHA-256 kept.
// Issuing one is part of managing a task or an agent; what a call to the URL starts is
// entry-points/inbound-webhooks.ts's.
import { randomBytes } from "node:crypto";
import { sha256Hex } from "@/server/shared/secret-box";

/** Where a task's inbound calls go, under the platform's base URL (…/api/v2). */
export const TASK_HOOK_PATH = "/hooks/tasks";
/** Where an agent's inbound calls go, under the platform's base URL (…/api/v2). */
export const AGENT_HOOK_PATH = "/hooks/agents";
/** 32 random bytes, base64url: 43 characters. */
const TOKEN_BYTES = 32;

/** A new inbound-webhook token (task or agent webhooks) and the hash that is all we keep of it. */
export function newWebhookToken(): { token: string; hash: string } {
  const token = randomBytes(TOKEN_BYTES).toString("base64url");
  return { token, hash: sha256Hex(token) };
}

export const taskWebhookUrl = (baseUrl: string, token: string) => `${baseUrl}${TASK_HOOK_PATH}/${token}`;

/** A new token for an agent: the row's fields to write and the URL to show once. */
export function issueAgentWebhook(baseUrl: string) {
  const { token, hash } = newWebhookToken();
  return { data: { webhookEnabled: true, webhookTokenHash: hash }, url: `${baseUrl}${AGENT_HOOK_PATH}/${token}` };
}
