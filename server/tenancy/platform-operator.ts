// Embedded mode only: the framework's platform account belongs to the vendor's own installation, so
// it is made usable at once through the platform's services (not its API): the email counts as
// verified (nobody reads mail sent to it) and it gets an operating balance. A remote platform's
// account is the vendor's business with that platform and is never touched.
import type { PrismaClient } from "@/server/generated/prisma/client";
import { addBalanceEntry } from "@/server/platform/services/billing";
import { markOperatorAccountVerified } from "@/server/platform/services/verification";

/** $1,000 of model use; the vendor's limits and caps are what keep spending in check. */
export const OPERATOR_CREDIT_MICROS = 1_000_000_000n;

export async function prepareOperatorAccount(prisma: PrismaClient, accountId: number): Promise<void> {
  await markOperatorAccountVerified(prisma, accountId);
  await addBalanceEntry(prisma, accountId, {
    type: "adjustment",
    amountMicros: OPERATOR_CREDIT_MICROS,
    description: "Operating credit of the installation's own framework account",
  });
}
