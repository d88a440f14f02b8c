// The run view end to end: a member runs their agent with a tool call they approve, opens the run from
// their runs and from a schedule's run, and reads its timeline, model, tokens and cost; the admin
// opens the member's run from the usage page; another tenant's admin gets not-found for its id.
import { expect, test, type Page } from "@playwright/test";
import { CapsPage } from "./pages/admin-pages";
import { ChatPage } from "./pages/chat-page";
import { SchedulesPage } from "./pages/schedules-page";
import { signedIn } from "./pages/sign-in-page";

const shot = (name: string) => `test-results/run-view-${name}.png`;
const TOOL_MESSAGE = '::tool calculator {"expression":"6*7"}';

/** A fact of the run ("Model", "Cost", ...) as the page lists it. */
const fact = (page: Page, term: string) => page.getByRole("term").filter({ hasText: new RegExp(`^${term}$`) }).locator("xpath=following-sibling::dd");

async function expectNoSidewaysScroll(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(page.viewportSize()!.width);
}

test("a member reads their run's timeline; the admin opens it from usage; another tenant's admin does not find it", async ({ browser }) => {
  test.setTimeout(150_000);
  // The agents-and-quota spec caps member@acme.test at two runs: back to the workspace default.
  const admin = await signedIn(browser, "admin@acme.test");
  const caps = new CapsPage(admin);
  await caps.goto();
  await expect(caps.memberForm("member@acme.test")).toBeVisible();
  const useDefault = caps.memberForm("member@acme.test").getByRole("button", { name: "Use default" });
  if (await useDefault.count()) {
    await useDefault.click();
    await expect(caps.memberRow("member@acme.test").getByTestId("effective-cap")).toContainText("default");
  }

  // The member asks for a tool call on the workspace agent, which asks for approval first.
  const member = await signedIn(browser, "member@acme.test");
  const chat = await ChatPage.open(member, { agent: "Acme assistant", mode: "approval" });
  await chat.send(TOOL_MESSAGE);
  const card = member.getByRole("region", { name: "Approve calculator" });
  await card.getByRole("button", { name: "Allow once" }).click();
  await expect(chat.lastAnswer()).toContainText('Tool calculator returned {"result":42}');

  // Their runs, then the run.
  await member.goto("/");
  await member.getByRole("link", { name: "Runs", exact: true }).first().click();
  await expect(member.getByRole("heading", { name: "Runs", level: 1 })).toBeVisible();
  const row = member.getByTestId("run-row").filter({ hasText: "calculator" }).first();
  await expect(row).toContainText("completed");
  await row.getByRole("link").click();
  await expect(member).toHaveURL(/\/runs\/\d+$/);
  const runPath = new URL(member.url()).pathname;
  const runId = runPath.split("/").at(-1)!;
  await expect(member.getByRole("heading", { name: `Run ${runId}`, level: 1 })).toBeVisible();

  const timeline = member.getByRole("list", { name: "Timeline" });
  const entries = timeline.getByTestId("timeline-entry");
  await expect(entries.first()).toContainText(TOOL_MESSAGE);
  const approval = entries.and(member.locator('[data-type="request"]'));
  await expect(approval).toContainText("Approval");
  await expect(approval).toContainText("calculator");
  await expect(approval.getByTestId("request-status")).toHaveText("allowed");
  const call = entries.and(member.locator('[data-type="tool_call"]'));
  await expect(call).toContainText("calculator");
  await expect(call).toContainText('"expression": "6*7"');
  const result = entries.and(member.locator('[data-type="tool_result"]'));
  await expect(result).toContainText("calculator");
  await expect(result).toContainText(/"result": ?42/);
  // In the order it happened: the call, the approval it waited for and the pause, the resume, the
  // result, the answer; each step with its start (a clock time and its offset in the run) and duration.
  expect(await entries.evaluateAll((items) => items.map((item) => item.getAttribute("data-type")))).toEqual([
    "message",
    "tool_call",
    "request",
    "status",
    "status",
    "tool_result",
    "message",
    "status",
  ]);
  await expect(entries.nth(3)).toContainText("awaiting_approval");
  await expect(entries.nth(4)).toContainText("running (resumed)");
  const starts = await entries.evaluateAll((items) => items.map((item) => Date.parse(item.getAttribute("data-at") ?? "")));
  expect(starts.every(Number.isFinite)).toBe(true);
  expect(starts).toEqual([...starts].sort((a, b) => a - b));
  await expect(entries.getByTestId("entry-start")).toHaveCount(8);
  await expect(entries.first().getByTestId("entry-start")).toContainText("+0 ms");
  await expect(call.getByTestId("entry-duration")).toHaveText(/^\d+(\.\d)? (ms|s)$/);
  await expect(approval.getByTestId("entry-duration")).toHaveText(/^\d+(\.\d)? (ms|s)$/);
  await expect(entries.last().getByTestId("entry-duration")).toHaveText("instant");
  await expect(entries.filter({ hasText: 'Tool calculator returned {"result":42}' })).toHaveCount(1);
  await expect(fact(member, "Started by")).toHaveText("Chat");
  await expect(fact(member, "Model")).toContainText("sim");
  await expect(fact(member, "Tokens in / out")).toHaveText(/^[1-9]\d* \/ [1-9]\d*$/);
  // The sim model's price makes a run cost a few hundred micro-USD: shown to the ten-thousandth.
  await expect(member.getByTestId("run-cost")).toHaveText(/^\$0\.0\d{3}$/);
  await expect(fact(member, "Duration")).toHaveText(/\d/);
  await member.screenshot({ path: shot("member"), fullPage: true });

  // At 390 px and in dark mode the page is no wider than the phone.
  await member.setViewportSize({ width: 390, height: 844 });
  await member.emulateMedia({ colorScheme: "dark" });
  await expect(entries.first()).toBeVisible();
  await expectNoSidewaysScroll(member);
  await member.screenshot({ path: shot("phone-dark"), fullPage: true });
  await member.setViewportSize({ width: 1280, height: 800 });
  await member.emulateMedia({ colorScheme: "light" });

  // A schedule's run links to its run view, which names the schedule.
  const name = `Run view ${Date.now().toString(36)}`;
  const schedules = new SchedulesPage(member);
  await schedules.goto();
  await schedules.create("Summarise the day.", name);
  await schedules.act(name, "Run now");
  const scheduled = schedules.schedule(name).getByTestId("schedule-run");
  await expect(scheduled.getByTestId("schedule-run-status")).toHaveText("completed", { timeout: 20_000 });
  await scheduled.getByRole("link", { name: /^Run \d+$/ }).click();
  await expect(member).toHaveURL(/\/runs\/\d+$/);
  await expect(fact(member, "Started by")).toHaveText(`Schedule “${name}”`);
  await expect(member.getByTestId("timeline-entry").first()).toContainText("Summarise the day.");
  await schedules.goto();
  await schedules.act(name, "Delete");
  await expect(schedules.schedule(name)).toHaveCount(0);

  // The admin: from the member's usage row to their runs, to the run.
  await admin.goto("/admin/usage");
  const usageRow = admin.getByTestId("usage-row").filter({ hasText: "member@acme.test" });
  await usageRow.getByRole("link", { name: "Runs" }).click();
  await expect(admin.getByRole("heading", { name: "Runs of Max Member" })).toBeVisible();
  await admin.getByRole("link", { name: `Run ${runId}`, exact: true }).click();
  await expect(admin).toHaveURL(runPath);
  await expect(fact(admin, "Member")).toContainText("member@acme.test");
  await expect(admin.getByRole("list", { name: "Timeline" }).getByTestId("timeline-entry").first()).toContainText(TOOL_MESSAGE);
  await admin.screenshot({ path: shot("admin"), fullPage: true });

  // Another tenant's admin: the same id is not found, and nothing of the run shows.
  const globex = await signedIn(browser, "admin@globex.test");
  await globex.goto(runPath);
  await expect(globex.getByRole("alert").filter({ hasText: "no such run" })).toHaveText("There is no such run here.");
  await expect(globex.getByText(TOOL_MESSAGE)).toHaveCount(0);
});
