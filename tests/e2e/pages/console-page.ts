import { expect, type Page } from "@playwright/test";

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

/** The console's nav: a row from 640 px up, a "Menu" disclosure below. */
export class ConsoleNav {
  constructor(private readonly page: Page) {}

  private nav() {
    return this.page.getByRole("navigation", { name: "Console" });
  }

  menuButton() {
    return this.nav().getByRole("button", { name: /^Menu/ });
  }

  links() {
    return this.nav().getByRole("link");
  }

  link(label: string) {
    return this.nav().getByRole("link", { name: label, exact: true });
  }

  async labels(): Promise<string[]> {
    return (await this.links().allTextContents()).map((text) => text.trim());
  }

  async isMenuOpen() {
    return (await this.menuButton().getAttribute("aria-expanded")) === "true";
  }

  async openMenu() {
    await this.menuButton().click();
    await expect(this.menuButton()).toHaveAttribute("aria-expanded", "true");
  }
}
