import type { PlatformClient } from "@inlay/core/platform-client";

export default async function catalogExample(client: PlatformClient, agentId: number) {
  // #region docs
  const models = await client.models.list({ curated: true });
  const defaultModel = models.data.find((model) => model.default)?.id;
  // Built-in tools, resolved for one agent (in the end-user's scope).
  const tools = await client.forUser("user-42").builtInTools.list({ teammate_id: agentId });
  // #endregion
  return { defaultModel, tools };
}
