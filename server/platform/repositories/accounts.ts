// Accounts and their API keys. The only module that reads or writes platform_accounts and
// platform_api_keys.
import type { PrismaClient } from "@/server/generated/prisma/client";
import type { PlatformAccount, PlatformApiKey } from "@/server/generated/prisma/client";

export type AccountRow = PlatformAccount;
export type ApiKeyRow = PlatformApiKey;
type Db = Pick<PrismaClient, "platformAccount" | "platformApiKey">;

export interface NewKey {
  kind: "default" | "named";
  name: string;
  hash: string;
  hint: string;
  expiresAt?: Date | null;
}

export async function createAccountWithKey(
  prisma: PrismaClient,
  account: {
    email: string;
    firstName: string;
    passwordHash: string | null;
    product: string | null;
    signupSource: "api" | "platform";
    requireEndUserId: boolean;
  },
  key: NewKey,
): Promise<{ account: AccountRow; key: ApiKeyRow }> {
  return prisma.$transaction(async (tx) => {
    const created = await tx.platformAccount.create({ data: account });
    const createdKey = await tx.platformApiKey.create({ data: { ...key, accountId: created.id } });
    return { account: created, key: createdKey };
  });
}

export const findAccountByEmail = (prisma: Db, email: string) =>
  prisma.platformAccount.findUnique({ where: { email } });

export const findAccount = (prisma: Db, accountId: number) =>
  prisma.platformAccount.findUnique({ where: { id: accountId } });

/** The key with this hash and its account, whether or not it is still valid. */
export const findKeyByHash = (prisma: Db, hash: string) =>
  prisma.platformApiKey.findUnique({ where: { hash }, include: { account: true } });

export async function touchKey(prisma: Db, keyId: number, at: Date): Promise<void> {
  await prisma.platformApiKey.update({ where: { id: keyId }, data: { lastUsedAt: at } });
}
