import { expect, test } from "@playwright/test";
import { ConsolePage } from "./pages/console-page";
import { SignInPage } from "./pages/sign-in-page";

const PASSWORD = "inlay-demo";

test("an admin signs in and sees the console", async ({ page }) => {
  const signIn = new SignInPage(page);
  await signIn.goto();
  await signIn.signIn("admin@acme.test", PASSWORD);

  const consolePage = new ConsolePage(page);
  await expect(page).toHaveURL("/");
  await expect(consolePage.welcome()).toHaveText("Welcome, Ada Admin");
  await expect(consolePage.signedInAs()).toHaveText("admin@acme.test");
  // The workspace list comes through tRPC from the seeded database.
  await expect(consolePage.workspaces()).toHaveCount(1);
  await expect(consolePage.workspaces().first()).toContainText("Acme");
  await expect(consolePage.workspaces().first()).toContainText("admin");
  await page.screenshot({ path: "test-results/console-admin.png", fullPage: true });

  await consolePage.signOut();
  await expect(page).toHaveURL(/\/signin/);
});

test("a wrong password is refused and the visitor stays signed out", async ({ page }) => {
  const signIn = new SignInPage(page);
  await signIn.goto();
  await signIn.signIn("admin@acme.test", "not-the-password");
  await expect(signIn.error()).toHaveText("That email and password do not match.");
  await page.screenshot({ path: "test-results/sign-in-refused.png" });

  await page.goto("/");
  await expect(page).toHaveURL(/\/signin\?callbackUrl=/);
});
