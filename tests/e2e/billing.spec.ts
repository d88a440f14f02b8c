// The owner's billing page end to end: the balance and ledger in dollars, a top-up paid on the payment
// provider's checkout page (the Stripe adapter pointed at the loopback fake that playwright.config.ts
// starts; its webhook credits the balance), then the new balance, the ledger entry and the receipt.
// Everyone else is refused the page.
import { expect, test } from "@playwright/test";
import { BillingPage } from "./pages/billing-page";
import { signedIn } from "./pages/sign-in-page";

const OWNER = "owner@inlay.test";

/** `$1,234.56` or `$1,234.5678` (a balance sub-cent run costs left) back to micro-USD, to the $0.0001 shown. */
const micros = (text: string | null) => Math.round(Number((text ?? "").replace(/[$,]/g, "")) * 10_000) * 100;
const BALANCE = /^\$[\d,]+\.\d{2}(\d{2})?$/;

test("the owner tops up through the checkout page and sees the new balance, the ledger entry and the receipt", async ({ browser }) => {
  test.setTimeout(60_000);
  const page = await signedIn(browser, OWNER);
  const billing = new BillingPage(page);
  await billing.open();
  await expect(billing.balance()).toHaveText(BALANCE);
  const before = micros(await billing.balance().textContent());
  await expect(page.getByTestId("tenant-spend-row").filter({ hasText: "acme" })).toContainText("$");

  await billing.topUp("25");
  await expect(page.getByRole("heading", { name: "Fake checkout" })).toBeVisible();
  await expect(page.getByTestId("amount")).toHaveText("$25.00");
  await page.getByRole("button", { name: "Pay" }).click();
  // The provider sends the browser back once the payment is taken; its webhook has credited the balance.
  await page.waitForURL(/\/billing\/checkout\/return\?session_id=/);

  await billing.goto();
  await expect.poll(async () => micros(await billing.balance().textContent())).toBe(before + 25_000_000);
  await expect(billing.ledgerRows().first()).toContainText("$25.00");
  const receipt = billing.receiptRows().filter({ hasText: "$25.00" });
  await expect(receipt).toHaveCount(1);
  await receipt.getByRole("button", { name: "Get invoice" }).click();
  await expect(receipt.getByRole("link", { name: /^Invoice / })).toHaveAttribute("href", /^http:\/\/127\.0\.0\.1:\d+\/invoices\//);
});

test("a tenant admin has no billing link and is refused the page", async ({ browser }) => {
  const page = await signedIn(browser, "admin@acme.test");
  await expect(page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Billing" })).toHaveCount(0);
  await page.goto("/admin/billing");
  await expect(page.getByRole("main").getByRole("alert")).toHaveText("Only the installation owner can see this page.");
});

test("the owner credits the balance by hand; the ledger names who and why, and the receipt shows at once", async ({ browser }) => {
  const page = await signedIn(browser, OWNER);
  const billing = new BillingPage(page);
  await billing.goto();
  await expect(billing.balance()).toHaveText(BALANCE);
  // The receipts are read before the credit (the list or its empty state).
  await expect(billing.receiptRows().first().or(page.getByText("No receipts yet."))).toBeVisible();
  const reason = `Bank transfer e2e ${Date.now().toString(36)}`;
  const before = micros(await billing.balance().textContent());

  const form = page.getByRole("form", { name: "Credit the balance" });
  await form.getByLabel("Amount ($)").fill("12.345");
  await form.getByRole("button", { name: "Credit" }).click();
  await expect(form.getByText("Enter an amount in dollars, e.g. 25.00.")).toBeVisible();
  await form.getByLabel("Amount ($)").fill("12.34");
  await form.getByLabel("Reason").fill(reason);
  await form.getByRole("button", { name: "Credit" }).click();
  await expect(form.getByRole("status")).toHaveText("Credited $12.34.");
  await expect.poll(async () => micros(await billing.balance().textContent())).toBe(before + 12_340_000);
  await expect(billing.ledgerRows().first()).toContainText(reason);
  await expect(billing.ledgerRows().first()).toContainText(OWNER);
  // Without reloading the page.
  await expect(billing.receiptRows().filter({ hasText: `Credit: ${reason}` })).toHaveCount(1);
  await expect(billing.receiptRows().filter({ hasText: `Credit: ${reason}` })).toContainText("$12.34");
});

test("a top-up's manual payment page is the console's, speaks to the owner who pays, and leads back to Billing", async ({ browser }) => {
  const page = await signedIn(browser, OWNER);
  // Where Top up sends the owner when the platform takes no card payments (server/framework/tenancy/billing.ts).
  await page.goto("/admin/billing/pay/pay_e2e0000?amount=2500");
  await expect(page.getByRole("heading", { name: "Pay a top-up", level: 1 })).toBeVisible();
  // Inside the console, with its navigation, not a bare page.
  await expect(page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Billing" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Your top-up of $25.00" })).toBeVisible();
  await expect(page.getByTestId("payment-reference")).toHaveText("pay_e2e0000");
  // Embedded, the owner runs the platform and funds it; remote (E2E_REMOTE_PLATFORM=1), they pay its operator.
  const addressed = test.info().config.metadata.remotePlatform ? "Pay its operator as you agreed" : "you are its operator, so you fund the balance yourself";
  await expect(page.getByText(addressed)).toBeVisible();
  await expect(page.getByText(/contact the owner/i)).toHaveCount(0);

  // The operator key is configured here (playwright.config.ts), so the payment can be recorded on the
  // page, the amount filled in; a reference the platform does not know is refused with its message.
  const form = page.getByRole("form", { name: "Credit the balance" });
  await expect(form.getByLabel("Amount ($)")).toHaveValue("25.00");
  await expect(form.getByLabel("Reason")).toHaveValue("Top-up pay_e2e0000");
  await expect(page.getByTestId("development-operator-key")).toHaveCount(0);
  await form.getByRole("button", { name: "Credit" }).click();
  await expect(form.getByRole("alert")).toContainText("no such payment");

  await page.getByRole("link", { name: "Back to Billing" }).click();
  await expect(page).toHaveURL(/\/admin\/billing$/);
  await expect(page.getByRole("heading", { name: "Billing", level: 1 })).toBeVisible();
});
