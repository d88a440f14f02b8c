// Safe defaults for money: a workspace made by open sign-up starts with the small sign-up limits; the
// owner holds sign-ups for approval (approved in the console, then the person signs in) or closes
// sign-up (the page says so and the API refuses). The setting is put back to open for other specs.
import { expect, test, type Browser, type Page } from "@playwright/test";
import { ConsolePage } from "./pages/console-page";
import { DEMO_PASSWORD, SignInPage } from "./pages/sign-in-page";

const PASSWORD = "a-long-password";
const stamp = Date.now().toString(36);

async function signUp(browser: Browser, email: string, workspace: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto("/signup");
  await page.getByLabel("Your name").fill("Sam Signup");
  await page.getByLabel("Work email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByLabel("Workspace name").fill(workspace);
  await page.getByRole("button", { name: "Create workspace" }).click();
  return page;
}

async function openTenants(owner: Page) {
  await owner.goto("/admin/tenants");
  await expect(owner.getByRole("heading", { name: "Tenants", level: 1 })).toBeVisible();
}

async function chooseMode(owner: Page, label: RegExp) {
  const radio = owner.getByRole("radio", { name: label });
  await radio.check();
  await expect(radio).toBeChecked();
  await expect(owner.getByRole("group", { name: "Sign-up" })).toBeEnabled();
}

async function expectSignUpLimits(owner: Page, workspace: string) {
  const limits = owner.getByRole("form", { name: `Limits of ${workspace}` });
  await expect(limits.getByLabel("Runs per month")).toHaveValue("100");
  await expect(limits.getByLabel("Cost per month ($)")).toHaveValue(/^5(\.00)?$/);
  await expect(limits.getByLabel("Runs at once")).toHaveValue("2");
  await expect(limits.getByLabel("Messages per minute per member")).toHaveValue("10");
}

test("open sign-up gets small default limits; approval holds a sign-up until the owner approves; closed refuses", async ({ browser }) => {
  test.setTimeout(120_000);
  // This spec is about signing up and in: the owner too signs in through the form, not signInAs.
  const owner = await (await browser.newContext()).newPage();
  const ownerSignIn = new SignInPage(owner);
  await ownerSignIn.goto();
  await ownerSignIn.signIn("owner@inlay.test", DEMO_PASSWORD);
  await expect(owner).toHaveURL("/");
  try {
    // Open (a new installation's setting): the workspace exists at once, with the sign-up limits.
    const openWorkspace = `Open Co ${stamp}`;
    const opened = await signUp(browser, `open-${stamp}@example.test`, openWorkspace);
    await expect(opened).toHaveURL("/");
    await expect(new ConsolePage(opened).signedInAs()).toHaveText(`open-${stamp}@example.test`);
    await openTenants(owner);
    await expect(owner.getByRole("radio", { name: /^Open/ })).toBeChecked();
    await expectSignUpLimits(owner, openWorkspace);
    // Its one member, in the singular.
    await expect(owner.getByTestId("tenant").filter({ hasText: openWorkspace }).getByText(/^1 member · this month/)).toBeVisible();

    // Approval: the sign-up waits; the person cannot sign in until the owner approves it.
    await chooseMode(owner, /^Approval/);
    const heldEmail = `held-${stamp}@example.test`;
    const heldWorkspace = `Held Co ${stamp}`;
    const held = await signUp(browser, heldEmail, heldWorkspace);
    await expect(held.getByRole("status")).toHaveText(/waiting for the owner's approval/);
    const signIn = new SignInPage(held);
    await signIn.goto();
    await signIn.signIn(heldEmail, PASSWORD);
    await expect(signIn.error()).toHaveText("That email and password do not match.");

    await openTenants(owner);
    const request = owner.getByTestId("sign-up-request").filter({ hasText: heldEmail });
    await expect(request).toContainText(heldWorkspace);
    await owner.screenshot({ path: "test-results/sign-up-approval.png", fullPage: true });
    await request.getByRole("button", { name: `Approve ${heldEmail}` }).click();
    await expect(request).toHaveCount(0);
    await expectSignUpLimits(owner, heldWorkspace);
    await signIn.signIn(heldEmail, PASSWORD);
    await expect(held).toHaveURL("/");
    await expect(new ConsolePage(held).signedInAs()).toHaveText(heldEmail);

    // Closed: the page says so, the sign-in page stops offering it, and the API refuses.
    await chooseMode(owner, /^Closed/);
    const visitor = await (await browser.newContext()).newPage();
    await visitor.goto("/signup");
    await expect(visitor.getByRole("main").getByRole("alert")).toHaveText("Sign-up is closed on this installation: ask its owner or a workspace admin for an invite.");
    await expect(visitor.getByLabel("Work email")).toHaveCount(0);
    await visitor.goto("/signin");
    await expect(visitor.getByRole("link", { name: "Create a workspace" })).toHaveCount(0);
    const refused = await visitor.request.post("/api/trpc/accounts.create", {
      data: { name: "Sneaky", email: `closed-${stamp}@example.test`, password: PASSWORD, tenantName: "Sneaky Co" },
    });
    expect(refused.status()).toBe(403);
    expect(JSON.stringify(await refused.json())).toContain("Sign-up is closed");
    await visitor.screenshot({ path: "test-results/sign-up-closed.png" });
  } finally {
    await openTenants(owner);
    await chooseMode(owner, /^Open/);
  }
});
