import { expect, type Page } from "@playwright/test";

/** /connections: the apps the workspace offers, with the member's status and what to do about it. */
export class ConnectionsPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/connections");
    await expect(this.page.getByRole("heading", { name: "Connections", level: 1 })).toBeVisible();
  }

  app(slug: string) {
    return this.page.locator(`[data-testid="connection-app"][data-app="${slug}"]`);
  }

  status(slug: string) {
    return this.app(slug).getByTestId("connection-status");
  }

  notice() {
    return this.page.getByTestId("connections-notice");
  }

  /** Disconnect asks first: the question, then its confirming button. */
  async disconnect(slug: string) {
    const app = this.app(slug);
    await app.getByRole("button", { name: "Disconnect", exact: true }).click();
    await app.getByRole("group", { name: /^Disconnect / }).getByRole("button", { name: "Yes, disconnect" }).click();
  }
}

/** /admin/apps: the apps the workspace offers, and members' connection statuses. */
export class AdminAppsPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/admin/apps");
    await expect(this.page.getByRole("heading", { name: "Apps", level: 1 })).toBeVisible();
  }

  async offer(slug: string, on = true) {
    const box = this.page.locator(`[data-testid="tenant-app"][data-app="${slug}"]`).getByRole("checkbox");
    // The box follows the saved state (it changes once the mutation answers), so click, then wait.
    if ((await box.isChecked()) !== on) await box.click();
    await expect(box).toBeChecked({ checked: on, timeout: 10_000 });
  }

  memberRow(name: string) {
    return this.page.getByTestId("member-connections").filter({ hasText: name });
  }
}
