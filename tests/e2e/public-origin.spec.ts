// The app's one public URL when NEXTAUTH_URL is unset: a second server from the same build, started
// here on another port without it, signs in and out on its own origin (next-auth's own default would
// send the browser to http://localhost:3000).
import { spawn, type ChildProcess } from "node:child_process";
import { expect, test } from "@playwright/test";
import { ConsolePage } from "./pages/console-page";
import { DEMO_PASSWORD, SignInPage } from "./pages/sign-in-page";

let server: ChildProcess | undefined;
let origin = "";
let output = "";

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const port = test.info().config.metadata.sparePort as number;
  origin = `http://localhost:${port}`;
  // eslint-disable-next-line no-restricted-properties -- the child inherits the runner's environment, less NEXTAUTH_URL
  const { NEXTAUTH_URL: _unset, ...inherited } = process.env;
  server = spawn("npx", ["next", "start", "--port", String(port)], {
    env: { ...inherited, NEXT_TELEMETRY_DISABLED: "1", PGLITE_DATA_DIR: "memory://", NEXTAUTH_SECRET: "e2e-only-secret", LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  server.stdout!.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  server.stderr!.on("data", (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  const deadline = Date.now() + 90_000;
  for (;;) {
    const ready = await fetch(`${origin}/signin`).then((response) => response.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the second server did not start on ${origin}:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
});

test.afterAll(async () => {
  if (!server?.pid || server.exitCode !== null) return;
  const exited = new Promise((resolve) => server!.once("exit", resolve));
  // Its own process group (npx, next): ended together.
  process.kill(-server.pid, "SIGTERM");
  await exited;
});

test("without NEXTAUTH_URL, sign-in and sign-out redirects stay on the origin the app is served on", async ({ page }) => {
  // next-auth's own redirect to the sign-in page carries this origin as the callback.
  const signInRedirect = await page.request.get(`${origin}/api/auth/signin`, { maxRedirects: 0 });
  expect(signInRedirect.status()).toBe(302);
  expect(signInRedirect.headers().location).toBe(`/signin?callbackUrl=${encodeURIComponent(origin)}`);

  await page.goto(`${origin}/signin`);
  const signIn = new SignInPage(page);
  await signIn.signIn("admin@acme.test", DEMO_PASSWORD);
  await expect(page).toHaveURL(`${origin}/`);
  const consolePage = new ConsolePage(page);
  await expect(consolePage.signedInAs()).toHaveText("admin@acme.test");

  await consolePage.signOut();
  await expect(page).toHaveURL(`${origin}/signin`);
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  // Signed out for real: the console sends the visitor back to sign in.
  await page.goto(`${origin}/`);
  await expect(page).toHaveURL(new RegExp(`^${origin}/signin\\?callbackUrl=`));
});
