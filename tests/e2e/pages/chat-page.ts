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

  async send(text: string) {
    await this.input().fill(text);
    await this.input().press("Enter");
  }

  stopButton() {
    return this.root.getByRole("button", { name: "Stop" });
  }
}
