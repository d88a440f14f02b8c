import { expect, type Page } from "@playwright/test";

export class AgentsPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/agents");
    await expect(this.page.getByRole("heading", { name: "Agents", level: 1 })).toBeVisible();
    // The list loads after the heading: counting rows before it has would count none.
    await expect(this.rows().first().or(this.page.getByText("No agents yet."))).toBeVisible();
  }

  async define(name: string, instructions: string) {
    const form = this.page.getByRole("form", { name: "Create agent" });
    await form.getByLabel("Name").fill(name);
    await form.getByLabel("Instructions").fill(instructions);
    await form.getByRole("button", { name: "Create agent" }).click();
  }

  rows() {
    return this.page.getByTestId("agent-row");
  }

  async openChat(name: string) {
    await this.page.getByRole("link", { name: `Chat with ${name}` }).click();
    await expect(this.page.getByRole("heading", { name: `Chat with ${name}` })).toBeVisible();
  }
}

/** The agent page's chat: <InlayChat> on React, beside the quota meter. */
export class ChatPage {
  constructor(private readonly page: Page) {}

  async send(message: string) {
    await this.page.getByRole("textbox", { name: "Message" }).fill(message);
    await this.page.getByRole("button", { name: "Send" }).click();
  }

  replies() {
    return this.page.getByRole("log", { name: "Conversation" }).locator('article[data-role="assistant"]');
  }

  error() {
    return this.page.locator(".inlay-chat").getByRole("alert");
  }

  memberRuns() {
    return this.page.getByTestId("quota-member-runs");
  }
}
