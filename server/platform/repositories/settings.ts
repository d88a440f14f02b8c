// Account settings: the settings columns of platform_accounts (GET/PATCH /settings). The account
// row itself belongs to repositories/accounts.ts; this module reads and writes only these columns.
import type { PrismaClient } from "@/server/generated/prisma/client";

const settingsColumns = {
  retentionMode: true,
  requireEndUserId: true,
  perEndUserRunLimit: true,
  perEndUserCostLimitCents: true,
  perEndUserRatePerMinute: true,
  approvalEmailEnabled: true,
  approvalChatEnabled: true,
  companyResearch: true,
} as const;

export type SettingsRow = NonNullable<Awaited<ReturnType<typeof findSettings>>>;

export type SettingsChanges = Partial<SettingsRow>;

export const findSettings = (prisma: PrismaClient, accountId: number) =>
  prisma.platformAccount.findUnique({ where: { id: accountId }, select: settingsColumns });

/** The settings after the change; null when the account is gone. */
export async function updateSettings(
  prisma: PrismaClient,
  accountId: number,
  changes: SettingsChanges,
): Promise<SettingsRow | null> {
  const [row] = await prisma.platformAccount.updateManyAndReturn({
    where: { id: accountId },
    data: changes,
    select: settingsColumns,
  });
  return row ?? null;
}
