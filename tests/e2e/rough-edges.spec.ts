// What a newcomer tripped over in the console (issue #34): the seeded agent and a new agent ask before
// a tool runs (the spec's default permission mode); one Schedules entry and a Chat entry in the nav; the
// chat's header fits a 400 px widget, the agent's name whole; the billing page shows what it knows when
// the platform fails; the production sign-in page names no demo account (demo-app.spec.ts checks that
// development does). And issue #49's: a tenant admin's nav is one line at 1280 px; the owner's overview
// sends them to Tenants; a loopback webhook URL's refusal names OUTBOUND_ALLOW_LOOPBACK.
import { expect, test, type Page } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { ConsoleNav } from "./pages/console-page";
import { signedIn, SignInPage } from "./pages/sign-in-page";

test("the seeded agent asks before it runs a tool, as the spec's default mode says", async ({ browser }) => {
  // The admin chats (member@acme.test's monthly cap is used up by agents-and-quota.spec.ts).
  const page = await signedIn(browser, "admin@acme.test");
  // No mode in the URL: the agent's own default decides.
  const chat = await ChatPage.open(page, { agent: "Acme assistant" });
  await chat.send('::tool calculator {"expression":"6*7"}');
  const card = page.getByRole("region", { name: "Approve calculator" });
  await expect(card).toBeVisible({ timeout: 20_000 });
  await expect(chat.lastAnswer()).not.toContainText("Tool calculator returned");
  await card.getByRole("button", { name: "Allow once" }).click();
  await expect(chat.lastAnswer()).toContainText('Tool calculator returned {"result":42}');
  await page.context().close();
});

test("the new-agent form starts in approval mode, and the agent is saved so", async ({ browser }) => {
  const page = await signedIn(browser, "admin@acme.test");
  await page.goto("/agents");
  const form = page.getByRole("form", { name: "Create agent" });
  await expect(form.getByLabel("Permission mode")).toHaveValue("approval");
  const name = `Careful ${Date.now().toString(36)}`;
  await form.getByLabel("Name").fill(name);
  await form.getByRole("button", { name: "Create agent" }).click();
  const row = page.getByTestId("agent-row").filter({ hasText: name });
  await expect(row).toHaveCount(1);
  // Saved so: its edit form reads the mode back from the server.
  await row.getByRole("link", { name: `Edit ${name}` }).click();
  await expect(page.getByLabel("Permission mode")).toHaveValue("approval");
  await page.context().close();
});

test("the nav has one Schedules entry and a Chat entry that opens a chat; an admin reaches everyone's schedules from Schedules", async ({ browser }) => {
  const admin = await signedIn(browser, "admin@acme.test");
  const nav = new ConsoleNav(admin);
  const labels = await nav.labels();
  expect(labels.filter((label) => label.startsWith("Schedules"))).toEqual(["Schedules"]);
  expect(labels).toContain("Chat");

  await nav.link("Schedules").click();
  await expect(admin.getByRole("heading", { name: "Schedules", level: 1 })).toBeVisible();
  await admin.getByRole("link", { name: "Every member's schedules" }).click();
  await expect(admin.getByRole("heading", { name: "Members' schedules", level: 1 })).toBeVisible();

  // Chat needs no agent picked first: it opens the member's first one, ready to type.
  await nav.link("Chat").click();
  await expect(admin).toHaveURL(/\/chat$/);
  const chat = new ChatPage(admin);
  await expect(chat.input()).toBeEnabled();
  await expect(admin.locator(".ic-header-title")).toHaveText("Acme assistant");
  await admin.context().close();

  // A member has the same two entries, and no way to the admins' page.
  const member = await signedIn(browser, "member@acme.test");
  const memberNav = new ConsoleNav(member);
  expect((await memberNav.labels()).filter((label) => label.startsWith("Schedules"))).toEqual(["Schedules"]);
  await memberNav.link("Schedules").click();
  await expect(member.getByRole("heading", { name: "Schedules", level: 1 })).toBeVisible();
  await expect(member.getByRole("link", { name: "Every member's schedules" })).toHaveCount(0);
  await member.context().close();
});

