// A tenant's own tools end to end: an admin registers a remote MCP server (a loopback one started
// here) and writes a skill on /admin/tools; a member's chat run calls the server's tool, and the
// composer's `/` picker forces the skill. Remote pass only (see playwright.config.ts: the embedded
// production build refuses loopback outbound calls).
import { expect, test } from "@playwright/test";
import { startMcpServer, type McpTestServer } from "../helpers/mcp-server";
import { CapsPage } from "./pages/admin-pages";
import { AgentsPage } from "./pages/agent-pages";
import { ChatPage } from "./pages/chat-page";
import { signedIn } from "./pages/sign-in-page";
import { AdminToolsPage } from "./pages/tools-page";

let mcp: McpTestServer;
test.beforeAll(async () => {
  mcp = await startMcpServer();
});

// Later specs expect a workspace without tool servers or skills.
test.afterAll(async ({ browser }) => {
  const admin = await signedIn(browser, "admin@acme.test");
  const tools = new AdminToolsPage(admin);
  await tools.goto();
  await tools.server("Helpdesk").getByRole("button", { name: "Delete Helpdesk" }).click();
  await expect(tools.server("Helpdesk")).toHaveCount(0);
  await tools.skill("weekly-report").getByRole("button", { name: "Delete Weekly report" }).click();
  await expect(tools.skill("weekly-report")).toHaveCount(0);
  await mcp.close();
});

test("an admin registers an MCP server and a skill; a member's chat calls the tool and forces the skill from the / picker", async ({ browser }) => {
  test.setTimeout(90_000);
  const agentName = `Helpdesk agent ${Date.now().toString(36)}`;
  const admin = await signedIn(browser, "admin@acme.test");
  // agents-and-quota.spec.ts capped the member at two runs, both used.
  const caps = new CapsPage(admin);
  await caps.goto();
  await caps.setMemberRuns("member@acme.test", "100");
  await expect(caps.memberRow("member@acme.test").getByTestId("effective-cap")).toContainText("/ 100 runs");
  const agents = new AgentsPage(admin);
  await agents.goto();
  await agents.define(agentName, "Help with the helpdesk's tools.");
  await expect(agents.rows().filter({ hasText: agentName })).toHaveCount(1);

  const tools = new AdminToolsPage(admin);
  await tools.goto();
  await tools.addMcpServer("Helpdesk", mcp.url);
  await expect(tools.server("Helpdesk").getByTestId("tool-server-status")).toHaveText("Ready");
  await expect(tools.server("Helpdesk").getByRole("list", { name: "Tools of Helpdesk" })).toContainText("echo");
  await tools.addSkill("Weekly report", "Write the weekly report", "Start with the week's wins, then the open tickets.");
  await expect(tools.skill("weekly-report")).toContainText("Weekly report");
  await admin.screenshot({ path: "test-results/tools-admin.png", fullPage: true });

  const member = await signedIn(browser, "member@acme.test");
  // Autonomous for this chat: the agent was defined in the spec's default (approval) mode, and this
  // test is about the tool server, not approvals.
  const chat = await ChatPage.open(member, { agent: agentName, mode: "autonomous" });
  const echoesBefore = mcp.calls.echo ?? 0;
  await chat.send('::tool *__echo {"text":"asked from the chat"}');
  await expect(chat.lastAnswer()).toContainText(/Tool srv\d+__echo returned .*asked from the chat/, { timeout: 20_000 });
  expect(mcp.calls.echo).toBe(echoesBefore + 1);

  // The picker offers the skill for a leading slash; Enter takes it.
  await chat.idle();
  await chat.input().fill("/week");
  const option = member.getByRole("option", { name: /\/weekly-report/ });
  await expect(option).toBeVisible();
  // Still the textbox "Message" (other specs find it so), pointing at the active option.
  await expect(member.getByRole("textbox", { name: "Message" })).toHaveAttribute("aria-activedescendant", (await option.getAttribute("id"))!);
  await member.screenshot({ path: "test-results/tools-picker.png" });
  await chat.input().press("Enter");
  await expect(chat.input()).toHaveValue("/weekly-report ");
  await expect(option).toHaveCount(0);
  // The sim model's ::skill reports the playbook that reached it.
  await chat.input().press("Shift+Enter");
  await chat.input().pressSequentially("::skill");
  await chat.input().press("Enter");
  await expect(chat.lastAnswer()).toContainText("Skill Weekly report: The person invoked the skill /weekly-report", { timeout: 20_000 });
  await expect(chat.lastAnswer()).toContainText("Start with the week's wins");
});
