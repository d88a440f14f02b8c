import { expect, test, type Browser, type BrowserContextOptions, type Cookie, type Page } from "@playwright/test";

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

// Each demo user's session cookies, per server (each pass has its own, with its own database), from
// their first sign-in through the form in this worker. Sessions are JWTs, so signing out in one browser
// context ends no other context's session.
const sessions = new Map<string, Cookie[]>();

/**
 * Signs `page` in as `email` (a seeded demo user) and leaves it on the console's overview. The first
 * time for that user in this worker it goes through the form; later it hands the context the session's
 * cookies, sparing the sign-in page, the password hash and a redirect. Specs about signing in itself use
 * SignInPage.
 */
export async function signInAs(page: Page, email: string): Promise<void> {
  const key = `${test.info().project.use.baseURL} ${email}`;
  const cookies = sessions.get(key);
  if (cookies) {
    await page.context().addCookies(cookies);
    await page.goto("/");
  } else {
    const signIn = new SignInPage(page);
    await signIn.goto();
    await signIn.signIn(email, DEMO_PASSWORD);
  }
  await expect(page).toHaveURL("/");
  if (!cookies) sessions.set(key, (await page.context().storageState()).cookies);
}

/** A page in a browser context of its own, signed in as `email` (a seeded demo user). */
export async function signedIn(browser: Browser, email: string, options: BrowserContextOptions = {}): Promise<Page> {
  const page = await (await browser.newContext(options)).newPage();
  await signInAs(page, email);
  return page;
}
