// billing: the installation owner's view of the vendor's platform account (balance and ledger, top-up,
// auto-reload, alerts, plan, receipts, manual credits) and each tenant's spend. Owner only.
import { Usage } from "@inlay/core/schemas/billing";
import {
  BillingOverview,
  BillingRedirect,
  PlanOverview,
  ReceiptList,
  TenantSpend,
  TopUpStarted,
  alertSettingsInput,
  autoReloadInput,
  creditBalanceInput,
  overageInput,
  planCheckoutInput,
  receiptIdInput,
  topUpInput,
} from "@inlay/core/schemas/owner-billing";
import { AlertSettings, AutoReloadSettings, OperatorCredit, ReceiptInvoice } from "@inlay/core/schemas/payments";
import {
  activateFreePlan,
  checkoutPlan,
  creditBalance,
  getBillingOverview,
  getPlan,
  getReceiptInvoice,
  getTenantSpend,
  listReceipts,
  openBillingPortal,
  setAlertSettings,
  setAutoReload,
  setOverage,
  startTopUp,
} from "@/server/framework/tenancy/billing";
import { operatorKeyFor } from "@/server/framework/tenancy/operator-key";
import type { PlatformConnection } from "@/server/framework/tenancy/platform-connection";
import { ownerProcedure, router } from "../trpc";

/** The vendor's platform account (no end-user scope): the owner acts for the whole installation. */
const client = async (ctx: { connection: () => Promise<PlatformConnection> }) => (await ctx.connection()).client;

const creditSettings = () => ({
  /** Whether the "credit the balance" form can work here (an operator key is configured or made). */
  creditConfigured: operatorKeyFor() !== null,
  /** The key is this development process's own (operator-key.ts): the page says so. */
  creditDevelopmentKey: operatorKeyFor()?.development ?? false,
});

export const billingRouter = router({
  overview: ownerProcedure.output(BillingOverview).query(async ({ ctx }) => ({ ...(await getBillingOverview(ctx.prisma, await ctx.connection())), ...creditSettings() })),
  /** What the framework knows without the platform: the tenants' spend and the credit settings. */
  spend: ownerProcedure.output(TenantSpend).query(async ({ ctx }) => ({ ...(await getTenantSpend(ctx.prisma)), ...creditSettings() })),
  topUp: ownerProcedure.input(topUpInput).output(TopUpStarted).mutation(async ({ ctx, input }) => startTopUp(await client(ctx), input)),
  setAutoReload: ownerProcedure.input(autoReloadInput).output(AutoReloadSettings).mutation(async ({ ctx, input }) => setAutoReload(await client(ctx), input)),
  setAlertSettings: ownerProcedure
    .input(alertSettingsInput)
    .output(AlertSettings)
    .mutation(async ({ ctx, input }) => setAlertSettings(await client(ctx), input)),
  plan: ownerProcedure.output(PlanOverview).query(async ({ ctx }) => getPlan(await client(ctx))),
  setOverage: ownerProcedure.input(overageInput).output(Usage).mutation(async ({ ctx, input }) => setOverage(await client(ctx), input)),
  checkout: ownerProcedure.input(planCheckoutInput).output(BillingRedirect).mutation(async ({ ctx, input }) => checkoutPlan(await client(ctx), input)),
  portal: ownerProcedure.output(BillingRedirect).mutation(async ({ ctx }) => openBillingPortal(await client(ctx))),
  activateFree: ownerProcedure.output(Usage).mutation(async ({ ctx }) => activateFreePlan(await client(ctx))),
  receipts: ownerProcedure.output(ReceiptList).query(async ({ ctx }) => listReceipts(await client(ctx))),
  invoice: ownerProcedure.input(receiptIdInput).output(ReceiptInvoice).mutation(async ({ ctx, input }) => getReceiptInvoice(await client(ctx), input.receiptId)),
  /** The actor is the signed-in owner's email: the form cannot name someone else. */
  credit: ownerProcedure
    .input(creditBalanceInput)
    .output(OperatorCredit)
    .mutation(async ({ ctx, input }) =>
      creditBalance(ctx.prisma, await ctx.connection(), operatorKeyFor()?.key, { ...input, actor: ctx.session.user.email ?? ctx.userId }),
    ),
});
