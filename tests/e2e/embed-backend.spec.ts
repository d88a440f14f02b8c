// The embed from a vendor's own backend: an admin allows the shop's site and creates an embed secret on
// the Embed page; the shop (a static page and a tiny node:http backend on another loopback origin, with
// no Inlay session anywhere) mints tokens server to server (POST /api/embed/sessions) as the Express
// snippet does; its visitor chats in the widget and becomes a member of the tenant. Then the failure
// states the widget shows instead of a blank panel: a token endpoint that fails (a revoked secret, a
// broken route) and a site the tenant does not allow.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Page } from "@playwright/test";
import { EmbedAdminPage } from "./pages/admin-pages";
import { ChatPage } from "./pages/chat-page";
import { signInAs } from "./pages/sign-in-page";

const shot = (name: string) => `test-results/embed-backend-${name}.png`;
const AGENT = "Acme assistant"; // the seeded tenant agent of acme

interface Shop {
  server: http.Server;
  origin: string;
}

/**
 * The shop: `/?user=<id>` signs the visitor in to the shop (its own cookie) and serves a page with the
 * script tag; `/api/inlay-token` is its backend route, which mints with the embed secret it holds.
 */
async function startShop(inlay: string, secret: () => string): Promise<Shop> {
  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://shop.invalid");
    if (request.method === "POST" && url.pathname === "/api/inlay-token") {
      const user = /(?:^|;\s*)shop_user=([^;]+)/.exec(request.headers.cookie ?? "")?.[1];
      if (!user) {
        response.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: "sign in first" }));
        return;
      }
      let body = "";
      for await (const chunk of request) body += String(chunk);
      const { origin } = JSON.parse(body) as { origin?: string };
      const inlayResponse = await fetch(`${inlay}/api/embed/sessions`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret()}`, "content-type": "application/json" },
        // ?any: a token for any agent (what a backend that names none mints).
        body: JSON.stringify({ user_id: user, email: `${user}@shop.test`, name: `Shopper ${user}`, agent: url.searchParams.has("any") ? undefined : AGENT, origin }),
      });
      response.writeHead(inlayResponse.status, { "content-type": "application/json" }).end(await inlayResponse.text());
      return;
    }
    if (request.method === "POST" && url.pathname === "/api/broken-token") {
      response.writeHead(500, { "content-type": "text/plain" }).end("boom");
      return;
    }
    const user = url.searchParams.get("user");
    const tokenUrl = url.pathname === "/broken" ? "/api/broken-token" : url.pathname === "/wrong-agent" ? "/api/inlay-token?any" : "/api/inlay-token";
    const agent = url.pathname === "/wrong-agent" ? "No such agent" : AGENT;
    response.writeHead(200, { "content-type": "text/html", ...(user ? { "set-cookie": `shop_user=${encodeURIComponent(user)}; Path=/; HttpOnly` } : {}) });
    response.end(`<!doctype html><html><head><title>Acme Shop</title></head><body style="margin:0;font-family:system-ui">
<header style="background:#0f766e;color:#fff;padding:18px 32px;font-weight:600">Acme Shop</header><main style="padding:32px"><h1>Your orders</h1></main>
<script src="${inlay}/embed.js" data-agent="${agent}" data-tenant="acme" data-title="Acme help" data-token-url="${tokenUrl}" async></script></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const stop = (shop: Shop | undefined) => new Promise<void>((resolve) => (shop ? shop.server.close(() => resolve()) : resolve()));

async function openChat(page: Page, url: string) {
  await page.goto(url);
  await page.getByRole("button", { name: "Chat with us" }).click();
  return page.frameLocator("iframe");
}

