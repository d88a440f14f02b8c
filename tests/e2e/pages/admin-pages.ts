import { expect, type Page } from "@playwright/test";

export class InvitesPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/admin/invites");
    await expect(this.page.getByRole("heading", { name: "Invites", level: 1 })).toBeVisible();
  }

  async invite(email: string, role: "member" | "admin") {
    const form = this.page.getByRole("form", { name: "Invite someone" });
    await form.getByLabel("Email").fill(email);
    await form.getByLabel("Role").selectOption(role);
    await form.getByRole("button", { name: "Send invite" }).click();
    const link = this.page.getByTestId("invite-link");
    await expect(link).toBeVisible();
    return link.inputValue();
  }

  openInvites() {
    return this.page.getByTestId("invite-row");
  }
}

export class AcceptInvitePage {
  constructor(private readonly page: Page) {}

  async goto(link: string) {
    await this.page.goto(new URL(link).pathname);
  }

  async createAccount(name: string, password: string) {
    await this.page.getByLabel("Your name").fill(name);
    await this.page.getByLabel("Choose a password").fill(password);
    await this.page.getByRole("button", { name: "Create account and join" }).click();
  }
}

export class CapsPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/admin/caps");
    await expect(this.page.getByRole("heading", { name: "Caps", level: 1 })).toBeVisible();
  }

  memberForm(email: string) {
    return this.page.getByRole("form", { name: `Cap for ${email}` });
  }

  memberRow(email: string) {
    return this.page.getByTestId("member-cap").filter({ hasText: email });
  }

  async setMemberRuns(email: string, runs: string) {
    const form = this.memberForm(email);
    await form.getByLabel("Runs per month").fill(runs);
    await form.getByRole("button", { name: "Save" }).click();
  }
}

/** Admin → Embed: allowed sites, embed secrets and the snippets. */
export class EmbedAdminPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/admin/embed");
    await expect(this.page.getByRole("heading", { name: "Embed", level: 1 })).toBeVisible();
  }

  async allowOrigins(origins: string[]) {
    const field = this.page.getByLabel("Origins");
    await expect(field).toBeEnabled();
    await field.fill(origins.join("\n"));
    await this.page.getByRole("button", { name: "Save", exact: true }).click();
    await expect(this.page.getByText("Saved.")).toBeVisible();
  }

  /** Creates a secret and reads its full value, shown this once. */
  async createSecret(name: string) {
    const form = this.page.getByRole("form", { name: "Create an embed secret" });
    await form.getByLabel("Name").fill(name);
    await form.getByRole("button", { name: "Create secret" }).click();
    const value = this.page.getByLabel("New embed secret");
    await expect(value).toBeVisible();
    return value.inputValue();
  }

  secretRow(name: string) {
    return this.page.getByRole("table", { name: "Embed secrets" }).getByRole("row").filter({ hasText: name });
  }

  /** Saves the tool views (JSON); the panel's answer: "Views saved." or why not. */
  async saveToolViews(views: unknown) {
    const field = this.page.getByLabel("Views (JSON, by tool name)");
    await expect(field).toBeEnabled();
    await field.fill(typeof views === "string" ? views : JSON.stringify(views, null, 2));
    await this.page.getByRole("button", { name: "Save views" }).click();
    return this.page.locator("#embed-tool-views-status");
  }

  snippet(kind: "script" | "express" | "next" | "curl") {
    return this.page.getByTestId(`snippet-${kind}`);
  }
}
