// The opaque id under which a person's chat conversations are kept in their browser
// (packages/react/src/storage.ts): an HMAC of (tenant, user), so it tells the page nothing about either
// and differs for the same person in another workspace.
import { createHmac } from "node:crypto";
import { env } from "@/lib/env";

export function chatStorageScope(tenantId: string, userId: string): string {
  return createHmac("sha256", env.NEXTAUTH_SECRET).update(`chat-storage:${tenantId}:${userId}`).digest("base64url").slice(0, 22);
}
