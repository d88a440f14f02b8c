// accounts verify | accounts credit: an account's email and balance, as the operator vouches and pays.
import { userInfo } from "node:os";
import { OperatorCreditRequest } from "@inlay/core/schemas/payments";
import { formatMicros } from "@inlay/core/money";
import { findAccountByRef, verifyAccountEmail } from "@/server/platform/services/account/operator";
import { operatorCredit } from "@/server/platform/services/billing/payments";
import { accountRef, centsOf, microsFromInteger, microsFromUsd, UsageError } from "../args";
import { command, str } from "../command";

export const verify = command({
  name: "accounts verify",
  usage: "<email|account-id>",
  summary: "Mark an account's email verified (an installation without SMTP has no other way)",
  details:
    "Does what following the emailed link does: the account is no longer held to the unverified run limit.\n" +
    "An account verified already is left as it is.",
  options: {},
  parse: ({ positionals }) => ({ ref: accountRef(positionals[0]) }),
  async run(ctx, { ref }) {
    const result = await verifyAccountEmail(ctx.prisma, ref);
    const who = `account ${result.account.id} <${result.account.email}>`;
    return {
      json: result,
      text: result.already_verified ? `${who} was verified already (${result.verified_at})` : `${who} is verified`,
    };
  },
});

const defaultActor = () => {
  try {
    return `inlay CLI (${userInfo().username})`;
  } catch {
    // No passwd entry for this uid (some containers).
    return "inlay CLI";
  }
};

const FLAG_OF: Record<string, string> = { amount_cents: "usd", reason: "reason", actor: "actor", payment_reference: "payment-reference" };

export const credit = command({
  name: "accounts credit",
  usage: "<email|account-id> (--usd USD | --micro-usd N) --reason TEXT",
  summary: "Credit an account's balance, with a receipt and a ledger entry naming who and why",
  details:
    "The same credit as POST /operator/credits, without the operator key: whoever runs this can open the database.\n" +
    "Amounts are whole cents: --usd 10.50 or --micro-usd 10500000. --payment-reference completes a pending top-up\n" +
    "(the manual payments provider's) instead of starting a new payment.",
  options: {
    usd: { type: "string", value: "USD", description: "the amount in dollars, e.g. 10.50" },
    "micro-usd": { type: "string", value: "N", description: "the amount in micro-dollars, e.g. 10500000" },
    reason: { type: "string", value: "TEXT", description: "why (kept in the ledger and on the receipt); required" },
    actor: { type: "string", value: "NAME", description: "who credits (default: inlay CLI and the system user)" },
    "payment-reference": { type: "string", value: "REF", description: "a pending top-up (pay_...) this credit pays" },
  },
  parse({ values, positionals }) {
    const ref = accountRef(positionals[0]);
    const usd = str(values.usd);
    const micro = str(values["micro-usd"]);
    if ((usd === undefined) === (micro === undefined)) throw new UsageError("give the amount once: --usd or --micro-usd");
    const flag = usd !== undefined ? "usd" : "micro-usd";
    const micros = usd !== undefined ? microsFromUsd(flag, usd) : microsFromInteger(flag, micro!);
    const parsed = OperatorCreditRequest.omit({ account_id: true }).safeParse({
      amount_cents: centsOf(flag, micros),
      reason: str(values.reason) ?? "",
      actor: str(values.actor) ?? defaultActor(),
      payment_reference: str(values["payment-reference"]),
    });
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = String(issue.path[0]);
      throw new UsageError(`--${field === "amount_cents" ? flag : (FLAG_OF[field] ?? field)}: ${issue.message}`);
    }
    return { ref, ...parsed.data };
  },
  async run(ctx, { ref, ...input }) {
    const account = await findAccountByRef(ctx.prisma, ref);
    const result = await operatorCredit({ prisma: ctx.prisma, config: ctx.config, jobs: await ctx.jobs() }, { account_id: account.id, ...input });
    // Amounts as the console shows them (packages/core/src/money.ts): a balance is exact to the micro-USD there, so here too.
    const amount = formatMicros(BigInt(input.amount_cents) * 10_000n);
    return {
      json: { account: { id: account.id, email: account.email }, ...result },
      text:
        `credited ${amount} to account ${account.id} <${account.email}>: balance ${formatMicros(BigInt(result.balance_micros))}\n` +
        `receipt ${result.receipt.number}, payment ${result.payment_reference}`,
    };
  },
});
