// Channel identities: an account's own registration of the chat or code-host app, secrets sealed by
// the caller (services/apps/app-credentials.ts).
import type { PrismaClient } from "@/server/generated/prisma/client";

export type ChannelIdentityRow = NonNullable<Awaited<ReturnType<typeof findIdentity>>>;

export interface ChannelIdentityData {
  clientId: string;
  clientSecretSealed: string;
  signingSecretSealed: string;
  codehostAppId: string | null;
  codehostAppSlug: string | null;
  codehostPrivateKeySealed: string | null;
}

export const findIdentity = (prisma: PrismaClient, accountId: number, channel: string) =>
  prisma.platformChannelIdentity.findUnique({ where: { accountId_channel: { accountId, channel } } });

export const listIdentities = (prisma: PrismaClient, accountId: number) => prisma.platformChannelIdentity.findMany({ where: { accountId } });

/** Replaces the account's identity of the channel whole. */
export const upsertIdentity = (prisma: PrismaClient, accountId: number, channel: string, data: ChannelIdentityData) =>
  prisma.platformChannelIdentity.upsert({
    where: { accountId_channel: { accountId, channel } },
    create: { accountId, channel, ...data },
    update: data,
  });
