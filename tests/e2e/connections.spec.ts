// Connections end to end, the framework's half: the member's Connections page, and the OAuth callback
// page in a real browser: in a popup it posts {type: "inlay:connection"} to its opener (this origin
// only) and closes; without an opener it sends the page back to the Connections page, which says how
// it went. (The flow through the platform and a loopback OAuth server is
// tests/e2e-pending/connections-flow.spec.ts until the platform's Apps endpoints land.)
import { expect, test } from "@playwright/test";
import { ConnectionsPage } from "./pages/connections-page";
import { signedIn } from "./pages/sign-in-page";

test("a member finds Connections in the nav; the callback page tells its opener and closes, or sends the page back", async ({ browser }) => {
  const member = await signedIn(browser, "member@acme.test");
  await member.getByRole("link", { name: "Connections" }).click();
  await expect(member.getByRole("heading", { name: "Connections", level: 1 })).toBeVisible();
  await expect(member.getByText("Your workspace offers no apps yet.")).toBeVisible();

  // A popup on the callback with a state that does not verify: the opener hears about it, and the
  // popup closes itself.
  const heard = member.evaluate(
    () =>
      new Promise((resolve) => {
        window.addEventListener("message", (event) => {
          if ((event.data as { type?: unknown } | null)?.type === "inlay:connection") resolve({ origin: event.origin, data: event.data });
        });
      }),
  );
  const popupOpened = member.waitForEvent("popup");
  await member.evaluate(() => void window.open("/api/connections/callback/not-a-state?app=codehost&status=authorized&connection_id=c1", "inlay-connect", "popup"));
  const popup = await popupOpened;
  expect(await heard).toEqual({
    origin: new URL(member.url()).origin,
    data: { type: "inlay:connection", app: "codehost", status: "error", message: "This sign-in link has expired or is not valid. Start connecting again." },
  });
  await expect.poll(() => popup.isClosed()).toBe(true);

  // The redirect fallback: no opener, so the page goes back to the Connections page with the outcome.
  const connections = new ConnectionsPage(member);
  await member.goto("/api/connections/callback/not-a-state?app=codehost&status=error&error_description=access_denied");
  await expect(member).toHaveURL("/connections");
  await expect(connections.notice()).toHaveText("codehost was not connected.");
});

test("the callback page carries a nonce CSP and leaks no referrer", async ({ request }) => {
  const response = await request.get("/api/connections/callback/not-a-state?app=codehost&status=authorized");
  expect(response.status()).toBe(200);
  expect(response.headers()["content-security-policy"]).toMatch(/script-src 'nonce-[^']+'/);
  expect(response.headers()["referrer-policy"]).toBe("no-referrer");
  expect(response.headers()["cache-control"]).toBe("no-store");
});
