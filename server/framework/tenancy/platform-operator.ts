// Embedded mode only: the framework's platform account belongs to the vendor's own installation, so
// it is made usable at once through the platform's services (not its API): the email counts as
// verified (nobody reads mail sent to it) and it gets an operating balance (FRAMEWORK_OPERATOR_CREDIT_MICROS).
// A remote platform's account is the vendor's business with that platform and is never touched.
import { env } from "@/lib/env";
import type { Db } from "@/server/shared/db";
import { addBalanceEntry, markOperatorAccountVerified } from "@/server/platform/embedding";

/**
 * The credit defaults to the setting ($1,000 unless configured); the vendor's limits and caps are what
 * keep spending in check. 0 writes no ledger entry: the owner tops up from /admin/billing.
 */
export async function prepareOperatorAccount(
  prisma: Db,
  accountId: number,
  creditMicros: bigint = BigInt(env.FRAMEWORK_OPERATOR_CREDIT_MICROS),
): Promise<void> {
  await markOperatorAccountVerified(prisma, accountId);
  if (creditMicros <= 0n) return;
  await addBalanceEntry(prisma, accountId, {
    type: "adjustment",
    amountMicros: creditMicros,
    description: "Operating credit of the installation's own framework account (FRAMEWORK_OPERATOR_CREDIT_MICROS)",
  });
}
