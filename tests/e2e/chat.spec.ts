// The chat end to end: streaming, approvals, questions, Stop, reload mid-run, and the script-tag embed
// on a host page of another origin (127.0.0.1 vs localhost) with no cookies for Inlay's origin.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { expect, test, type APIRequestContext, type Response } from "@playwright/test";
import { ChatPage } from "./pages/chat-page";
import { SignInPage, signInAs } from "./pages/sign-in-page";

const shot = (name: string) => `test-results/chat-${name}.png`;
let counter = 0;
const agentName = (label: string) => `${label}-${Date.now().toString(36)}-${++counter}`;

test.describe("chat", () => {
  // The acme admin: it may make personal agents (each test names a fresh one), and the earlier
  // agents-and-quota spec caps member@acme.test at two runs.
  test.beforeEach(async ({ page }) => signInAs(page, "admin@acme.test"));

  test("the full chat page loads the widget alone, and signs out", async ({ page }) => {
    // The scripts of the first load, gzipped as the bench counts them (issue #7).
    const scripts: Promise<{ path: string; gzip: number }>[] = [];
    const record = (response: Response) => {
      if (response.request().resourceType() !== "script") return;
      scripts.push(response.body().then((body) => ({ path: new URL(response.url()).pathname, gzip: gzipSync(body, { level: 9 }).length })));
    };
    page.on("response", record);
    const chat = await ChatPage.open(page, { agent: agentName("Page") });
    page.off("response", record);
    const firstLoad = await Promise.all(scripts);
    expect(firstLoad.length).toBeGreaterThan(0);
    expect(firstLoad.filter((script) => !script.path.startsWith("/embed-app/"))).toEqual([]);
    expect(firstLoad.reduce((sum, script) => sum + script.gzip, 0)).toBeLessThanOrEqual(120 * 1024);
    await expect(page.getByTestId("signed-in-as")).toHaveText("admin@acme.test");
    await chat.send("hello");
    await expect(chat.lastAnswer()).toContainText("Echo: hello");
    await page.screenshot({ path: shot("page") });

    const here = new URL(page.url());
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL("/signin");
    // Signed out, the page sends the visitor to sign in, and back to it afterwards.
    await page.goto(here.pathname + here.search);
    await expect(page).toHaveURL(`/signin?callbackUrl=${encodeURIComponent(here.pathname + here.search)}`);
    await new SignInPage(page).signIn("admin@acme.test", "inlay-demo");
    await expect(page).toHaveURL(here.pathname + here.search);
    await expect(chat.input()).toBeEnabled();
  });

  test("a conversation kept in the tab is never shown to the next person who signs in there", async ({ page }) => {
    // The same agent name in two workspaces: the keys a chat kept its conversation under used to
    // name only the agent, so the next person saw the first one's conversation.
    const agent = agentName("Shared");
    const acme = await ChatPage.open(page, { agent });
    await acme.send("the acme secret");
    await expect(acme.lastAnswer()).toContainText("Echo: the acme secret");
    await page.reload();
    await expect(acme.turns().first()).toContainText("the acme secret"); // kept for its own person

    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL("/signin");
    expect(await page.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith("inlay-chat:")))).toEqual([]);

    await new SignInPage(page).signIn("admin@globex.test", "inlay-demo");
    await expect(page).toHaveURL("/");
    const globex = await ChatPage.open(page, { agent });
    await expect(globex.turns()).toHaveCount(0);
    await expect(page.getByText("the acme secret")).toHaveCount(0);
    expect(await page.evaluate(() => JSON.stringify(sessionStorage))).not.toContain("the acme secret");
  });

  test("the full chat page without an agent opens the member's first agent", async ({ page }) => {
    // The nav's Chat entry: no agent to pick first (with none at all, it sends the member to Agents).
    await page.goto("/chat");
    await expect(page).toHaveURL("/chat");
    await expect(new ChatPage(page).input()).toBeEnabled();
    await expect(page.locator(".ic-header-title")).toHaveText("Acme assistant");
  });

  test("an agent page's full chat names the agent in its header, not its id", async ({ page }) => {
    await page.goto("/agents");
    await page.getByRole("link", { name: "Chat with Acme assistant" }).click();
    await expect(page).toHaveURL(/\/agents\/[^/]+\/chat$/);
    const id = new URL(page.url()).pathname.split("/")[2]!;
    await page.getByRole("link", { name: "Open the full chat" }).click();
    await expect(page).toHaveURL(`/chat?agent=${id}`);
    await expect(new ChatPage(page).input()).toBeEnabled();
    await expect(page.locator(".ic-header-title")).toHaveText("Acme assistant");
    await expect(page.locator(".inlay-chat")).not.toContainText(id);
  });

  test("streams text before the run ends", async ({ page }) => {
    const chat = await ChatPage.open(page, { agent: agentName("Stream") });
    // 500 ms a word: still running when the first word is seen, even on a busy machine (the other
    // Playwright pass runs beside this one).
    await chat.send("::delay 500\none two three four five six seven eight");
    await expect(chat.lastAnswer()).toContainText("Echo: one");
    // Still running: Stop is offered while the first words are already on screen.
    await expect(chat.stopButton()).toBeVisible();
    await page.screenshot({ path: shot("streaming") });
    await expect(chat.lastAnswer()).toContainText("Echo: one two three four five six seven eight", { timeout: 15_000 });
    await expect(chat.stopButton()).toBeHidden();
  });

  test("a stream the server ends because it drains reattaches at once: the whole answer once, no error", async ({ page }) => {
    const chat = await ChatPage.open(page, { agent: agentName("Drain") });
    // The POST's stream is cut after its second word and ends as a draining instance ends it
    // (server/framework/lifecycle.ts); the reattachment (GET /api/chat) goes to the server as is.
    let reattached = 0;
    page.on("request", (request) => {
      if (request.method() === "GET" && new URL(request.url()).pathname === "/api/chat") reattached++;
    });
    await page.route("**/api/chat", async (route) => {
      if (route.request().method() !== "POST") return route.fallback();
      const response = await route.fetch();
      const events = (await response.text()).split("\n\n").filter((event) => event.startsWith("data: "));
      const kept: string[] = [];
      let words = 0;
      for (const event of events) {
        if (event === "data: [DONE]") break;
        kept.push(event);
        if (JSON.parse(event.slice(6)).type === "text-delta" && ++words === 2) break;
      }
      const interrupted = { type: "finish", finishReason: "other", messageMetadata: { interrupted: "draining" } };
      const body = [...kept, `data: ${JSON.stringify(interrupted)}`, "data: [DONE]"].join("\n\n") + "\n\n";
      await route.fulfill({ status: 200, headers: response.headers(), body });
    });
    await chat.send("alpha beta gamma delta epsilon");
    await expect(chat.lastAnswer()).toHaveText(/Echo: alpha beta gamma delta epsilon/);
    expect(await chat.lastAnswer().innerText()).not.toMatch(/alpha.*alpha/s);
    expect(reattached).toBeGreaterThan(0);
    await expect(page.getByRole("alert")).toHaveCount(0);
  });

  test("renders the agent's markdown: a table, a code block, lists and safe links", async ({ page }) => {
    const chat = await ChatPage.open(page, { agent: agentName("Markdown") });
    // The sim model echoes the message, so the answer is this markdown.
    await chat.send(
      "A table:\n\n| tool | runs |\n|---|---|\n| search | 42 |\n\n```ts\nconst answer = 42;\n```\n\n- one\n- two\n\n[docs](https://example.com/docs) and [trap](javascript:alert(1))",
    );
    const answer = chat.lastAnswer();
    await expect(answer.getByRole("table")).toContainText("search");
    await expect(answer.getByRole("cell", { name: "42" })).toBeVisible();
    const code = answer.locator(".ic-code");
    await expect(code.locator(".ic-code-bar")).toContainText("ts");
    await expect(code.locator("pre code")).toHaveText("const answer = 42;\n");
    await expect(answer.getByRole("listitem")).toHaveText(["one", "two"]);
    const docs = answer.getByRole("link", { name: "docs" });
    await expect(docs).toHaveAttribute("href", "https://example.com/docs");
    await expect(docs).toHaveAttribute("target", "_blank");
    await expect(answer.getByText("trap")).toBeVisible();
    await expect(answer.locator('a[href^="javascript"], a[href^="JAVASCRIPT"]')).toHaveCount(0);
    await page.screenshot({ path: shot("markdown") });
  });

  test("asks for approval before a tool runs, then shows its result", async ({ page }) => {
    const chat = await ChatPage.open(page, { agent: agentName("Approve"), mode: "approval" });
    await chat.send('::tool calculator {"expression":"6*7"}');
    const card = page.getByRole("region", { name: "Approve calculator" });
    await expect(card).toContainText('"expression": "6*7"');
    const call = page.locator(".ic-tool", { hasText: "calculator" });
    await expect(call).toContainText("Waiting for approval");
    await page.screenshot({ path: shot("approval") });
    await card.getByRole("button", { name: "Allow once" }).click();
    await expect(chat.lastAnswer()).toContainText('Tool calculator returned {"result":42}');
    await expect(card).toContainText("Allowed");
    await expect(call).toContainText("Done");
  });

  test("asks for approval on a follow-up message too: every turn honours the agent's mode", async ({ page }) => {
    const chat = await ChatPage.open(page, { agent: agentName("FollowUp"), mode: "approval" });
    await chat.send("hi");
    await expect(chat.lastAnswer()).toContainText("Echo: hi");
    await chat.send('::tool calculator {"expression":"5*5"}');
    const card = page.getByRole("region", { name: "Approve calculator" });
    await expect(card).toContainText('"expression": "5*5"');
    await expect(page.locator(".ic-tool", { hasText: "calculator" })).toContainText("Waiting for approval");
    await card.getByRole("button", { name: "Deny" }).click();
    await expect(card).toContainText("Denied");
    await expect(chat.lastAnswer()).toContainText("Tool calculator was denied");
    await expect(chat.lastAnswer()).not.toContainText('"result":25');
  });

  test("answers the agent's question from the card", async ({ page }) => {
    const chat = await ChatPage.open(page, { agent: agentName("Ask") });
    await chat.send("::ask Which colour? | Red | Blue");
    const card = page.getByRole("region", { name: "Question from the agent" });
    await card.getByRole("radio", { name: "Blue" }).click();
    await page.screenshot({ path: shot("question") });
    await card.getByRole("button", { name: "Send answer" }).click();
    await expect(chat.lastAnswer()).toContainText("You chose Blue");
  });

  test("Stop cancels the run and keeps what was said", async ({ page }) => {
    const chat = await ChatPage.open(page, { agent: agentName("Stop") });
    await chat.send("::delay 200\n::words 40");
    await expect(chat.lastAnswer()).toContainText("alpha");
    await chat.input().press("Escape");
    await expect(chat.lastAnswer()).toContainText("Stopped");
    await expect(chat.stopButton()).toBeHidden();
    await page.screenshot({ path: shot("stopped") });
  });

  test("a reload mid-run shows the whole answer once", async ({ page }) => {
    const agent = agentName("Reload");
    const chat = await ChatPage.open(page, { agent });
    await chat.send("::delay 400\none two three four five six seven eight nine ten");
    await expect(chat.lastAnswer()).toContainText("Echo: one");
    await page.reload();
    const again = new ChatPage(page);
    await expect(again.lastAnswer()).toContainText("Echo: one two three four five six seven eight nine ten", { timeout: 20_000 });
    await expect(page.locator('article[data-role="assistant"]')).toHaveCount(1);
    await expect(page.getByText("Echo: one", { exact: false })).toHaveCount(1);
    await page.screenshot({ path: shot("reloaded") });
  });

  test("History reopens a past conversation, which a reply continues", async ({ page }) => {
    const chat = await ChatPage.open(page, { agent: agentName("History") });
    await chat.send("remember the lighthouse");
    await expect(chat.lastAnswer()).toContainText("Echo: remember the lighthouse");
    await page.getByRole("button", { name: "New chat" }).click();
    await expect(page.locator('article[data-role="assistant"]')).toHaveCount(0);

    await page.getByRole("button", { name: "History" }).click();
    const past = page.getByRole("region", { name: "Past conversations" });
    const first = past.getByRole("button").first();
    // Listed by the person's first message, not the agent's answer.
    await expect(first.locator(".ic-history-preview")).toHaveText("remember the lighthouse");
    await expect(first).toBeFocused();
    await page.screenshot({ path: shot("history") });
    await first.press("Enter");
    await expect(past).toBeHidden();
    // Both sides: the person's own words, then the agent's answer.
    const turns = chat.turns();
    await expect(turns).toHaveCount(2);
    await expect(turns.nth(0)).toHaveAttribute("data-role", "user");
    await expect(turns.nth(0)).toHaveText("remember the lighthouse");
    await expect(turns.nth(1)).toContainText("Echo: remember the lighthouse");

    await chat.send("and the harbour");
    await expect(chat.lastAnswer()).toContainText("Echo: and the harbour");
    // A reply on the same run: the history still holds one conversation.
    await page.getByRole("button", { name: "History" }).click();
    await expect(past.getByRole("button")).toHaveCount(1);
    // Still by its first message, whatever was said since.
    await expect(past.getByRole("button").first().locator(".ic-history-preview")).toHaveText("remember the lighthouse");
    // Reopened from a new chat, the reply is there too, in order.
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "New chat" }).click();
    await expect(turns).toHaveCount(0);
    await page.getByRole("button", { name: "History" }).click();
    await past.getByRole("button").first().press("Enter");
    await expect(turns).toHaveCount(4);
    await expect(turns.nth(0)).toHaveText("remember the lighthouse");
    await expect(turns.nth(1)).toContainText("Echo: remember the lighthouse");
    await expect(turns.nth(2)).toHaveAttribute("data-role", "user");
    await expect(turns.nth(2)).toHaveText("and the harbour");
    await expect(turns.nth(3)).toContainText("Echo: and the harbour");
    await page.screenshot({ path: shot("history-reopened") });
  });

  test("History reopens a conversation waiting for an approval, which is given there", async ({ page }) => {
    const agent = agentName("Waiting");
    const chat = await ChatPage.open(page, { agent, mode: "approval" });
    await chat.send('::tool calculator {"expression":"6*7"}');
    await expect(page.getByRole("region", { name: "Approve calculator" })).toBeVisible();

    // Another tab (its own sessionStorage) starts empty and finds the waiting conversation in History.
    const other = await page.context().newPage();
    const again = await ChatPage.open(other, { agent, mode: "approval" });
    await other.getByRole("button", { name: "History" }).click();
    const item = other.getByRole("region", { name: "Past conversations" }).getByRole("button").first();
    await expect(item).toContainText("Waiting for you");
    await item.press("Enter");
    await expect(again.turns().nth(0)).toHaveText('::tool calculator {"expression":"6*7"}');
    const card = other.getByRole("region", { name: "Approve calculator" });
    await card.getByRole("button", { name: "Allow once" }).click();
    await expect(again.lastAnswer()).toContainText('Tool calculator returned {"result":42}');
    await expect(card).toContainText("Allowed");
    await expect(again.turns()).toHaveCount(2);
    await other.close();
  });
});

