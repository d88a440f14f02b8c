import { expect, type Browser, type Page } from "@playwright/test";

/** Every seeded demo user's password (prisma/seed.ts). */
export const DEMO_PASSWORD = "inlay-demo";

export class SignInPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/signin");
    await expect(this.page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  }

  async signIn(email: string, password: string) {
    await this.page.getByLabel("Email").fill(email);
    await this.page.getByLabel("Password").fill(password);
    await this.page.getByRole("button", { name: "Sign in" }).click();
  }

  error() {
    return this.page.locator("form").getByRole("alert");
  }
}

/** A page in a browser context of its own, signed in as `email` (a seeded demo user). */
export async function signedIn(browser: Browser, email: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  const signIn = new SignInPage(page);
  await signIn.goto();
  await signIn.signIn(email, DEMO_PASSWORD);
  await expect(page).toHaveURL("/");
  return page;
}
