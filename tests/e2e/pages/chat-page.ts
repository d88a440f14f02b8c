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

  async send(text: string) {
    await this.input().fill(text);
    await this.input().press("Enter");
  }

  stopButton() {
    return this.root.getByRole("button", { name: "Stop" });
  }
}