test.describe("embed", () => {
  let host: http.Server;
  let hostOrigin: string;
  let admin: APIRequestContext;
  /** Which origin the host page's backend asks tokens for (another allowed one, to test refusal). */
  let tokenOrigin: string;

  test.beforeAll(async ({ browser, baseURL }) => {
    const context = await browser.newContext({ baseURL });
    const page = await context.newPage();
    await signInAs(page, "admin@acme.test");
    admin = context.request;
    host = http.createServer(async (request, response) => {
      if (request.url === "/token") {
        const minted = await admin.post("/api/embed/token", { data: { origin: tokenOrigin, agent: "Acme assistant", tenant: "acme" } });
        response.writeHead(minted.status(), { "content-type": "application/json" });
        response.end(await minted.text());
        return;
      }
      response.writeHead(200, { "content-type": "text/html" });
      response.end(`<!doctype html><html><head><title>Acme Store</title></head><body style="margin:0;font-family:system-ui;background:#f3f4f6">
<header style="background:#0f766e;color:#fff;padding:18px 32px;font-weight:600">Acme Store</header><main style="padding:32px"><h1>Spring sale</h1></main>
<script>window.InlayEmbed = { getToken: () => fetch("/token", { method: "POST" }).then((r) => r.json()).then((j) => j.token) };</script>
<script src="${baseURL}/embed.js" data-agent="Acme assistant" data-tenant="acme" data-title="Acme help" data-color="#0f766e" async></script></body></html>`);
    });
    await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
    hostOrigin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
    const saved = await admin.put("/api/embed/origins", { data: { origins: [hostOrigin, "http://127.0.0.1:1"] } });
    expect(saved.status()).toBe(200);
  });
  test.afterAll(() => new Promise<void>((resolve) => host.close(() => resolve())));

  test("works on a page of another origin with no Inlay cookie", async ({ browser, baseURL }) => {
    tokenOrigin = hostOrigin;
    const visitor = await browser.newContext();
    const page = await visitor.newPage();
    // The scripts the chat frame loads, with their size gzipped as the bench counts it (issue #7).
    const frameScripts: Promise<{ path: string; gzip: number }>[] = [];
    page.on("response", (response) => {
      const request = response.request();
      if (request.resourceType() !== "script" || request.frame() === page.mainFrame()) return;
      frameScripts.push(response.body().then((body) => ({ path: new URL(response.url()).pathname, gzip: gzipSync(body, { level: 9 }).length })));
    });
    await page.goto(hostOrigin);
    await page.getByRole("button", { name: "Chat with us" }).click();
    const chat = new ChatPage(page.frameLocator("iframe"));
    await expect(chat.input()).toBeEnabled(); // the token handshake is done
    // The widget bundle alone (server/framework/embed/page.ts), not Next's client runtime, within the budget.
    const firstLoad = await Promise.all(frameScripts);
    expect(firstLoad.length).toBeGreaterThan(0);
    expect(firstLoad.filter((script) => !script.path.startsWith("/embed-app/"))).toEqual([]);
    expect(firstLoad.reduce((sum, script) => sum + script.gzip, 0)).toBeLessThanOrEqual(120 * 1024);
    await chat.send("Hi from the store");
    await expect(chat.lastAnswer()).toContainText("Echo: Hi from the store");
    await page.screenshot({ path: shot("embed") });
    // A follow-up asks before a tool runs, as the first message would (the agent's approval mode).
    await chat.send('::tool calculator {"expression":"2+3"}');
    const approval = page.frameLocator("iframe").getByRole("region", { name: "Approve calculator" });
    await expect(approval).toContainText('"expression": "2+3"');
    await approval.getByRole("button", { name: "Allow once" }).click();
    await expect(chat.lastAnswer()).toContainText('Tool calculator returned {"result":5}');
    // In the narrow frame, the History panel stays inside the chat (it used to run off its left side).
    await page.frameLocator("iframe").getByRole("button", { name: "History" }).click();
    const panel = page.frameLocator("iframe").getByRole("region", { name: "Past conversations" });
    await expect(panel.getByText("Hi from the store")).toBeVisible();
    const [frameBox, panelBox] = [await page.locator("iframe").boundingBox(), await panel.boundingBox()];
    expect(panelBox!.x).toBeGreaterThanOrEqual(frameBox!.x);
    expect(panelBox!.x + panelBox!.width).toBeLessThanOrEqual(frameBox!.x + frameBox!.width);
    await page.screenshot({ path: shot("embed-history") });
    expect(await visitor.cookies(baseURL)).toEqual([]);
    const embedPage = await visitor.request.get(`/embed/Acme%20assistant?tenant=acme&host=${encodeURIComponent(hostOrigin)}`);
    expect(embedPage.headers()["content-security-policy"]).toBe(
      `frame-ancestors 'self' ${hostOrigin} http://127.0.0.1:1; script-src 'self'; object-src 'none'; base-uri 'none'`,
    );
    await visitor.close();
  });

  test("refuses a token minted for another origin", async ({ browser }) => {
    const refused = await admin.post("/api/embed/token", { data: { origin: "http://localhost:9", tenant: "acme" } });
    expect(refused.status()).toBe(403);
    // An allowed origin, but not this page's: the iframe refuses it.
    tokenOrigin = "http://127.0.0.1:1";
    const visitor = await browser.newContext();
    const page = await visitor.newPage();
    await page.goto(hostOrigin);
    await page.getByRole("button", { name: "Chat with us" }).click();
    await expect(page.frameLocator("iframe").getByText("This chat is not available on this site.")).toBeVisible();
    await page.screenshot({ path: shot("embed-refused") });
    await visitor.close();
  });
});
