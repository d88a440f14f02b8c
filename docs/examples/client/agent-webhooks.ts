import type { PlatformClient } from "@inlay/core/platform-client";

export default async function agentWebhooksExample(platform: PlatformClient) {
  // #region docs
  const client = platform.forUser("user-42");
  const agent = await client.agents.create({ name: "Deploy watcher", webhook: true, default_permission_mode: "autonomous" });
  // agent.webhook_url is shown this once: hand it to whatever will call the hook.
  const response = await fetch(agent.webhook_url!, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ event: "deploy", ok: true }),
  });
  const { run_id } = (await response.json()) as { run_id: number }; // 202: a run of the agent started
  await client.agents.updateWebhook(agent.id, { enabled: false }); // paused: calls are 409 webhook_paused
  const rotated = await client.agents.updateWebhook(agent.id, { enabled: true, rotate: true }); // a new URL, once
  // #endregion
  return { agent, status: response.status, runId: run_id, rotated };
}
