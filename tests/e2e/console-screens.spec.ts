// The console as people see it: on a 390 px phone (every page in the menu, the current one marked, no
// page wider than the screen), in dark mode (the theme tokens switch, text stays legible), the
// overview, the favicon, empty states and the chat history's previews. Screenshots go to
// test-results/screens/.
import { expect, test, type Locator, type Page } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { ConsoleNav } from "./pages/console-page";
import { signedIn, signInAs } from "./pages/sign-in-page";

const shot = (name: string) => `test-results/screens/${name}.png`;
const phone = { width: 390, height: 844 };
let counter = 0;
const agentName = (label: string) => `${label}-${Date.now().toString(36)}-${++counter}`;

/** The page is settled: its heading is there and nothing is loading. */
async function settled(page: Page) {
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
}

/** Nothing wider than the window: wide tables scroll inside their cards, not the page. */
async function expectNoSidewaysScroll(page: Page) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
  expect.soft(scrollWidth, `${page.url()} is wider than the window`).toBeLessThanOrEqual(innerWidth);
}

// WCAG contrast of two computed colours ("rgb(r, g, b)").
function luminance(colour: string): number {
  const [r, g, b] = colour.match(/[\d.]+/g)!.slice(0, 3).map((value) => {
    const channel = Number(value) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}
const contrast = (a: string, b: string) => {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
};
const colours = (locator: Locator) =>
  locator.evaluate((element) => {
    const style = getComputedStyle(element);
    return { color: style.color, background: style.backgroundColor };
  });

test("at 390 px every console page is in the menu, the current one is marked, and none is wider than the phone", async ({ browser }) => {
  test.setTimeout(180_000);
  const page = await signedIn(browser, "admin@acme.test", { viewport: phone });
  const nav = new ConsoleNav(page);
  await settled(page);
  await expectNoSidewaysScroll(page);
  // Folded: the pages are behind the menu button.
  await expect(nav.link("Agents")).toBeHidden();
  await nav.openMenu();
  await expect(nav.link("Overview")).toHaveAttribute("aria-current", "page");
  await page.screenshot({ path: shot("phone-menu-open"), fullPage: true });

  const labels = await nav.labels();
  // An admin's pages: their own and the workspace's.
  expect(labels).toEqual(expect.arrayContaining(["Overview", "Chat", "Agents", "Schedules", "Runs", "Connections", "Memories", "Permissions", "Members", "Usage"]));
  // Chat is the full chat page, outside the console's layout (rough-edges.spec.ts follows it).
  for (const label of labels.filter((each) => each !== "Chat")) {
    if (!(await nav.isMenuOpen())) await nav.openMenu();
    const link = nav.link(label);
    const href = await link.getAttribute("href");
    await link.click();
    await expect(page).toHaveURL(href!);
    await settled(page);
    // The menu folds again once a page is chosen and names it; reopened, the chosen page is the only
    // current one.
    await expect(nav.menuButton()).toHaveAttribute("aria-expanded", "false");
    await expect(nav.menuButton()).toContainText(label);
    await nav.openMenu();
    await expect(nav.link(label)).toHaveAttribute("aria-current", "page");
    await expect(nav.links().and(page.locator('[aria-current="page"]'))).toHaveCount(1);
    await expectNoSidewaysScroll(page);
  }
  await page.goto("/admin/usage");
  await settled(page);
  await page.screenshot({ path: shot("phone-usage"), fullPage: true });

  // Under a page (an agent's chat), its section is marked, not as the page itself.
  await page.goto("/agents");
  await page.getByRole("link", { name: "Chat with Acme assistant" }).click();
  await expect(page.getByRole("heading", { name: "Chat with Acme assistant" })).toBeVisible();
  await nav.openMenu();
  await expect(nav.link("Agents")).toHaveAttribute("aria-current", "true");
  await expectNoSidewaysScroll(page);
  await page.screenshot({ path: shot("phone-chat"), fullPage: true });
  await page.context().close();
});

test("at 1280 px the pages are always shown, with the current one marked", async ({ page }) => {
  await signInAs(page, "member@acme.test");
  const nav = new ConsoleNav(page);
  await expect(nav.menuButton()).toBeHidden();
  await nav.link("Memories").click();
  await expect(nav.link("Memories")).toHaveAttribute("aria-current", "page");
  await expect(nav.link("Overview")).not.toHaveAttribute("aria-current");
});

test("dark mode follows the system: the tokens switch and text stays legible", async ({ browser }) => {
  test.setTimeout(120_000);
  const light = await signedIn(browser, "admin@acme.test", { colorScheme: "light" });
  const dark = await signedIn(browser, "admin@acme.test", { colorScheme: "dark" });
  for (const page of [light, dark]) await settled(page);

  const lightBody = await colours(light.locator("body"));
  const darkBody = await colours(dark.locator("body"));
  expect(darkBody.background).not.toBe(lightBody.background);
  expect(darkBody.color).not.toBe(lightBody.color);
  // Dark is dark: a dark page with light text, the other way round from light mode.
  expect(luminance(darkBody.background)).toBeLessThan(0.05);
  expect(luminance(darkBody.color)).toBeGreaterThan(0.7);
  expect(luminance(lightBody.background)).toBeGreaterThan(0.9);

  // The cards, their muted text and the header's links are legible on the dark surface.
  const card = dark.getByTestId("first-steps");
  const cardColours = await colours(card);
  expect(cardColours.background).not.toBe(lightBody.background);
  const muted = await colours(card.locator("p.text-muted").first());
  expect(contrast(muted.color, cardColours.background)).toBeGreaterThanOrEqual(4.5);
  expect(contrast((await colours(card.getByRole("link").first())).color, cardColours.background)).toBeGreaterThanOrEqual(4.5);
  await dark.screenshot({ path: shot("dark-overview"), fullPage: true });

  // A table and a form field.
  await dark.goto("/admin/members");
  await settled(dark);
  const cell = dark.locator("td").first();
  expect(contrast((await colours(cell)).color, darkBody.background)).toBeGreaterThanOrEqual(4.5);
  await dark.screenshot({ path: shot("dark-members"), fullPage: true });
  await dark.goto("/agents");
  await settled(dark);
  const name = dark.getByRole("form", { name: "Create agent" }).getByLabel("Name");
  const field = await colours(name);
  expect(luminance(field.background)).toBeLessThan(0.05);
  expect(contrast(field.color, field.background)).toBeGreaterThanOrEqual(4.5);
  await dark.screenshot({ path: shot("dark-agents"), fullPage: true });

  // The chat: the person's bubble, the agent's answer and the composer.
  const chat = await ChatPage.open(dark, { agent: agentName("Dark") });
  await chat.send("hello in the dark");
  await expect(chat.lastAnswer()).toContainText("Echo: hello in the dark");
  const bubble = await colours(dark.locator(".ic-user-text").last());
  expect(contrast(bubble.color, bubble.background)).toBeGreaterThanOrEqual(4.5);
  const chatBox = await colours(dark.locator(".inlay-chat"));
  expect(luminance(chatBox.background)).toBeLessThan(0.05);
  expect(contrast((await colours(chat.lastAnswer())).color, chatBox.background)).toBeGreaterThanOrEqual(4.5);
  const composer = await colours(chat.input());
  expect(contrast(composer.color, chatBox.background)).toBeGreaterThanOrEqual(4.5);
  await dark.screenshot({ path: shot("dark-chat"), fullPage: true });

  // The admin's usage: the chart's axes follow the theme too.
  await dark.goto("/admin/usage");
  await settled(dark);
  await dark.screenshot({ path: shot("dark-usage"), fullPage: true });
  await light.screenshot({ path: shot("light-overview"), fullPage: true });
  await light.context().close();
  await dark.context().close();
});

test("the overview shows the member's quota, their agents with a chat each, and first steps", async ({ browser }) => {
  const page = await signedIn(browser, "member@acme.test");
  await settled(page);
  await expect(page.getByTestId("quota-meter")).toBeVisible();
  await expect(page.getByTestId("quota-member-runs")).toHaveText(/^\d+ of (\d+|unlimited) runs$/);
  const steps = page.getByTestId("first-step");
  await expect(steps).toHaveCount(3);
  await expect(steps.nth(0)).toContainText("Choose an agent");
  await expect(steps.nth(0)).toHaveAttribute("data-done", "true"); // the workspace has an agent
  await expect(steps.nth(2)).toContainText("Connect an app");
  await expect(steps.nth(2).getByRole("link", { name: "Connect your apps" })).toHaveAttribute("href", "/connections");
  await expect(page.getByTestId("first-steps-progress")).toHaveText(/^\d of 3 done$/);
  const agent = page.getByTestId("overview-agent").filter({ hasText: "Acme assistant" });
  await expect(agent).toHaveCount(1);
  await page.screenshot({ path: shot("overview-member"), fullPage: true });
  await agent.getByRole("link", { name: "Chat with Acme assistant" }).click();
  await expect(page.getByRole("heading", { name: "Chat with Acme assistant" })).toBeVisible();
  await page.context().close();
});

test("every page has the favicon", async ({ page, request }) => {
  await page.goto("/signin");
  const href = await page.locator('link[rel="icon"]').first().getAttribute("href");
  expect(href).toMatch(/^\/icon\.svg/);
  const icon = await request.get(href!);
  expect(icon.status()).toBe(200);
  expect(icon.headers()["content-type"]).toContain("image/svg+xml");
  expect(await icon.text()).toContain("<svg");
});

test("empty lists and the empty usage chart say what would fill them", async ({ browser }) => {
  test.setTimeout(120_000);
  // Globex's admin: no spec runs globex's agents, so nothing is remembered, allowed or metered there.
  const page = await signedIn(browser, "admin@globex.test");
  for (const [path, title] of [
    ["/memories", "Your agents remember nothing about you yet."],
    ["/permissions", "You have not always-allowed any tool."],
    ["/schedules", "No schedules yet."],
    ["/admin/schedules", "No member has a schedule."],
    ["/admin/usage", "No tokens used in the last 30 days."],
  ] as const) {
    await page.goto(path);
    await settled(page);
    await expect(page.getByTestId("empty-state").filter({ hasText: title })).toBeVisible();
  }
  await expect(page.getByTestId("usage-chart")).toHaveCount(0);
  await expect(page.getByTestId("usage-row").first()).toBeVisible(); // the table still lists the members
  await page.screenshot({ path: shot("empty-usage"), fullPage: true });
  await page.context().close();
});

test("the chat's history lists each conversation by the person's first message", async ({ page }) => {
  await signInAs(page, "admin@acme.test");
  const chat = await ChatPage.open(page, { agent: agentName("History") });
  await chat.send("what the conversation is about");
  await expect(chat.lastAnswer()).toContainText("Echo: what the conversation is about");
  await chat.send("a later reply");
  await expect(chat.lastAnswer()).toContainText("Echo: a later reply");

  await page.getByRole("button", { name: "History" }).click();
  const item = page.getByRole("region", { name: "Past conversations" }).getByRole("listitem");
  await expect(item).toHaveCount(1);
  // Not the agent's last answer, nor the latest message: the person's first one.
  await expect(item.locator(".ic-history-preview")).toHaveText("what the conversation is about");
  await page.screenshot({ path: shot("chat-history") });
});
