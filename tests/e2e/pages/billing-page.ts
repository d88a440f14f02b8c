import { expect, type Locator, type Page } from "@playwright/test";

/** The owner's /admin/billing page. */
export class BillingPage {
  constructor(private readonly page: Page) {}

  async open() {
    await this.page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Billing" }).click();
    await expect(this.page.getByRole("heading", { name: "Billing", level: 1 })).toBeVisible();
  }

  async goto() {
    await this.page.goto("/admin/billing");
    await expect(this.page.getByRole("heading", { name: "Billing", level: 1 })).toBeVisible();
  }

  balance(): Locator {
    return this.page.getByTestId("billing-balance");
  }

  ledgerRows(): Locator {
    return this.page.getByTestId("ledger-row");
  }

  receiptRows(): Locator {
    return this.page.getByTestId("receipt-row");
  }

  /** Submits the top-up form; the browser goes on to the payment provider's checkout page. */
  async topUp(dollars: string) {
    const form = this.page.getByRole("form", { name: "Top up" });
    await form.getByLabel("Amount ($)").fill(dollars);
    await form.getByRole("button", { name: "Top up" }).click();
  }
}
