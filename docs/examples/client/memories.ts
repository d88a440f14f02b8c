import type { PlatformClient } from "@inlay/core/platform-client";

export default async function memoriesExample(platform: PlatformClient) {
  // #region docs
  const client = platform.forUser("user-42"); // memories always belong to one end-user
  const memory = await client.memories.create({ content: "Prefers answers in French" });
  const all = await client.memories.listAll();
  await client.memories.delete(memory.id);
  // #endregion
  return { memory, all, after: await client.memories.listAll() };
}
