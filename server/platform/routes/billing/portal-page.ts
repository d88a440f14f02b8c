// GET /billing/portal-pages/{token} (public): the billing page an installation without a card provider
// serves in place of a provider's portal (POST /billing/portal links here): the plan, the balance,
// receipts and payments, read-only. The token is the credential; it expires an hour after it was made.
import { z } from "zod";
import { formatCents, formatMicros } from "@inlay/core/money";
import type { PlatformApp } from "../../context";
import { billingPortalPage } from "../../services/billing/payments";
import { defineRoute } from "../define";
import { servicesOf } from "../request";
import { escapeHtml, htmlContent, htmlPage } from "./html-page";

export const route = defineRoute({
  operationId: "billingPortalPage",
  method: "get",
  path: "/billing/portal-pages/{token}",
  tags: ["billing"],
  summary: "The installation's own billing page (for browsers; the URL is the credential)",
  access: "public",
  request: { params: z.object({ token: z.string().max(200) }) },
  responses: { 200: htmlContent("The account's plan, balance, receipts and payments") },
});

const day = (iso: string) => escapeHtml(iso.slice(0, 10));

function table(testId: string, head: string[], rows: string[][], empty: string) {
  if (rows.length === 0) return `<p data-testid="${testId}">${escapeHtml(empty)}</p>`;
  const cells = (row: string[], tag: "th" | "td") => `<tr>${row.map((cell) => `<${tag}>${cell}</${tag}>`).join("")}</tr>`;
  return `<table data-testid="${testId}"><thead>${cells(head, "th")}</thead><tbody>${rows.map((row) => cells(row, "td")).join("")}</tbody></table>`;
}

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const page = await billingPortalPage(servicesOf(c), c.req.valid("param").token);
    const runs = page.plan.runs_limit === null ? `${page.plan.runs_used}` : `${page.plan.runs_used} of ${page.plan.runs_limit}`;
    return htmlPage(
      c,
      "Billing",
      `<p>${escapeHtml(page.email)}</p>` +
        `<dl><dt>Plan</dt><dd data-testid="plan">${escapeHtml(page.plan.name)}</dd>` +
        `<dt>Runs this period (${day(page.plan.period_start)} to ${day(page.plan.period_end)})</dt><dd>${escapeHtml(runs)}</dd>` +
        `<dt>Balance</dt><dd data-testid="balance">${escapeHtml(formatMicros(page.balance_micros))}</dd></dl>` +
        `<h2>Receipts</h2>` +
        table(
          "receipts",
          ["Number", "Date", "Description", "Amount"],
          page.receipts.map((receipt) => [
            `<a href="${escapeHtml(receipt.url)}">${escapeHtml(receipt.number)}</a>`,
            day(receipt.created_at),
            escapeHtml(receipt.description),
            escapeHtml(formatCents(receipt.amount_cents)),
          ]),
          "No receipts yet.",
        ) +
        `<h2>Payments</h2>` +
        table(
          "payments",
          ["Reference", "Date", "Kind", "Status", "Amount"],
          page.payments.map((payment) => [
            escapeHtml(payment.reference),
            day(payment.created_at),
            escapeHtml(payment.kind.replace("_", " ")),
            escapeHtml(payment.status),
            escapeHtml(formatCents(payment.amount_cents)),
          ]),
          "No payments yet.",
        ) +
        "<p>This installation takes no card payments: a top-up gives a payment page with the reference its owner credits.</p>",
    );
  });
}
