// A member's own data on the platform: memories and "always allow" tool grants. Every call goes
// through the client bound to the member's end-user in the active tenant, so another member's or
// another tenant's id is the platform's 404 (NOT_FOUND).
import type { PlatformClient } from "@inlay/core/platform-client";

export async function listMyMemories(platform: PlatformClient) {
  const memories = await platform.memories.listAll();
  return memories.map((memory) => ({ id: memory.id, content: memory.content, createdAt: memory.created_at }));
}

export const deleteMyMemory = (platform: PlatformClient, id: number) => platform.memories.delete(id);

export async function listMyGrants(platform: PlatformClient) {
  const grants = await platform.permissions.listAll();
  return grants.map((grant) => ({ id: grant.id, tool: grant.tool, createdAt: grant.created_at }));
}

export const revokeMyGrant = (platform: PlatformClient, id: number) => platform.permissions.delete(id);
