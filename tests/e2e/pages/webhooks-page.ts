import { expect, type Locator, type Page } from "@playwright/test";

/** The owner's /admin/webhooks page. */
export class WebhooksPage {
  constructor(private readonly page: Page) {}

  async open() {
    await this.page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Webhooks" }).click();
    await expect(this.page.getByRole("heading", { name: "Webhooks", level: 1 })).toBeVisible();
  }

  /** Registers `url` for exactly `events`; returns the secret the page shows once. */
  async register(url: string, events: string[]) {
    const form = this.page.getByRole("form", { name: "Register an endpoint" });
    await form.getByLabel("Endpoint URL").fill(url);
    for (const checkbox of await form.getByRole("checkbox").all()) {
      const value = await checkbox.getAttribute("value");
      await checkbox.setChecked(events.includes(value ?? ""));
    }
    await form.getByRole("button", { name: "Register endpoint" }).click();
    const secret = form.getByTestId("webhook-secret");
    await expect(secret).toHaveValue(/^whsec_/);
    return secret.inputValue();
  }

  endpoint(url: string): Endpoint {
    return new Endpoint(this.page, this.page.getByTestId("webhook").filter({ has: this.page.getByRole("heading", { name: url, exact: true }) }));
  }

  shownSecrets() {
    return this.page.getByTestId("webhook-secret");
  }
}

export class Endpoint {
  constructor(
    private readonly page: Page,
    readonly root: Locator,
  ) {}

  /** The event kinds the endpoint receives, as the page lists them. */
  events() {
    return this.root.getByTestId("webhook-events");
  }

  maskedSecret() {
    return this.root.getByTestId("masked-secret");
  }

  async showDeliveries() {
    await this.root.getByRole("button", { name: "Deliveries" }).click();
    await expect(this.root.getByRole("heading", { name: "Deliveries" })).toBeVisible();
  }

  deliveries() {
    return this.root.getByTestId("delivery");
  }

  /** The delivery rows whose status is `status` (pending, succeeded, failed). */
  deliveriesWithStatus(status: string) {
    return this.root.locator(`[data-testid="delivery"][data-status="${status}"]`);
  }

  /** Replays since `localDateTime` (YYYY-MM-DDTHH:mm in the browser's zone; the page offers an hour ago). */
  async replaySince(localDateTime?: string) {
    const form = this.root.getByRole("form", { name: "Replay since" });
    if (localDateTime) await form.getByLabel("Replay since…").fill(localDateTime);
    await form.getByRole("button", { name: "Replay" }).click();
    return form.getByRole("status");
  }

  async rotateSecret() {
    this.page.once("dialog", (dialog) => void dialog.accept());
    await this.root.getByRole("button", { name: "Rotate secret" }).click();
    const secret = this.root.getByTestId("webhook-secret");
    await expect(secret).toHaveValue(/^whsec_/);
    return secret.inputValue();
  }

  async delete() {
    this.page.once("dialog", (dialog) => void dialog.accept());
    await this.root.getByRole("button", { name: "Delete" }).click();
  }
}