test("at 400 px the chat header keeps History and New chat on one line each, inside the window", async ({ browser }) => {
  const page = await signedIn(browser, "admin@acme.test", { viewport: { width: 400, height: 720 } });
  const chat = await ChatPage.open(page, { agent: "Acme assistant" });
  await chat.send("hello from a narrow window");
  await expect(chat.lastAnswer()).toContainText("Echo: hello from a narrow window");
  const newChat = page.getByRole("button", { name: "New chat" });
  const history = page.getByRole("button", { name: "History" });
  await expect(newChat).toBeVisible();
  const [newBox, historyBox] = [await newChat.boundingBox(), await history.boundingBox()];
  // One line: as tall as History (one word); inside the 400 px window; its text not cut off.
  expect(newBox!.height).toBeLessThanOrEqual(historyBox!.height + 0.5);
  expect(newBox!.x + newBox!.width).toBeLessThanOrEqual(400);
  expect(await newChat.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(400);
  // The agent's name is whole: it wraps rather than end in an ellipsis.
  const title = page.locator(".ic-header-title");
  await expect(title).toHaveText("Acme assistant");
  expect(await title.evaluate((element) => element.scrollWidth <= element.clientWidth && element.scrollHeight <= element.clientHeight)).toBe(true);
  await page.screenshot({ path: "test-results/rough-edges-chat-400.png" });
  await page.context().close();
});

/** Answers billing.overview (the platform's balance) with a server error, leaving the batch's other calls alone. */
async function failBalance(page: Page) {
  await page.route(/\/api\/trpc\/[^?]*billing\.overview/, async (route) => {
    const response = await route.fetch();
    const procedures = decodeURIComponent(new URL(route.request().url()).pathname.split("/").pop()!).split(",");
    const results = (await response.json()) as unknown[];
    results[procedures.indexOf("billing.overview")] = {
      error: { message: "the platform did not answer", code: -32603, data: { code: "INTERNAL_SERVER_ERROR", httpStatus: 500, path: "billing.overview" } },
    };
    await route.fulfill({ response, status: 207, json: results });
  });
}

test("when the platform's balance fails, billing says so and still shows the tenants' spend and the other sections", async ({ browser }) => {
  const page = await signedIn(browser, "owner@inlay.test");
  await failBalance(page);
  await page.goto("/admin/billing");
  const main = page.getByRole("main");
  await expect(main.getByRole("alert").filter({ hasText: "Could not load the balance from the platform" })).toBeVisible();
  // What the framework knows by itself is there: each tenant's spend (no share of an unknown balance).
  const acme = page.getByTestId("tenant-spend-row").filter({ hasText: "acme" });
  await expect(acme).toContainText("$");
  await expect(acme.locator("td").last()).toHaveText("–");
  await expect(page.getByRole("heading", { name: "Credit the balance" })).toBeVisible();
  // No skeleton is left: every section has its content or its error.
  await expect(main.locator('[aria-busy="true"]')).toHaveCount(0);
  await page.screenshot({ path: "test-results/rough-edges-billing-platform-down.png", fullPage: true });
  await page.context().close();
});

test("at 1280 px a tenant admin's nav is one line", async ({ browser }) => {
  const admin = await signedIn(browser, "admin@acme.test");
  const nav = new ConsoleNav(admin);
  await expect(nav.link("Embed")).toBeVisible();
  const tops = await nav.links().evaluateAll((links) => links.map((link) => link.getBoundingClientRect().top));
  expect(tops.length).toBeGreaterThanOrEqual(15);
  expect(new Set(tops).size).toBe(1);
  await admin.context().close();
});

test("the owner's overview, in no workspace, points to Tenants rather than to an admin's invite", async ({ browser }) => {
  const owner = await signedIn(browser, "owner@inlay.test");
  const empty = owner.getByRole("main").getByTestId("empty-state");
  await expect(empty).toContainText("You are not a member of any workspace.");
  await expect(empty).not.toContainText("ask an admin", { ignoreCase: true });
  await empty.getByRole("link", { name: "Tenants" }).click();
  await expect(owner.getByRole("heading", { name: "Tenants", level: 1 })).toBeVisible();
  await owner.context().close();
});

test("a loopback webhook URL is refused with the setting that would allow it named", async ({ browser }) => {
  const owner = await signedIn(browser, "owner@inlay.test");
  await owner.goto("/admin/webhooks");
  const form = owner.getByRole("form", { name: "Register an endpoint" });
  await form.getByLabel("Endpoint URL").fill("https://127.0.0.1:8443/hook");
  await form.getByRole("checkbox").first().check();
  await form.getByRole("button", { name: "Register endpoint" }).click();
  await expect(form).toContainText("127.0.0.1 is a loopback address");
  await expect(form).toContainText("OUTBOUND_ALLOW_LOOPBACK");
  await owner.context().close();
});

test("the production sign-in page names no demo account", async ({ page }) => {
  const signIn = new SignInPage(page);
  await signIn.goto();
  await expect(page.getByTestId("demo-accounts")).toHaveCount(0);
  await expect(page.getByText("inlay-demo")).toHaveCount(0);
});
