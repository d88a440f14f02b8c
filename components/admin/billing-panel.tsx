"use client";
// The installation owner's billing: the platform account's balance and ledger, topping up (the
// platform's checkout page), crediting by hand (the manual payments adapter), auto-reload and the
// low-balance alert, the plan, receipts with their invoices, and what each tenant spent this month.
// Every amount is shown as money (packages/core/src/money.ts); forms take dollars and send whole cents.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { FormError, TextField } from "@/components/ui/field";
import { fromTrpcError, noErrors, validate, type FormErrors } from "@/lib/form-errors";
import { centsToDollarsInput, formatCents, formatMicros, parseDollars } from "@inlay/core/money";
import {
  alertSettingsInput,
  autoReloadInput,
  creditBalanceInput,
  overageInput,
  topUpInput,
} from "@inlay/core/schemas/owner-billing";
import { useTRPC } from "@/components/trpc/react";
import type { inferRouterOutputs } from "@trpc/server";
import type { ZodType } from "zod";
import type { AppRouter } from "@/server/framework/api/root";
import { card, table, tableScroll, td, th } from "./admin-page";

type Overview = inferRouterOutputs<AppRouter>["billing"]["overview"];

const AMOUNT_FORMAT = "Enter an amount in dollars, e.g. 25.00.";
const dateTime = (iso: string) => new Date(iso).toLocaleString("en", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" });

/** A dollar box as cents; NaN (refused by the contract with AMOUNT_FORMAT) when it holds no amount. */
const readDollars = (form: FormData, name: string) => parseDollars(String(form.get(name) ?? "")) ?? Number.NaN;

/**
 * One money form's plumbing: read the values, validate with the shared contract (a box that holds no
 * amount says so), call the procedure, show per-field errors or a status line.
 */
function useMoneyForm<T>(schema: ZodType<T>, dollarFields: string[], submit: (data: T) => Promise<string | void>) {
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const [status, setStatus] = useState<string>();
  const [pending, setPending] = useState(false);
  /** True when the procedure accepted the values. */
  async function run(values: Record<string, unknown>): Promise<boolean> {
    setStatus(undefined);
    const checked = validate(schema, values);
    if (checked.errors) {
      const unreadable = Object.fromEntries(dollarFields.filter((name) => Number.isNaN(values[name])).map((name) => [name, AMOUNT_FORMAT]));
      setErrors({ ...checked.errors, fields: { ...checked.errors.fields, ...unreadable } });
      return false;
    }
    setErrors(noErrors);
    setPending(true);
    try {
      setStatus((await submit(checked.data)) ?? undefined);
      return true;
    } catch (error) {
      setErrors(fromTrpcError(error));
      return false;
    } finally {
      setPending(false);
    }
  }
  return { errors, status, pending, run };
}

function Section({ id, title, intro, children }: { id: string; title: string; intro?: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className={card}>
      <h2 id={id} className="text-lg font-semibold">
        {title}
      </h2>
      {intro ? <p className="mt-1 text-sm text-muted">{intro}</p> : null}
      <div className="mt-4 space-y-4">{children}</div>
    </section>
  );
}

function Loading() {
  return <div className="h-24 animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading" />;
}

function FormFooter({ pending, label, status, error }: { pending: boolean; label: string; status?: string; error?: string }) {
  return (
    <div className="flex flex-wrap items-center gap-3">
      <Button type="submit" disabled={pending}>
        {label}
      </Button>
      {status ? (
        <span role="status" className="text-sm text-muted">
          {status}
        </span>
      ) : null}
      <FormError message={error} />
    </div>
  );
}

function BalanceSection() {
  const trpc = useTRPC();
  const overview = useQuery(trpc.billing.overview.queryOptions());
  return (
    <Section id="balance-title" title="Balance" intro="The platform account every tenant's runs are paid from.">
      {overview.isPending ? (
        <Loading />
      ) : overview.isError ? (
        <FormError message={`Could not load the balance from the platform: ${overview.error.message}`} />
      ) : (
        <BalanceDetails balance={overview.data.balance} />
      )}
    </Section>
  );
}

function BalanceDetails({ balance }: { balance: Overview["balance"] }) {
  return (
    <>
      <dl className="grid gap-4 text-sm sm:grid-cols-3">
        <div>
          <dt className="text-muted">Balance</dt>
          <dd className="mt-1 text-2xl font-semibold" data-testid="billing-balance">
            {formatMicros(balance.balance_micros)}
          </dd>
        </div>
        <div>
          <dt className="text-muted">Held by runs in progress</dt>
          <dd className="mt-1 text-lg font-medium">{formatMicros(balance.held_micros)}</dd>
        </div>
        <div>
          <dt className="text-muted">Available to new runs</dt>
          <dd className="mt-1 text-lg font-medium">{formatMicros(balance.available_micros)}</dd>
        </div>
      </dl>
      <h3 className="text-sm font-semibold">Ledger (newest first)</h3>
      {balance.transactions.length === 0 ? (
        <p className="text-sm text-muted">No entries yet.</p>
      ) : (
        <div className={tableScroll}>
          <table className={table} data-testid="ledger">
            <thead>
              <tr>
                <th className={th}>When (UTC)</th>
                <th className={th}>Type</th>
                <th className={th}>Description</th>
                <th className={`${th} text-right`}>Amount</th>
                <th className={`${th} text-right`}>Balance after</th>
              </tr>
            </thead>
            <tbody>
              {balance.transactions.map((entry) => (
                <tr key={entry.id} data-testid="ledger-row">
                  <td className={`${td} whitespace-nowrap text-muted`}>{dateTime(entry.created_at)}</td>
                  <td className={td}>{entry.type}</td>
                  <td className={td}>{entry.description}</td>
                  <td className={`${td} text-right tabular-nums`}>{formatMicros(entry.amount_micros)}</td>
                  <td className={`${td} text-right tabular-nums`}>{formatMicros(entry.balance_after_micros)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/**
 * The tenants' spend comes from the framework's own records (billing.spend), so it shows at once and
 * even when the platform does not answer; only the share of the balance waits for the balance.
 */
function SpendSection() {
  const trpc = useTRPC();
  const spend = useQuery(trpc.billing.spend.queryOptions());
  const overview = useQuery(trpc.billing.overview.queryOptions());
  const balanceMicros = overview.data?.balance.balance_micros;
  const intro = spend.data
    ? `${formatMicros(spend.data.tenantsCostMicros)} spent by all tenants this month${balanceMicros === undefined ? "." : `, against a balance of ${formatMicros(balanceMicros)}.`}`
    : undefined;
  return (
    <Section id="spend-title" title="Tenants' spend this month" intro={intro}>
      {spend.isPending ? (
        <Loading />
      ) : spend.isError ? (
        <FormError message={`Could not load the tenants' spend: ${spend.error.message}`} />
      ) : (
        <div className={tableScroll}>
          <table className={table} data-testid="tenant-spend">
            <thead>
              <tr>
                <th className={th}>Tenant</th>
                <th className={th}>Runs</th>
                <th className={`${th} text-right`}>Spent</th>
                <th className={`${th} text-right`}>Monthly limit</th>
                <th className={`${th} text-right`}>Share of balance</th>
              </tr>
            </thead>
            <tbody>
              {spend.data.tenants.map((tenant) => (
                <tr key={tenant.id} data-testid="tenant-spend-row">
                  <td className={td}>
                    <span className="font-medium">{tenant.name}</span> <span className="text-muted">{tenant.slug}</span>
                  </td>
                  <td className={td}>{tenant.runs}</td>
                  <td className={`${td} text-right tabular-nums`}>{formatMicros(tenant.costMicros)}</td>
                  <td className={`${td} text-right tabular-nums`}>{tenant.limitCents === null ? "no limit" : formatCents(tenant.limitCents)}</td>
                  <td className={`${td} text-right tabular-nums`}>{balanceMicros === undefined ? "–" : shareOf(tenant.costMicros, balanceMicros)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}

/** What part of the balance an amount is, for the spend table; "n/a" when there is no balance. */
function shareOf(micros: number, balanceMicros: number): string {
  if (balanceMicros <= 0) return "n/a";
  const percent = (micros / balanceMicros) * 100;
  return percent > 0 && percent < 0.1 ? "<0.1%" : `${percent.toFixed(1)}%`;
}

function TopUpForm() {
  const trpc = useTRPC();
  const topUp = useMutation(trpc.billing.topUp.mutationOptions());
  const form = useMoneyForm(topUpInput, ["amountCents"], async (data) => {
    const { checkoutUrl } = await topUp.mutateAsync(data);
    // The platform's checkout page takes the payment; the balance is credited when it lands.
    window.location.assign(checkoutUrl);
    return "Opening the checkout page…";
  });
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void form.run({ amountCents: readDollars(new FormData(event.currentTarget), "amount") });
  }
  return (
    <form onSubmit={onSubmit} noValidate aria-label="Top up" className="grid gap-4 sm:grid-cols-[16rem_auto] sm:items-start">
      <TextField label="Amount ($)" name="amount" inputMode="decimal" placeholder="25.00" hint="$5.00 to $1,000,000.00" error={form.errors.fields.amountCents} />
      <div className="sm:mt-6">
        <FormFooter pending={form.pending} label="Top up" status={form.status} error={form.errors.form} />
      </div>
    </form>
  );
}

/** With `payment`, the credit pays that pending top-up (its amount and a reason filled in): it completes, with a receipt. */
function CreditForm({ payment }: { payment?: { reference: string; amountCents: number | null } }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [paid, setPaid] = useState(false);
  // A credit moves the balance and the ledger and writes a receipt: every billing read is stale.
  const credit = useMutation(
    trpc.billing.credit.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.billing.pathKey() }) }),
  );
  const form = useMoneyForm(creditBalanceInput, ["amountCents"], async (data) => {
    await credit.mutateAsync(data);
    if (payment) setPaid(true);
    return `Credited ${formatCents(data.amountCents)}.`;
  });
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const values = new FormData(formElement);
    void form
      .run({
        amountCents: readDollars(values, "amount"),
        reason: String(values.get("reason") ?? ""),
        ...(payment ? { paymentReference: payment.reference } : {}),
      })
      .then((done) => {
        if (done && !payment) formElement.reset();
      });
  }
  return (
    <form onSubmit={onSubmit} noValidate aria-label="Credit the balance" className="grid gap-4 sm:grid-cols-[16rem_1fr]">
      <TextField
        label="Amount ($)"
        name="amount"
        inputMode="decimal"
        defaultValue={payment?.amountCents ? centsToDollarsInput(payment.amountCents) : undefined}
        error={form.errors.fields.amountCents}
      />
      <TextField
        label="Reason"
        name="reason"
        placeholder="Bank transfer of 3 March"
        defaultValue={payment ? `Top-up ${payment.reference}` : undefined}
        error={form.errors.fields.reason}
      />
      <div className="sm:col-span-2">
        {paid ? (
          <p role="status" className="text-sm">
            {form.status} The top-up is paid and its receipt is on <Link href="/admin/billing" className="text-accent underline">Billing</Link>.
          </p>
        ) : (
          <FormFooter pending={form.pending} label="Credit" status={form.status} error={form.errors.form} />
        )}
      </div>
    </form>
  );
}

/** Development only: this process made its own operator key, so nothing needs setting to credit. */
function DevelopmentKeyNote() {
  return (
    <p className="rounded-card border border-line bg-fg/5 p-3 text-sm text-muted" data-testid="development-operator-key">
      Development: this server made its own operator key for the embedded platform (kept in memory, new on each start), so
      you can credit the balance without setting <code>INLAY_OPERATOR_KEY</code>. Production needs one.
    </p>
  );
}

/** Shown where the operator key is configured (INLAY_OPERATOR_KEY); otherwise a line says how to set it up. */
function CreditSection() {
  const trpc = useTRPC();
  const spend = useQuery(trpc.billing.spend.queryOptions());
  if (!spend.data) return null;
  return (
    <Section
      id="credit-title"
      title="Credit the balance"
      intro="With manual payments (an invoice paid by transfer, a goodwill credit): the ledger records the amount, your email and the reason."
    >
      {spend.data.creditDevelopmentKey ? <DevelopmentKeyNote /> : null}
      {spend.data.creditConfigured ? (
        <CreditForm />
      ) : (
        <p className="text-sm text-muted">
          Not set up: set <code>INLAY_OPERATOR_KEY</code> to the platform&apos;s operator key to credit balances by hand.
        </p>
      )}
    </Section>
  );
}

function AutoReloadForm() {
  const trpc = useTRPC();
  const save = useMutation(trpc.billing.setAutoReload.mutationOptions());
  const [enabled, setEnabled] = useState(false);
  const form = useMoneyForm(autoReloadInput, ["thresholdCents", "amountCents"], async (data) => {
    const settings = await save.mutateAsync(data);
    if (!settings.enabled || settings.threshold_cents === null || settings.amount_cents === null) return "Off.";
    const on = `On: ${formatCents(settings.amount_cents)} when the balance falls below ${formatCents(settings.threshold_cents)}.`;
    if (settings.last_error) return `${on} ${settings.last_error}`;
    return settings.payment_method_saved ? on : `${on} No card is saved yet: the next card top-up saves one.`;
  });
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const values = new FormData(event.currentTarget);
    void form.run(
      enabled ? { enabled, thresholdCents: readDollars(values, "threshold"), amountCents: readDollars(values, "amount") } : { enabled },
    );
  }
  return (
    <form onSubmit={onSubmit} noValidate aria-label="Auto-reload" className="grid gap-4 sm:grid-cols-2">
      <label className="flex items-center gap-2 text-sm sm:col-span-2">
        <input type="checkbox" name="enabled" checked={enabled} onChange={(event) => setEnabled(event.target.checked)} />
        Reload automatically with the saved card
      </label>
      <TextField label="When the balance falls below ($)" name="threshold" inputMode="decimal" disabled={!enabled} error={form.errors.fields.thresholdCents} />
      <TextField label="Reload amount ($)" name="amount" inputMode="decimal" disabled={!enabled} hint="$5.00 to $10,000.00" error={form.errors.fields.amountCents} />
      <div className="sm:col-span-2">
        <FormFooter pending={form.pending} label="Save auto-reload" status={form.status} error={form.errors.form} />
      </div>
    </form>
  );
}

function AlertForm() {
  const trpc = useTRPC();
  const save = useMutation(trpc.billing.setAlertSettings.mutationOptions());
  const form = useMoneyForm(alertSettingsInput, ["lowBalanceThresholdCents"], async (data) => {
    await save.mutateAsync(data);
    return `Alert below ${formatCents(data.lowBalanceThresholdCents)}.`;
  });
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void form.run({ lowBalanceThresholdCents: readDollars(new FormData(event.currentTarget), "threshold") });
  }
  return (
    <form onSubmit={onSubmit} noValidate aria-label="Low-balance alert" className="grid gap-4 sm:grid-cols-[16rem_auto] sm:items-start">
      <TextField label="Alert when the balance falls below ($)" name="threshold" inputMode="decimal" hint="0 turns the alert off" error={form.errors.fields.lowBalanceThresholdCents} />
      <div className="sm:mt-6">
        <FormFooter pending={form.pending} label="Save alert" status={form.status} error={form.errors.form} />
      </div>
    </form>
  );
}

function OverageForm({ enabled: initiallyEnabled, capCents, usedCents, rateCents }: { enabled: boolean; capCents: number; usedCents: number; rateCents: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const save = useMutation(
    trpc.billing.setOverage.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.billing.plan.queryKey() }) }),
  );
  const [enabled, setEnabled] = useState(initiallyEnabled);
  const form = useMoneyForm(overageInput, ["monthlyCapCents"], async (data) => {
    const usage = await save.mutateAsync(data);
    return usage.overage_enabled ? `On, up to ${formatCents(usage.overage_cap_cents)} a month.` : "Off.";
  });
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void form.run({ enabled, monthlyCapCents: readDollars(new FormData(event.currentTarget), "cap") });
  }
  return (
    <form onSubmit={onSubmit} noValidate aria-label="Overage" className="grid gap-4 sm:grid-cols-[16rem_auto] sm:items-start">
      <label className="flex items-center gap-2 text-sm sm:col-span-2">
        <input type="checkbox" checked={enabled} onChange={(event) => setEnabled(event.target.checked)} />
        Allow runs past the plan&apos;s included runs ({formatCents(rateCents)} a run; {formatCents(usedCents)} used this month)
      </label>
      <TextField label="Monthly overage cap ($)" name="cap" inputMode="decimal" defaultValue={centsToDollarsInput(capCents)} hint="$0.00 to $10,000.00" error={form.errors.fields.monthlyCapCents} />
      <div className="sm:mt-6">
        <FormFooter pending={form.pending} label="Save overage" status={form.status} error={form.errors.form} />
      </div>
    </form>
  );
}

function PlanSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const plan = useQuery(trpc.billing.plan.queryOptions());
  const checkout = useMutation(trpc.billing.checkout.mutationOptions());
  const portal = useMutation(trpc.billing.portal.mutationOptions());
  const activateFree = useMutation(
    trpc.billing.activateFree.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.billing.plan.queryKey() }) }),
  );
  const [error, setError] = useState<string>();
  const go = (promise: Promise<{ url: string }>) =>
    promise.then(({ url }) => window.location.assign(url)).catch((caught: unknown) => setError(fromTrpcError(caught).form));

  if (plan.isPending) return <Loading />;
  if (plan.isError) return <FormError message={`Could not load the plan: ${plan.error.message}`} />;
  const { usage, plans } = plan.data;
  return (
    <>
      <dl className="grid gap-4 text-sm sm:grid-cols-3">
        <div>
          <dt className="text-muted">Current plan</dt>
          <dd className="mt-1 text-lg font-medium" data-testid="current-plan">
            {plans.find((entry) => entry.slug === usage.plan)?.display_name ?? usage.plan}
          </dd>
        </div>
        <div>
          <dt className="text-muted">Runs this period</dt>
          <dd className="mt-1 text-lg font-medium">
            {usage.runs_used} of {usage.unlimited_runs || usage.runs_limit === null ? "unlimited" : usage.runs_limit}
          </dd>
        </div>
        <div>
          <dt className="text-muted">Cost this period</dt>
          <dd className="mt-1 text-lg font-medium">{formatMicros(usage.cost_used_micros)}</dd>
        </div>
      </dl>
      <div className={tableScroll}>
        <table className={table} data-testid="plans">
          <thead>
            <tr>
              <th className={th}>Plan</th>
              <th className={th}>Runs included</th>
              <th className={`${th} text-right`}>Monthly</th>
              <th className={`${th} text-right`}>Annual</th>
              <th className={th}>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {plans.map((entry) => (
              <tr key={entry.slug}>
                <td className={`${td} font-medium`}>{entry.display_name}</td>
                <td className={td}>{entry.included_runs.toLocaleString("en")}</td>
                <td className={`${td} text-right tabular-nums`}>{formatCents(entry.monthly_price_cents)}</td>
                <td className={`${td} text-right tabular-nums`}>{formatCents(entry.annual_price_cents)}</td>
                <td className={`${td} text-right`}>
                  {entry.slug === usage.plan ? (
                    <span className="text-sm text-muted">Current</span>
                  ) : entry.slug === "free" ? (
                    <Button variant="ghost" disabled={!usage.free_path_available || activateFree.isPending} onClick={() => activateFree.mutateAsync().catch((caught: unknown) => setError(fromTrpcError(caught).form))}>
                      Activate free
                    </Button>
                  ) : (
                    <Button variant="ghost" disabled={checkout.isPending} onClick={() => go(checkout.mutateAsync({ planId: entry.slug, billingPeriod: "monthly" }))}>
                      Choose {entry.display_name}
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {plans.find((entry) => entry.slug === usage.plan)?.overage_available ? (
        <OverageForm enabled={usage.overage_enabled} capCents={usage.overage_cap_cents} usedCents={usage.overage_used_cents} rateCents={usage.overage_rate_cents} />
      ) : null}
      <div className="flex items-center gap-3">
        <Button variant="ghost" disabled={portal.isPending} onClick={() => go(portal.mutateAsync())}>
          Manage payment details
        </Button>
        <FormError message={error} />
      </div>
    </>
  );
}

function InvoiceLinks({ receiptId }: { receiptId: number }) {
  const trpc = useTRPC();
  const invoice = useMutation(trpc.billing.invoice.mutationOptions());
  if (invoice.data) {
    return (
      <span className="flex justify-end gap-3">
        <a className="text-accent underline" href={invoice.data.hosted_invoice_url} target="_blank" rel="noreferrer">
          Invoice {invoice.data.number}
        </a>
        <a className="text-accent underline" href={invoice.data.invoice_pdf_url} target="_blank" rel="noreferrer">
          PDF
        </a>
      </span>
    );
  }
  return (
    <>
      <Button variant="ghost" disabled={invoice.isPending} onClick={() => invoice.mutate({ receiptId })}>
        Get invoice
      </Button>
      {invoice.error ? <FormError message={invoice.error.message} /> : null}
    </>
  );
}

function ReceiptsSection() {
  const trpc = useTRPC();
  const receipts = useQuery(trpc.billing.receipts.queryOptions());
  if (receipts.isPending) return <Loading />;
  if (receipts.isError) return <FormError message={`Could not load receipts: ${receipts.error.message}`} />;
  if (receipts.data.receipts.length === 0) return <p className="text-sm text-muted">No receipts yet.</p>;
  return (
    <div className={tableScroll}>
      <table className={table} data-testid="receipts">
        <thead>
          <tr>
            <th className={th}>When (UTC)</th>
            <th className={th}>What</th>
            <th className={`${th} text-right`}>Amount</th>
            <th className={th}>
              <span className="sr-only">Invoice</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {receipts.data.receipts.map((receipt) => (
            <tr key={receipt.id} data-testid="receipt-row">
              <td className={`${td} whitespace-nowrap text-muted`}>{dateTime(receipt.created_at)}</td>
              <td className={td}>{receipt.description}</td>
              <td className={`${td} text-right tabular-nums`}>{formatCents(receipt.amount_cents)}</td>
              <td className={`${td} text-right`}>
                <InvoiceLinks receiptId={receipt.id} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function BillingPanel() {
  return (
    <>
      <BalanceSection />
      <SpendSection />
      <Section id="topup-title" title="Top up" intro="Pay on the payment provider's checkout page (without a card provider, the top-up's own page says how); the balance is credited once the payment lands.">
        <TopUpForm />
      </Section>
      <CreditSection />
      <Section id="auto-reload-title" title="Auto-reload" intro="Top up with the saved card whenever the balance falls below a threshold.">
        <AutoReloadForm />
      </Section>
      <Section id="alert-title" title="Low-balance alert" intro="The platform emails the account when the balance falls below this amount.">
        <AlertForm />
      </Section>
      <Section id="plan-title" title="Plan">
        <PlanSection />
      </Section>
      <Section id="receipts-title" title="Receipts">
        <ReceiptsSection />
      </Section>
    </>
  );
}

/**
 * A pending top-up on a platform that takes no card payments (startTopUp sends the owner here rather
 * than to the platform's page for its customers). Addressed to the owner, who pays: on the embedded
 * platform they run it, so they record the payment themselves; on a remote one they pay its operator.
 */
export function ManualPayment({ reference, amountCents }: { reference: string; amountCents: number | null }) {
  const trpc = useTRPC();
  const overview = useQuery(trpc.billing.overview.queryOptions());
  const amount = amountCents ? formatCents(amountCents) : "the amount you chose";
  return (
    <>
      <Section id="pay-title" title={`Your top-up of ${amount}`}>
        <dl className="grid gap-4 text-sm sm:grid-cols-2">
          <div>
            <dt className="text-muted">Reference</dt>
            <dd className="mt-1 font-mono" data-testid="payment-reference">
              {reference}
            </dd>
          </div>
          <div>
            <dt className="text-muted">Amount</dt>
            <dd className="mt-1 text-lg font-medium">{amount}</dd>
          </div>
        </dl>
        {overview.isPending ? (
          <Loading />
        ) : overview.isError ? (
          <FormError message={`Could not load the billing settings: ${overview.error.message}`} />
        ) : overview.data.mode === "embedded" ? (
          <p className="text-sm">
            This installation takes no card payments, and its platform runs inside it: you are its operator, so you fund the
            balance yourself. Once the money is where you keep it (or right away, in a demo), record the payment below; the
            top-up is then paid, the balance credited and a receipt issued.
          </p>
        ) : (
          <p className="text-sm">
            The platform this installation uses takes no card payments. Pay its operator as you agreed, quoting the reference
            and the amount above; they credit the balance, and it shows on Billing.
          </p>
        )}
      </Section>
      {overview.data?.creditConfigured ? (
        <Section id="credit-title" title="Record the payment" intro="The ledger records the amount, your email and the reason.">
          {overview.data.creditDevelopmentKey ? <DevelopmentKeyNote /> : null}
          <CreditForm payment={{ reference, amountCents }} />
        </Section>
      ) : overview.data?.mode === "embedded" ? (
        <Section id="credit-title" title="Record the payment">
          <p className="text-sm text-muted">
            Not set up yet: set <code>INLAY_OPERATOR_KEY</code> here and its SHA-256 as <code>INLAY_OPERATOR_KEY_SHA256</code>, then
            come back to this page.
          </p>
        </Section>
      ) : null}
      <p>
        <Link href="/admin/billing" className="text-sm font-medium text-accent underline">
          ← Back to Billing
        </Link>
      </p>
    </>
  );
}
