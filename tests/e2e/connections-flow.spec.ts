// The whole connect flow through the platform's Apps endpoints: the built-in code host pointed at a
// loopback OAuth server (sign-in and consent happen by themselves) and a code-host fake, started with
// the separate platform by tests/e2e/support/platform-with-apps.ts. Remote pass only (see
// playwright.config.ts: the embedded production build refuses loopback outbound calls).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { AdminAppsPage, ConnectionsPage } from "./pages/connections-page";
import { signedIn, signInAs } from "./pages/sign-in-page";

// connections.spec.ts expects a workspace that offers nothing: take the offer back.
test.afterAll(async ({ browser }) => {
  const admin = await signedIn(browser, "admin@acme.test");
  const apps = new AdminAppsPage(admin);
  await apps.goto();
  await apps.offer("codehost", false);
});

test("an admin offers codehost; a member connects it in a popup, renames and disconnects it", async ({ browser }) => {
  test.setTimeout(60_000);
  const admin = await signedIn(browser, "admin@acme.test");
  const apps = new AdminAppsPage(admin);
  await apps.goto();
  await apps.offer("codehost");

  const member = await signedIn(browser, "member@acme.test");
  const connections = new ConnectionsPage(member);
  await connections.goto();
  await expect(connections.status("codehost")).toHaveText("Not connected");
  const popupOpened = member.waitForEvent("popup");
  await connections.app("codehost").getByRole("button", { name: "Connect" }).click();
  // The OAuth server signs in and consents by itself; the callback page posts here and closes.
  const popup = await popupOpened;
  await expect.poll(() => popup.isClosed()).toBe(true);
  await expect(connections.notice()).toHaveText("Code host is connected.");
  await expect(connections.status("codehost")).toHaveAttribute("data-status", "connected");
  await expect(connections.status("codehost")).toContainText("Connected as ");
  await member.screenshot({ path: "test-results/connections-member.png", fullPage: true });

  const row = connections.app("codehost").getByTestId("connection");
  await row.getByRole("button", { name: "Rename" }).click();
  await row.getByLabel("Label").fill("Work account");
  await row.getByRole("button", { name: "Save" }).click();
  await expect(row.getByTestId("connection-label")).toHaveText("Work account");
  // One connection, one way to end it: the app's Disconnect, not a Remove beside it as well.
  await expect(row.getByRole("button", { name: "Remove" })).toHaveCount(0);
  await expect(connections.app("codehost").getByRole("button", { name: /disconnect|remove/i })).toHaveCount(1);

  await apps.goto();
  await expect(apps.memberRow("Max Member")).toContainText("Connected");

  // Disconnect asks first; Cancel leaves the connection alone.
  await connections.goto();
  await connections.app("codehost").getByRole("button", { name: "Disconnect", exact: true }).click();
  const question = connections.app("codehost").getByRole("group", { name: "Disconnect Code host?" });
  await expect(question).toBeVisible();
  // The confirming button is red (the danger token), not the ghost button's text colour.
  const danger = await member.evaluate(() => {
    const probe = document.createElement("span");
    probe.style.color = "var(--color-danger)";
    document.body.append(probe);
    const color = getComputedStyle(probe).color;
    probe.remove();
    return color;
  });
  await expect(question.getByRole("button", { name: "Yes, disconnect" })).toHaveCSS("color", danger);
  await question.getByRole("button", { name: "Cancel" }).click();
  await expect(question).toHaveCount(0);
  await expect(connections.status("codehost")).toHaveAttribute("data-status", "connected");

  await connections.disconnect("codehost");
  await expect(connections.status("codehost")).toHaveAttribute("data-status", "not_connected");
});

test("with popups blocked, the page itself goes through the app's sign-in and comes back", async ({ browser }) => {
  test.setTimeout(60_000);
  const member = await signedIn(browser, "member@acme.test");
  await member.addInitScript(() => {
    window.open = () => null;
  });
  const connections = new ConnectionsPage(member);
  await connections.goto();
  await connections.app("codehost").getByRole("button", { name: /Connect|Reconnect/ }).click();
  await expect(member).toHaveURL("/connections");
  await expect(connections.notice()).toHaveText("Code host is connected.");
  await expect(connections.status("codehost")).toHaveAttribute("data-status", "connected");
  await connections.disconnect("codehost");
  await expect(connections.status("codehost")).toHaveAttribute("data-status", "not_connected");
});

