// chat-bundle-browser: the JavaScript Chromium actually fetches for /chat, /embed/[agent] and the
// console's agent chat page (<InlayChat> in an app-router page), as a check on chat-bundle's reading
// of the manifests and to see what loads after first paint. It starts the production build
// (`next start`, an in-memory database with the demo accounts) on a loopback port, signs in as
// member@acme.test with the HTTP cache disabled, and records every script of the app's origin
// (/_next/static, and the widget under /embed-app) per phase: the first load of /chat (until ready
// and the network is idle), a first message (markdown with a table), a reload with that conversation
// saved, a first load of the embed page and one of the agent chat page. Sizes: each body gzipped at
// level 9, as chat-bundle counts.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { chromium, expect, type Page, type Response } from "@playwright/test";
import { IN_APP_PAGE, ensureBuild, firstLoadChunks, readWidget, widgetFirstLoad } from "./chat-bundle";

const root = path.resolve(import.meta.dirname, "..");
const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;

async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

interface Script {
  file: string;
  gzip: number;
}

/**
 * Records the scripts a page fetches into whichever phase is current: Next's (/_next/static/…, named
 * static/… as in its manifests) and the embed widget's (/embed-app/…, named by URL path as in its
 * manifest); any other script of the app's origin too, by URL path, so nothing loaded goes unseen.
 */
function recorder(page: Page, origin: string) {
  let current: Script[] = [];
  const pending: Promise<void>[] = [];
  page.on("response", (response: Response) => {
    const url = new URL(response.url());
    if (response.request().resourceType() !== "script" || url.origin !== origin) return;
    // 304: revalidated, not fetched again (a reload sends If-None-Match for public/ files even with
    // the HTTP cache disabled); a redirect has no body, and what it leads to is a response of its own.
    if (response.status() >= 300 && response.status() < 400) return;
    const path = decodeURIComponent(url.pathname);
    const phase = current;
    pending.push(
      (async () => {
        const body = await response.body();
        phase.push({ file: path.startsWith("/_next/") ? path.slice("/_next/".length) : path, gzip: gzipSync(body, { level: 9 }).length });
      })(),
    );
  });
  return {
    /** Ends the current phase (after the network is idle) and starts the next. */
    async take(): Promise<Script[]> {
      await page.waitForLoadState("networkidle");
      await Promise.all(pending.splice(0));
      const taken = current;
      current = [];
      return taken;
    },
  };
}

export async function chatBundleBrowser(): Promise<void> {
  console.log(`\n${ensureBuild("webpack")}`);
  const port = await freePort();
  const base = `http://localhost:${port}`;
  const server = spawn(path.join(root, "node_modules/.bin/next"), ["start", "--port", String(port), "--hostname", "127.0.0.1"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
    // eslint-disable-next-line no-restricted-properties -- the server inherits the benchmark's environment
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", PGLITE_DATA_DIR: "memory://", NEXTAUTH_SECRET: "bench-only-secret", NEXTAUTH_URL: base, LOG_LEVEL: "warn" },
  });
  const browser = await chromium.launch({
    // eslint-disable-next-line no-restricted-properties -- where the machine's Chromium is, as for Playwright
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    for (let waited = 0; ; waited += 500) {
      const ready = await fetch(`${base}/signin`).then((response) => response.ok, () => false);
      if (ready) break;
      if (waited > 120_000) throw new Error("next start did not answer /signin within 2 minutes");
      await new Promise((resolve) => setTimeout(resolve, 500));
    }

    const context = await browser.newContext({ baseURL: base });
    const page = await context.newPage();
    await (await context.newCDPSession(page)).send("Network.setCacheDisabled", { cacheDisabled: true });
    const record = recorder(page, base);
    await page.goto("/signin");
    await page.getByLabel("Email").fill("member@acme.test");
    await page.getByLabel("Password").fill("inlay-demo");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${base}/`);
    await record.take(); // the sign-in and console pages: not measured

    const phases: [string, Script[]][] = [];
    await page.goto("/chat?agent=Acme+assistant");
    await expect(page.getByLabel("Message")).toBeEnabled(); // enabled once the script has rendered the chat
    phases.push(["/chat, first load (until ready, network idle)", await record.take()]);

    await page.getByLabel("Message").fill("A table:\n\n| a | b |\n|---|---|\n| 1 | 2 |");
    await page.getByLabel("Message").press("Enter");
    const answer = page.locator('article[data-role="assistant"]').last();
    await expect(answer.locator("table")).toBeVisible({ timeout: 20_000 }); // rendered as markdown
    phases.push(["/chat, then the first message", await record.take()]);

    await page.reload();
    await expect(page.getByLabel("Message")).toBeEnabled();
    await expect(answer.locator("table")).toBeVisible();
    phases.push(["/chat, reloaded with the conversation saved", await record.take()]);

    const visitor = await browser.newContext({ baseURL: base });
    const embed = await visitor.newPage();
    const embedRecord = recorder(embed, base);
    await embed.goto("/embed/Acme%20assistant?tenant=acme&host=http%3A%2F%2F127.0.0.1%3A1");
    phases.push(["/embed/[agent], first load (no token yet)", await embedRecord.take()]);

    // The agent page's own URL (its id), then a first load of it.
    await page.goto("/agents");
    const href = await page.getByRole("link", { name: "Chat with Acme assistant" }).getAttribute("href");
    await record.take(); // the agents page: not measured
    await page.goto(href!);
    await expect(page.getByLabel("Message")).toBeEnabled();
    phases.push(["/agents/[id]/chat, first load (until hydrated, network idle)", await record.take()]);

    const sum = (scripts: Script[]) => scripts.reduce((total, each) => total + each.gzip, 0);
    console.log("\nscripts Chromium fetched from the app's origin, by phase (HTTP cache disabled)");
    console.table(
      Object.fromEntries(
        phases.map(([name, scripts]) => [name, { scripts: scripts.length, "gzip -9": kb(sum(scripts)) }]),
      ),
    );

    // The check on chat-bundle: the first loads Chromium made against the manifests' lists (the
    // widget's for /chat and the embed page, Next's for the agent page).
    for (const [name, listedFiles, scripts] of [
      ["/chat", widgetFirstLoad(await readWidget("chat")), phases[0]![1]],
      ["/embed/[agent]", widgetFirstLoad(await readWidget("embed")), phases[3]![1]],
      ["/agents/[id]/chat", firstLoadChunks(IN_APP_PAGE, "webpack"), phases[4]![1]],
    ] as const) {
      const fetched = new Set(scripts.map((each) => each.file));
      const listed = new Set(listedFiles);
      const missing = [...listed].filter((file) => !fetched.has(file));
      const extra = [...fetched].filter((file) => !listed.has(file));
      console.log(
        `${name}: ${missing.length === 0 && extra.length === 0 ? "the first load is exactly the manifests' chunks" : `manifests list ${missing.length} not fetched (${missing.join(", ")}), fetched ${extra.length} not listed (${extra.join(", ")})`}`,
      );
    }
    const firstLoad = new Set(phases[0]![1].map((each) => each.file));
    for (const [name, scripts] of phases.slice(1, 3)) {
      const beyond = scripts.filter((each) => !firstLoad.has(each.file));
      console.log(`${name}, beyond the first load: ${beyond.map((each) => `${each.file} (${kb(each.gzip)})`).join(", ") || "nothing"}`);
    }
  } finally {
    await browser.close();
    server.kill();
  }
}
