// Accounts: signup, password checks, deletion, and the mapping of rows to the API's shapes.
import type { z } from "zod";
import type { Account, ApiKeyInfo } from "@inlay/core/schemas/accounts";
import type { Db } from "../../repositories/db";
import { isUniqueViolation } from "../../../shared/db-errors";
import { hashPassword, verifyPassword } from "@/server/shared/passwords";
import { PlatformError } from "../../errors";
import type { DataContext } from "../../infrastructure/hot-cache";
import {
  createAccountWithKey,
  deleteAccount as deleteAccountRow,
  findAccountByEmail,
  type AccountRow,
  type ApiKeyRow,
} from "../../repositories/accounts";
import { generateApiKey } from "./api-keys";
import type { Mailer } from "../messaging/mailer";
import { usdDisplay } from "../billing/billing";
import { sendVerificationMail } from "./verification";

/** A new account's test credit: its first ledger entry (a topup). */
const signupCredit = (micros: number) => ({
  amountMicros: BigInt(micros),
  description: `Signup test credit of $${usdDisplay(BigInt(micros))}`,
});

export const toAccount = (row: AccountRow): z.infer<typeof Account> => ({
  id: row.id,
  email: row.email,
  first_name: row.firstName,
  product: row.product,
  require_end_user_id: row.requireEndUserId,
  email_verified: row.emailVerifiedAt !== null,
  created_at: row.createdAt.toISOString(),
});

export const toApiKeyInfo = (row: ApiKeyRow): z.infer<typeof ApiKeyInfo> => ({
  id: row.id,
  name: row.name,
  kind: row.kind === "default" ? "default" : "named",
  hint: row.hint,
  created_at: row.createdAt.toISOString(),
  expires_at: row.expiresAt?.toISOString() ?? null,
  last_used_at: row.lastUsedAt?.toISOString() ?? null,
});

export interface SignupInput {
  email: string;
  firstName: string;
  password?: string;
  product?: string;
  requireEndUserId?: boolean;
  /** "api" for POST /signup (strict mode on by default), "platform" for dashboard-made accounts. */
  source: "api" | "platform";
}

export async function signup(
  prisma: Db,
  deps: { mailer: Mailer; keyPrefix: string; baseUrl: string; signupCreditMicros?: number },
  input: SignupInput,
) {
  const key = generateApiKey(deps.keyPrefix);
  try {
    const { account, key: keyRow } = await createAccountWithKey(
      prisma,
      {
        email: input.email.trim().toLowerCase(),
        firstName: input.firstName,
        passwordHash: input.password ? await hashPassword(input.password) : null,
        product: input.product ?? null,
        signupSource: input.source,
        requireEndUserId: input.requireEndUserId ?? input.source === "api",
      },
      { kind: "default", name: "default", hash: key.hash, hint: key.hint },
      deps.signupCreditMicros ? signupCredit(deps.signupCreditMicros) : undefined,
    );
    await sendVerificationMail(prisma, deps.mailer, account, deps.baseUrl);
    return { account: toAccount(account), api_key: key.secret, key: toApiKeyInfo(keyRow) };
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new PlatformError({
        type: "conflict_error",
        errorCode: "email_taken",
        message: "email: an account with this email already exists; use POST /token to get its key",
      });
    }
    throw error;
  }
}

// Compared against when the email is unknown or the account has no password, so every refusal
// costs one scrypt and the timing says nothing about which accounts exist.
let decoyHash: Promise<string> | undefined;

/** The account whose email and password these are; null otherwise, for whatever reason. */
export async function verifyAccountPassword(
  prisma: Db,
  email: string,
  password: string,
): Promise<AccountRow | null> {
  const account = await findAccountByEmail(prisma, email.trim().toLowerCase());
  if (!account?.passwordHash) {
    decoyHash ??= hashPassword("inlay-decoy-password");
    await verifyPassword(password, await decoyHash);
    return null;
  }
  return (await verifyPassword(password, account.passwordHash)) ? account : null;
}

/** DELETE /account: the account and everything it owns; its keys stop working with it, on every instance. */
export async function deleteAccount(ctx: DataContext, accountId: number): Promise<void> {
  const deleted = await deleteAccountRow(ctx.prisma, accountId);
  ctx.cache.accountChanged(accountId);
  if (!deleted) throw new PlatformError({ type: "not_found", message: "account not found" });
}
