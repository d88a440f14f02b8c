import type { Page } from "@playwright/test";

export class ConsolePage {
  constructor(private readonly page: Page) {}

  welcome() {
    return this.page.getByRole("heading", { level: 1 });
  }

  workspaces() {
    return this.page.getByTestId("workspace");
  }

  signedInAs() {
    return this.page.getByTestId("signed-in-as");
  }

  async signOut() {
    await this.page.getByRole("button", { name: "Sign out" }).click();
  }
}