test.describe("embed from the vendor's backend", () => {
  test.describe.configure({ mode: "serial" });
  let shop: Shop | undefined;
  let unlisted: Shop | undefined;
  let secret = "";
  let admin: Page;

  test.beforeAll(async ({ browser, baseURL }) => {
    shop = await startShop(baseURL!, () => secret);
    // Another origin the tenant never allows, with the same page.
    unlisted = await startShop(baseURL!, () => secret);
    admin = await (await browser.newContext({ baseURL })).newPage();
    await signInAs(admin, "admin@acme.test");
  });
  test.afterAll(async () => {
    await Promise.all([stop(shop), stop(unlisted)]);
    await admin?.context().close();
  });

  test("the admin allows the shop and creates a secret; the snippets name a real agent", async ({ baseURL }) => {
    const embed = new EmbedAdminPage(admin);
    await embed.goto();
    await embed.allowOrigins([shop!.origin]);
    secret = await embed.createSecret("Shop backend");
    expect(secret).toMatch(/^inlay_es_/);
    await expect(embed.secretRow("Shop backend")).toContainText("never");
    await expect(embed.snippet("script")).toContainText(`data-agent="${AGENT}"`);
    await expect(embed.snippet("express")).toContainText(`${baseURL}/api/embed/sessions`);
    await expect(embed.snippet("curl")).toContainText(`"origin":"${shop!.origin}"`);
    // Shown once: a reload lists the secret by its prefix only.
    await admin.reload();
    await expect(embed.secretRow("Shop backend")).toContainText(`${secret.slice(0, 15)}…`);
    await expect(admin.getByText(secret)).toHaveCount(0);
    await admin.screenshot({ path: shot("admin"), fullPage: true });
  });

  test("a visitor of the shop chats through a token its backend minted, and joins the tenant", async ({ browser, baseURL }) => {
    const visitor = await browser.newContext();
    const page = await visitor.newPage();
    const frame = await openChat(page, `${shop!.origin}/?user=cust-7`);
    const chat = new ChatPage(frame);
    await expect(chat.input()).toBeEnabled();
    await chat.send("Where is my parcel?");
    // The first message provisions the shopper's platform user and their copy of the agent.
    await expect(chat.lastAnswer()).toContainText("Where is my parcel?", { timeout: 20_000 });
    await page.screenshot({ path: shot("chat") });
    expect(await visitor.cookies(baseURL)).toEqual([]);
    await visitor.close();

    // The shopper is a member of acme now, and the secret shows its use.
    await admin.goto("/admin/members");
    await expect(admin.getByText("Shopper cust-7")).toBeVisible();
    const embed = new EmbedAdminPage(admin);
    await embed.goto();
    await expect(embed.secretRow("Shop backend")).not.toContainText("never");
  });

  test("the admin's tool views draw the calculator's call in the widget: its title, its allow label, its result", async ({ browser }) => {
    const embed = new EmbedAdminPage(admin);
    await embed.goto();
    const refused = await embed.saveToolViews({ calculator: { title: "Sum", fields: [{ label: "Result", value: "window.location" }] } });
    await expect(refused).toHaveText(/^calculator\.fields\.0\.value: A value is input or output/);
    const views = { calculator: { title: "Sum {input.expression}", fields: [{ label: "Result", value: "output.result" }], allowLabel: "Work it out" } };
    await expect(await embed.saveToolViews(views)).toHaveText("Views saved.");

    const visitor = await browser.newContext();
    const page = await visitor.newPage();
    const frame = await openChat(page, `${shop!.origin}/?user=cust-8`);
    const chat = new ChatPage(frame);
    await expect(chat.input()).toBeEnabled();
    await chat.send('::tool calculator {"expression":"6*7"}');
    const card = frame.locator('section[data-tool-view="calculator"]').last();
    await expect(card).toHaveAttribute("data-state", "awaiting-approval", { timeout: 20_000 });
    await expect(card).toContainText("Sum 6*7");
    await card.getByRole("button", { name: "Work it out" }).click();
    await expect(card).toHaveAttribute("data-state", "output", { timeout: 20_000 });
    await expect(card.locator("dd")).toHaveText("42");
    await page.screenshot({ path: shot("tool-view") });
    await visitor.close();
    // Cleared: the calculator is drawn by default again for the specs after this one.
    await expect(await embed.saveToolViews("")).toHaveText("Views saved.");
  });

  test("a failing token endpoint is said in the panel, with what to do", async ({ browser }) => {
    const visitor = await browser.newContext();
    const page = await visitor.newPage();
    const frame = await openChat(page, `${shop!.origin}/broken?user=cust-7`);
    await expect(frame.getByText("The chat could not sign you in.")).toBeVisible();
    await expect(frame.getByText(/token endpoint \/api\/broken-token answered 500/)).toBeVisible();
    await expect(frame.getByText(/Reload the page to try again/)).toBeVisible();
    await page.screenshot({ path: shot("token-failing") });
    await visitor.close();
  });

  test("an agent the workspace does not have is named in the panel", async ({ browser }) => {
    const visitor = await browser.newContext();
    const page = await visitor.newPage();
    const frame = await openChat(page, `${shop!.origin}/wrong-agent?user=cust-7`);
    await expect(frame.getByText('There is no agent "No such agent" in this workspace.')).toBeVisible();
    await expect(frame.getByText(/set data-agent to one of the workspace's agents/)).toBeVisible();
    await page.screenshot({ path: shot("agent-missing") });
    await visitor.close();
  });

  test("a revoked secret stops the shop's backend: its endpoint answers 401, and the panel says so", async ({ browser }) => {
    const embed = new EmbedAdminPage(admin);
    await embed.goto();
    await embed.secretRow("Shop backend").getByRole("button", { name: "Revoke Shop backend" }).click();
    await expect(admin.getByText("No live secret")).toBeVisible();
    const visitor = await browser.newContext();
    const page = await visitor.newPage();
    const frame = await openChat(page, `${shop!.origin}/?user=cust-7`);
    await expect(frame.getByText(/token endpoint \/api\/inlay-token answered 401/)).toBeVisible();
    await visitor.close();
  });

  test("a site the tenant does not allow sees why, not a blank frame", async ({ browser }) => {
    const visitor = await browser.newContext();
    const page = await visitor.newPage();
    const frame = await openChat(page, `${unlisted!.origin}/?user=cust-8`);
    await expect(frame.getByText("This chat is not available on this site.")).toBeVisible();
    await expect(frame.getByText(`${unlisted!.origin} is not one of the workspace's allowed sites`)).toBeVisible();
    await expect(frame.getByText(/Admin → Embed/)).toBeVisible();
    await page.screenshot({ path: shot("origin-not-allowed") });
    await visitor.close();
  });
});
