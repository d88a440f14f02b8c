import { expect, type FrameLocator, type Page } from "@playwright/test";

/** <InlayChat>: in the console (/chat) or inside the embed iframe. */
export class ChatPage {
  constructor(private readonly root: Page | FrameLocator) {}

  static async open(page: Page, query: Record<string, string>) {
    await page.goto(`/chat?${new URLSearchParams(query)}`);
    const chat = new ChatPage(page);
    await expect(chat.input()).toBeEnabled();
    return chat;
  }

  input() {
    return this.root.getByLabel("Message");
  }

  log() {
    return this.root.getByRole("log", { name: "Conversation" });
  }

  lastAnswer() {
    return this.root.locator('article[data-role="assistant"]').last();
  }

  /** The conversation's messages in order: the person's bubbles and the agent's answers. */
  turns() {
    return this.log().locator('[data-role="user"], article[data-role="assistant"]');
  }

  /**
   * As a person does: once the last answer has ended (the composer shows Send, not Stop). Enter while
   * an answer still streams sends nothing, and the text stays in the box.
   */
  async send(text: string) {
    await this.idle();
    await this.input().fill(text);
    await this.input().press("Enter");
  }

  /** The last answer has ended: the composer shows Send, not Stop. */
  async idle() {
    await expect(this.root.getByRole("button", { name: "Send", exact: true })).toBeVisible({ timeout: 20_000 });
  }

  stopButton() {
    return this.root.getByRole("button", { name: "Stop" });
  }
}
