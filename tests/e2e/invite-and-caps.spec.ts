import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { AcceptInvitePage, CapsPage, InvitesPage } from "./pages/admin-pages";
import { ConsolePage } from "./pages/console-page";
import { SignInPage, signInAs } from "./pages/sign-in-page";

test("an admin invites a new user, who joins and signs in; the admin caps their runs", async ({ browser }) => {
  // Two browsers, three sign-ins (each a password hash) and a dozen page loads: 8 s on a quiet machine,
  // past the default 30 s when CI runs the other passes beside this one.
  test.setTimeout(90_000);
  const email = `newbie-${randomBytes(4).toString("hex")}@example.test`;
  const password = "newbie-password-1";

  // The acme admin invites a member.
  const adminContext = await browser.newContext();
  const admin = await adminContext.newPage();
  await signInAs(admin, "admin@acme.test");
  const invites = new InvitesPage(admin);
  await invites.goto();
  const link = await invites.invite(email, "member");
  expect(link).toMatch(/\/invite\/[A-Za-z0-9_-]{43}$/);
  await expect(invites.openInvites().filter({ hasText: email })).toHaveCount(1);
  await admin.screenshot({ path: "test-results/admin-invites.png", fullPage: true });

  // The invitee opens the link in another browser, creates the account and lands in acme.
  const inviteeContext = await browser.newContext();
  const invitee = await inviteeContext.newPage();
  const accept = new AcceptInvitePage(invitee);
  await accept.goto(link);
  await expect(invitee.getByRole("heading", { name: "Join Acme" })).toBeVisible();
  // A password that is too short is refused on its field.
  await accept.createAccount("Nell Newbie", "short");
  const passwordField = invitee.getByLabel("Choose a password");
  await expect(passwordField).toHaveAttribute("aria-invalid", "true");
  await expect(invitee.getByText("Use at least 10 characters.")).toBeVisible();
  await invitee.screenshot({ path: "test-results/invite-accept-error.png" });
  await accept.createAccount("Nell Newbie", password);
  await expect(invitee).toHaveURL("/");
  const inviteeConsole = new ConsolePage(invitee);
  await expect(inviteeConsole.welcome()).toHaveText("Welcome, Nell Newbie");
  await expect(inviteeConsole.workspaces().first()).toContainText("Acme");
  await expect(inviteeConsole.workspaces().first()).toContainText("member");

  // Signing out and in again with the new password works; the used link is now refused.
  await inviteeConsole.signOut();
  await expect(invitee).toHaveURL(/\/signin/);
  const inviteeSignIn = new SignInPage(invitee);
  await inviteeSignIn.signIn(email, password);
  await expect(invitee).toHaveURL("/");
  await expect(inviteeConsole.signedInAs()).toHaveText(email);
  await invitee.screenshot({ path: "test-results/invitee-console.png", fullPage: true });
  await accept.goto(link);
  await expect(invitee.getByRole("main").getByRole("alert")).toContainText("has already been used");

  // The admin sets the new member's cap: above the workspace limit is refused on the field.
  const caps = new CapsPage(admin);
  await caps.goto();
  await caps.setMemberRuns(email, "999999");
  const runsField = caps.memberForm(email).getByLabel("Runs per month");
  await expect(runsField).toHaveAttribute("aria-invalid", "true");
  await expect(caps.memberForm(email)).toContainText("Must be at most the workspace's limit of 1000 runs a month.");
  await admin.screenshot({ path: "test-results/admin-caps-refused.png", fullPage: true });
  await caps.setMemberRuns(email, "7");
  await expect(caps.memberRow(email).getByTestId("effective-cap")).toContainText("0 / 7 runs");
  await expect(caps.memberRow(email).getByTestId("effective-cap")).toContainText("override");
  await admin.screenshot({ path: "test-results/admin-caps.png", fullPage: true });

  await adminContext.close();
  await inviteeContext.close();
});