test("a run that needs codehost shows a connect card; connecting resumes it in the same chat", async ({ browser }) => {
  test.setTimeout(90_000);
  // The admin chats here (an admin is a member too): agents-and-quota.spec.ts uses up
  // member@acme.test's monthly cap of 2 runs earlier in the same database.
  const member = await signedIn(browser, "admin@acme.test");
  // Any agent: runs name the apps the tenant offers, so the call pauses for the connection.
  const agentWithCodehost = "Acme assistant";
  const chat = await ChatPage.open(member, { agent: agentWithCodehost, mode: "autonomous" });
  await chat.send('::tool codehost__list_repos {}');
  const card = chat.lastAnswer().getByTestId("connection-card");
  await expect(card).toContainText("Code host isn't connected");
  const popupOpened = member.waitForEvent("popup");
  await card.getByRole("button", { name: "Connect" }).click();
  await popupOpened;
  await expect(card).toContainText("Connected", { timeout: 20_000 });
  // The card's headline follows: it no longer says the app isn't connected.
  await expect(card).toContainText("Code host is connected");
  await expect(card).not.toContainText("isn't connected");
  await expect(chat.lastAnswer()).toContainText("codehost__list_repos returned", { timeout: 20_000 });

  // The tool acted with the member's connection, now listed as connected; disconnect it again.
  const connections = new ConnectionsPage(member);
  await connections.goto();
  await expect(connections.status("codehost")).toHaveAttribute("data-status", "connected");
  await connections.disconnect("codehost");
  await expect(connections.status("codehost")).toHaveAttribute("data-status", "not_connected");
});

test("inside the cross-origin embed, the popup hands the grant back and the run goes on", async ({ browser, baseURL }) => {
  test.setTimeout(90_000);
  const adminContext = await browser.newContext({ baseURL });
  const adminPage = await adminContext.newPage();
  await signInAs(adminPage, "admin@acme.test");
  const admin = adminContext.request;
  // A host page on another origin (127.0.0.1, not localhost) whose backend mints the embed's tokens.
  let hostOrigin = "";
  const host = http.createServer(async (request, response) => {
    if (request.url === "/token") {
      const minted = await admin.post("/api/embed/token", { data: { origin: hostOrigin, agent: "Acme assistant", tenant: "acme" } });
      response.writeHead(minted.status(), { "content-type": "application/json" });
      response.end(await minted.text());
      return;
    }
    response.writeHead(200, { "content-type": "text/html" });
    response.end(`<!doctype html><html><head><title>Acme Store</title></head><body><h1>Store</h1>
<script>window.InlayEmbed = { getToken: () => fetch("/token", { method: "POST" }).then((r) => r.json()).then((j) => j.token) };</script>
<script src="${baseURL}/embed.js" data-agent="Acme assistant" data-tenant="acme" data-title="Acme help" async></script></body></html>`);
  });
  await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
  hostOrigin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
  try {
    expect((await admin.put("/api/embed/origins", { data: { origins: [hostOrigin] } })).status()).toBe(200);
    const apps = new AdminAppsPage(adminPage);
    await apps.goto();
    await apps.offer("codehost");

    const visitor = await browser.newContext();
    const page = await visitor.newPage();
    await page.goto(hostOrigin);
    await page.getByRole("button", { name: "Chat with us" }).click();
    const chat = new ChatPage(page.frameLocator("iframe"));
    await expect(chat.input()).toBeEnabled();
    await chat.send("::tool codehost__list_repos {}");
    const card = chat.lastAnswer().getByTestId("connection-card");
    await expect(card).toContainText("Code host isn't connected");
    const popupOpened = page.waitForEvent("popup");
    await card.getByRole("button", { name: "Connect" }).click();
    // No Inlay session in this browser: the callback page hands the grant to the iframe, which completes it.
    const popup = await popupOpened;
    await expect.poll(() => popup.isClosed(), { timeout: 20_000 }).toBe(true);
    await expect(card).toContainText("Connected", { timeout: 20_000 });
    // The embed's agent asks before a tool runs (approval mode): connecting answered the connection
    // only, and the call now asks for its own approval before it runs.
    const approval = page.frameLocator("iframe").getByRole("region", { name: "Approve codehost__list_repos" });
    await expect(approval).toBeVisible({ timeout: 20_000 });
    await expect(chat.lastAnswer()).not.toContainText("codehost__list_repos returned");
    await approval.getByRole("button", { name: "Allow once" }).click();
    await expect(chat.lastAnswer()).toContainText("codehost__list_repos returned", { timeout: 20_000 });
    await visitor.close();
  } finally {
    await new Promise<void>((resolve) => host.close(() => resolve()));
    await adminContext.close();
  }
});
