import { expect, test } from "@playwright/test";
import { AgentsPage, ChatPage } from "./pages/agent-pages";
import { CapsPage } from "./pages/admin-pages";
import { signedIn } from "./pages/sign-in-page";

/** The micro-USD of an amount's exact figure (its title, "… exactly $0.000473" or "Exactly $0.003710"). */
function exactMicros(title: string | null): number {
  const match = /xactly \$([\d,]+)\.(\d{6})/.exec(title ?? "");
  if (!match) throw new Error(`no exact amount in ${JSON.stringify(title)}`);
  return Number(match[1]!.replaceAll(",", "")) * 1_000_000 + Number(match[2]);
}


test("an admin defines an agent; a member chats with their copy under a cap; globex sees none of it", async ({ browser }) => {
  test.setTimeout(120_000);
  const agentName = `Echo helper ${Date.now().toString(36)}`;

  // The acme admin defines a workspace agent.
  const admin = await signedIn(browser, "admin@acme.test");
  const adminAgents = new AgentsPage(admin);
  await adminAgents.goto();
  await adminAgents.define(agentName, "Repeat what the member says.");
  await expect(adminAgents.rows().filter({ hasText: agentName })).toHaveCount(1);
  await admin.screenshot({ path: "test-results/agents-admin-defined.png", fullPage: true });

  // The member chats with their copy (the sim model echoes) and sees their quota move.
  const member = await signedIn(browser, "member@acme.test");
  const memberAgents = new AgentsPage(member);
  await memberAgents.goto();
  await expect(member.getByRole("heading", { name: "Create a personal agent" })).toHaveCount(0);
  await memberAgents.openChat(agentName);
  const chat = new ChatPage(member);
  await expect(chat.memberRuns()).toHaveText(/^0 of \d+ runs$/);
  await chat.send("hello from the e2e test");
  await expect(chat.replies().first()).toContainText("hello from the e2e test", { timeout: 20_000 });
  await expect(chat.memberRuns()).toHaveText(/^1 of \d+ runs$/);
  await member.screenshot({ path: "test-results/agents-member-chat.png", fullPage: true });

  // The admin caps the member at 2 runs a month.
  const caps = new CapsPage(admin);
  await caps.goto();
  await caps.setMemberRuns("member@acme.test", "2");
  await expect(admin.getByTestId("member-cap").filter({ hasText: "member@acme.test" }).getByTestId("effective-cap")).toContainText("/ 2 runs");

  // After a reload the conversation is still there (the chat keeps it for the tab). A reply continues
  // the run: admitted, and still one run (the meter is read again after the turn, and says so).
  await member.reload();
  await expect(chat.memberRuns()).toHaveText("1 of 2 runs");
  await expect(chat.replies()).toHaveCount(1);
  const refreshed = member.waitForResponse((response) => response.url().includes("usage.mine"));
  await chat.send("second message");
  await expect(chat.replies()).toHaveCount(2, { timeout: 20_000 });
  await expect(chat.replies().last()).toContainText("second message", { timeout: 20_000 });
  await refreshed;
  await expect(chat.memberRuns()).toHaveText("1 of 2 runs");

  // Each answer's footer is what that message cost (exact on hover), and the two add up to the run's
  // cost as /runs lists it; /runs's total is the exact sum of its rows, and it says they are rounded.
  const footers = chat.replies().locator('[data-usage="message"]');
  await expect(footers).toHaveCount(2);
  const footerMicros = await Promise.all([0, 1].map(async (index) => exactMicros(await footers.nth(index).getAttribute("title"))));
  const runs = await member.context().newPage();
  await runs.goto("/runs");
  const newest = runs.getByTestId("run-row").first();
  await expect(newest).toContainText("hello from the e2e test");
  const runMicros = exactMicros(await newest.locator("[title^='Exactly']").getAttribute("title"));
  expect(footerMicros[1]).toBeLessThan(runMicros);
  expect(footerMicros[0]! + footerMicros[1]!).toBe(runMicros);
  const rowMicros = await runs.getByTestId("run-row").locator("[title^='Exactly']").evaluateAll((cells) => cells.map((cell) => cell.getAttribute("title")));
  const total = runs.getByTestId("runs-total").locator("[title^='Exactly']");
  expect(exactMicros(await total.getAttribute("title"))).toBe(rowMicros.reduce((sum, title) => sum + exactMicros(title), 0));
  await expect(runs.getByTestId("runs-rounding")).toContainText("rounded");
  await runs.close();

  // A new conversation is the second run; past the cap, a reply is refused with a message naming it.
  await member.getByRole("button", { name: "New chat" }).click();
  await chat.send("third message");
  await expect(chat.replies().last()).toContainText("third message", { timeout: 20_000 });
  await expect(chat.memberRuns()).toHaveText("2 of 2 runs");
  await chat.send("fourth message");
  await expect(chat.error()).toContainText("monthly run cap");
  await expect(chat.error()).toContainText("2 of 2");
  await member.screenshot({ path: "test-results/agents-member-refused.png", fullPage: true });

  // The admin's usage page shows the member's runs.
  await admin.goto("/admin/usage");
  const memberRow = admin.getByTestId("usage-row").filter({ hasText: "member@acme.test" });
  await expect(memberRow).toContainText("2 / 2");
  await expect(admin.getByTestId("usage-chart")).toBeVisible();
  await admin.screenshot({ path: "test-results/agents-admin-usage.png", fullPage: true });

  // globex's admin sees none of it.
  const agentUrl = member.url();
  const globex = await signedIn(browser, "admin@globex.test");
  const globexAgents = new AgentsPage(globex);
  await globexAgents.goto();
  await expect(globexAgents.rows().filter({ hasText: agentName })).toHaveCount(0);
  await expect(globexAgents.rows().filter({ hasText: "Acme assistant" })).toHaveCount(0);
  await globex.goto("/admin/usage");
  await expect(globex.getByTestId("usage-row").first()).toBeVisible();
  await expect(globex.getByTestId("usage-table")).not.toContainText("acme.test");
  await globex.goto(new URL(agentUrl).pathname);
  await expect(globex.getByRole("main").getByRole("alert")).toContainText("No such agent.");
  await globex.screenshot({ path: "test-results/agents-globex-isolated.png", fullPage: true });
});
