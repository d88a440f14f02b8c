// Connections right after `npm run dev`: a second server from the same build, run with
// NODE_ENV=development (lib/env.ts reads it at run time), serves the demo app and offers it to the demo
// tenants; the demo member connects it from Connections (its consent page in the popup) and disconnects
// it, with no app configured; its sign-in page names the demo accounts. The suite's own server
// (production) answers 404 on its routes.
import { spawn, type ChildProcess } from "node:child_process";
import { expect, test } from "@playwright/test";
import { ConnectionsPage } from "./pages/connections-page";
import { DEMO_PASSWORD, SignInPage } from "./pages/sign-in-page";

let server: ChildProcess | undefined;
let origin = "";
let output = "";

test.beforeAll(async () => {
  test.setTimeout(120_000);
  // The port after public-origin.spec.ts's (its server may still be stopping).
  const port = (test.info().config.metadata.sparePort as number) + 1;
  origin = `http://localhost:${port}`;
  // eslint-disable-next-line no-restricted-properties -- the child inherits the runner's environment
  const { NEXTAUTH_URL: _unset, ...inherited } = process.env;
  server = spawn("npx", ["next", "start", "--port", String(port)], {
    env: {
      ...inherited,
      NODE_ENV: "development",
      NEXT_TELEMETRY_DISABLED: "1",
      PGLITE_DATA_DIR: "memory://",
      NEXTAUTH_SECRET: "e2e-only-secret",
      NEXTAUTH_URL: origin,
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  server.stdout!.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  server.stderr!.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const deadline = Date.now() + 90_000;
  for (;;) {
    const ready = await fetch(`${origin}/signin`).then((response) => response.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the development server did not start on ${origin}:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
});

test.afterAll(async () => {
  if (!server?.pid || server.exitCode !== null) return;
  const exited = new Promise((resolve) => server!.once("exit", resolve));
  process.kill(-server.pid, "SIGTERM");
  await exited;
});

test("the demo member connects Demo notes from Connections with nothing configured, and disconnects it", async ({ browser }) => {
  test.setTimeout(90_000);
  const member = await (await browser.newContext({ baseURL: origin })).newPage();
  const signIn = new SignInPage(member);
  await signIn.goto();
  await signIn.signIn("member@acme.test", DEMO_PASSWORD);
  await expect(member).toHaveURL(`${origin}/`);

  const connections = new ConnectionsPage(member);
  await connections.goto();
  await expect(connections.status("demo-notes")).toHaveAttribute("data-status", "not_connected");
  const popupOpened = member.waitForEvent("popup");
  await connections.app("demo-notes").getByRole("button", { name: "Connect" }).click();
  const popup = await popupOpened;
  await expect(popup.getByRole("heading", { name: "Allow access to your demo notes?" })).toBeVisible();
  await expect(popup.getByText("member@acme.test")).toBeVisible();
  await popup.getByRole("button", { name: "Allow" }).click();
  await expect.poll(() => popup.isClosed(), { timeout: 15_000 }).toBe(true);
  await expect(connections.notice()).toHaveText("Demo notes is connected.");
  await expect(connections.status("demo-notes")).toHaveAttribute("data-status", "connected");
  await expect(connections.status("demo-notes")).toContainText("Connected as member@acme.test");

  await connections.disconnect("demo-notes");
  await expect(connections.status("demo-notes")).toHaveAttribute("data-status", "not_connected");
});

test("in development the sign-in page names the demo accounts and their password", async ({ browser }) => {
  const page = await (await browser.newContext({ baseURL: origin })).newPage();
  const signIn = new SignInPage(page);
  await signIn.goto();
  const demo = page.getByRole("region", { name: "Demo accounts (development)" });
  await expect(demo).toContainText(DEMO_PASSWORD);
  for (const email of ["owner@inlay.test", "admin@acme.test", "member@acme.test", "admin@globex.test"]) {
    await expect(demo.getByText(email, { exact: true })).toBeVisible();
  }
  // What it names works.
  await signIn.signIn("admin@globex.test", DEMO_PASSWORD);
  await expect(page).toHaveURL(`${origin}/`);
  await page.context().close();
});

test("in production the demo app is absent: its routes answer 404", async ({ request }) => {
  for (const path of ["/demo-app/oauth/authorize", "/demo-app/api/notes"]) {
    expect((await request.get(path)).status()).toBe(404);
  }
  expect((await request.post("/demo-app/oauth/token", { form: { grant_type: "refresh_token" } })).status()).toBe(404);
});
