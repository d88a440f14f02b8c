// Each (tenant, user) pair is one platform end-user: a random, opaque user_id (it says nothing about
// the tenant or the user, and the browser never sees or sends it), stored with a unique constraint and
// created on first use. The end-user's profile on the platform (POST /users) carries the name, email,
// the tenant's name as company and {tenant_id} as metadata, for the vendor's own reading of the
// platform's reports.
import { randomBytes } from "node:crypto";
import { ConflictError, type PlatformClient } from "@inlay/core/platform-client";
import type { Db } from "@/server/shared/db";
import { databaseMemo } from "@/server/shared/database-memo";
import type { PlatformConnection } from "./platform-connection";
import { findPlatformUser, insertPlatformUser, markProfileCreated } from "./platform-repository";
import { findUserById } from "./repository";

export const newPlatformUserId = () => `eu_${randomBytes(16).toString("base64url")}`;

// A (tenant, user)'s platform user_id never changes once its profile is made, and every chat turn and
// tRPC call needs it.
const known = databaseMemo<string>();

/**
 * The caller's platform user_id in this tenant, made on first use. Concurrent first calls agree:
 * the insert is ON CONFLICT DO NOTHING and everyone reads back the row that won.
 */
export async function ensurePlatformUser(
  prisma: Db,
  connection: PlatformConnection,
  tenant: { id: string; name: string },
  userId: string,
): Promise<string> {
  const key = `${tenant.id}:${userId}`;
  const remembered = known.get(prisma, key);
  if (remembered) return remembered;
  const row = (await findPlatformUser(prisma, tenant.id, userId)) ?? (await insertPlatformUser(prisma, tenant.id, userId, newPlatformUserId()));
  if (!row.profileCreatedAt) {
    const user = await findUserById(prisma, userId);
    try {
      await connection.client.users.create({
        user_id: row.platformUserId,
        name: user?.name ?? null,
        email: user?.email ?? null,
        company: tenant.name,
        metadata: { tenant_id: tenant.id },
      });
    } catch (error) {
      // Another request created it first: the profile is there, which is all we need.
      if (!(error instanceof ConflictError)) throw error;
    }
    await markProfileCreated(prisma, tenant.id, userId);
  }
  known.set(prisma, key, row.platformUserId);
  return row.platformUserId;
}

/** A client bound to the caller's end-user, made on first use per request. */
export function lazyPlatformClient(
  prisma: Db,
  connect: () => Promise<PlatformConnection>,
  tenant: { id: string; name: string },
  userId: string,
): () => Promise<PlatformClient> {
  let bound: Promise<PlatformClient> | undefined;
  return () => {
    bound ??= (async () => {
      const connection = await connect();
      return connection.client.forUser(await ensurePlatformUser(prisma, connection, tenant, userId));
    })();
    return bound;
  };
}
