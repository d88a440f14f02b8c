// The owner's webhooks end to end: register an endpoint at a loopback receiver, see its secret once,
// a run's delivery arrives (verified with that secret) and shows on the page with its attempt; the
// receiver fails, a replay's delivery fails on the page and Retry delivers it; the secret is rotated;
// a delivered delivery is replayed from its row; a test event is sent, once to a working endpoint and
// once to a failing one. Only the event kinds ticked are subscribed.
//
// Remote pass only (E2E_REMOTE_PLATFORM=1): the embedded pass runs the app under `next start`, where
// the platform refuses loopback endpoints (OUTBOUND_ALLOW_LOOPBACK is refused in production), and the
// test needs the framework's platform key to start an account-level run, which only the remote set-up
// hands out (playwright.config.ts metadata).
import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { createPlatformClient, verifyWebhook } from "@inlay/core/platform-client";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";
import { SignInPage } from "./pages/sign-in-page";
import { WebhooksPage } from "./pages/webhooks-page";

interface RemotePlatform {
  baseUrl: string;
  keyFile: string;
}

let receiver: WebhookReceiver;
test.beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
test.afterAll(async () => {
  await receiver?.close();
});

test("the owner registers an endpoint, watches deliveries and attempts, retries, replays and rotates the secret", async ({ page }) => {
  const remote = test.info().config.metadata.remotePlatform as RemotePlatform | undefined;
  // Only the remote pass runs this spec (playwright.config.ts testIgnore).
  if (!remote) throw new Error("webhooks.spec.ts needs the remote platform (E2E_REMOTE_PLATFORM=1)");
  test.setTimeout(90_000);
  // The framework's own platform account (its key, as the remote set-up created it): a run of one of
  // its end-users, as every member's run is, reaches the owner's endpoints (they take all end-users).
  const platform = createPlatformClient({ baseUrl: remote!.baseUrl, apiKey: readFileSync(remote!.keyFile, "utf8").trim() }).forUser(
    `e2e-member-${Date.now()}`,
  );
  const accountRun = async () => {
    const agent = await platform.agents.create({ name: `Webhook e2e ${Date.now()}` });
    return platform.runs.create({ teammate_id: agent.id, message: "hello", stream: false });
  };

  const signIn = new SignInPage(page);
  await signIn.goto();
  await signIn.signIn("owner@inlay.test", "inlay-demo");
  await expect(page).toHaveURL("/");
  const webhooks = new WebhooksPage(page);
  await webhooks.open();

  // Registered: the secret is shown once, then only masked.
  const url = receiver.url(`/e2e-${Date.now()}`);
  const path = new URL(url).pathname;
  // Nothing is ticked to start, and nothing ticked is refused: only the kinds ticked are subscribed.
  const form = page.getByRole("form", { name: "Register an endpoint" });
  await expect(form.getByRole("checkbox", { checked: true })).toHaveCount(0);
  await form.getByLabel("Endpoint URL").fill(url);
  await form.getByRole("button", { name: "Register endpoint" }).click();
  await expect(form).toContainText("at least one event");
  const secret = await webhooks.register(url, ["run.completed"]);
  const endpoint = webhooks.endpoint(url);
  await expect(endpoint.root).toContainText("Active");
  await expect(endpoint.events()).toHaveText("run.completed");
  await expect(endpoint.maskedSecret()).toHaveText(`whsec_****${secret.slice(-4)}`);
  await page.screenshot({ path: "test-results/webhooks-registered.png", fullPage: true });
  await page.reload();
  await expect(endpoint.maskedSecret()).toHaveText(`whsec_****${secret.slice(-4)}`);
  await expect(webhooks.shownSecrets()).toHaveCount(0);

  // A run delivers; the delivery verifies with the secret the page showed, and shows with its attempt.
  // The account's other runs (the chats of earlier specs, whose events the run ledger's webhook keeps)
  // ended before this second: a replay since it queues this run's event alone.
  const since = await page.evaluate(() => {
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    return new Date(now.getTime() - now.getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
  });
  const run = await accountRun();
  await expect.poll(() => receiver.received.filter((request) => request.path === path).length, { timeout: 20_000 }).toBe(1);
  const delivered = receiver.received.find((request) => request.path === path)!;
  const event = await verifyWebhook(delivered.body, delivered.headers as Record<string, string>, secret);
  expect(event).toMatchObject({ type: "run.completed", run_id: run.id, status: "completed" });
  await endpoint.showDeliveries();
  const first = endpoint.deliveriesWithStatus("succeeded").filter({ hasText: `run ${run.id}` });
  await expect(first).toHaveCount(1, { timeout: 15_000 });
  await expect(first).toContainText("run.completed");
  await expect(first.getByTestId("attempt-count")).toHaveText("1 attempt");
  await expect(first.getByTestId("attempt-status")).toHaveText(["HTTP 200"]);

  // The receiver fails: the replayed delivery gives up (two attempts apart, the e2e schedule), and
  // Retry, once the receiver is back, delivers it.
  receiver.respond((request) => (request.path === path ? 500 : 200));
  await expect(await endpoint.replaySince(since)).toHaveText(/Queued 1 delivery/);
  const failed = endpoint.deliveriesWithStatus("failed");
  await expect(failed).toHaveCount(1, { timeout: 20_000 });
  await expect(failed).toContainText("replay");
  await expect(failed.getByTestId("attempt-status")).toHaveText(["HTTP 500", "HTTP 500"]);
  await expect(failed.getByTestId("attempt").first()).toContainText("failure");
  await page.screenshot({ path: "test-results/webhooks-failed.png", fullPage: true });
  receiver.respond(() => 200);
  await failed.getByRole("button", { name: "Retry" }).click();
  await expect(endpoint.deliveriesWithStatus("failed")).toHaveCount(0, { timeout: 20_000 });
  await expect(endpoint.deliveriesWithStatus("succeeded")).toHaveCount(2, { timeout: 20_000 });
  await expect(endpoint.deliveries().first().getByTestId("attempt-status")).toHaveText(["HTTP 500", "HTTP 500", "HTTP 200"]);
  const replayed = receiver.received.filter((request) => request.path === path && request.answered === 200).at(-1)!;
  expect(replayed.headers["webhook-id"]).toBe(delivered.headers["webhook-id"]);

  // A rotated secret is shown once and signs from now on (beside the previous one, for 24 hours).
  const rotated = await endpoint.rotateSecret();
  expect(rotated).not.toBe(secret);
  await expect(endpoint.maskedSecret()).toHaveText(`whsec_****${rotated.slice(-4)}`);
  const lastRun = await accountRun();
  await expect.poll(() => receiver.received.filter((request) => request.path === path && request.answered === 200).length, { timeout: 20_000 }).toBe(3);
  const afterRotation = receiver.received.filter((request) => request.path === path).at(-1)!;
  expect(await verifyWebhook(afterRotation.body, afterRotation.headers as Record<string, string>, rotated)).toMatchObject({ type: "run.completed" });

  // One delivered delivery sent again from its row: the same event (same webhook-id) arrives once more.
  const last = endpoint.deliveriesWithStatus("succeeded").filter({ hasText: `run ${lastRun.id}` });
  await expect(last.getByTestId("attempt-count")).toHaveText("1 attempt", { timeout: 15_000 });
  await last.getByRole("button", { name: "Replay" }).click();
  await expect.poll(() => receiver.received.filter((request) => request.path === path && request.answered === 200).length, { timeout: 20_000 }).toBe(4);
  expect(receiver.received.filter((request) => request.path === path).at(-1)!.headers["webhook-id"]).toBe(afterRotation.headers["webhook-id"]);
  await expect(last.getByTestId("attempt-count")).toHaveText("2 attempts", { timeout: 15_000 });

  // A test event: signed like any other, to this endpoint only, shown among its deliveries as "test".
  await endpoint.root.getByRole("button", { name: "Send test event" }).click();
  await expect(endpoint.root.getByRole("status").filter({ hasText: "Test event sent" })).toBeVisible();
  await expect.poll(() => receiver.received.filter((request) => request.path === path && request.answered === 200).length, { timeout: 20_000 }).toBe(5);
  const tested = receiver.received.filter((request) => request.path === path).at(-1)!;
  expect(await verifyWebhook(tested.body, tested.headers as Record<string, string>, rotated)).toMatchObject({ type: "webhook.test", user_id: null });
  const testDelivery = endpoint.deliveriesWithStatus("succeeded").filter({ hasText: "webhook.test" });
  await expect(testDelivery).toHaveCount(1, { timeout: 15_000 });
  await expect(testDelivery).toContainText("test");
  await expect(testDelivery.getByTestId("attempt-status")).toHaveText(["HTTP 200"]);
  // Against a failing endpoint it is tried once: failed, with one attempt, and no retry scheduled.
  receiver.respond((request) => (request.path === path ? 503 : 200));
  await endpoint.root.getByRole("button", { name: "Send test event" }).click();
  const failedTest = endpoint.deliveriesWithStatus("failed").filter({ hasText: "webhook.test" });
  await expect(failedTest).toHaveCount(1, { timeout: 20_000 });
  await expect(failedTest.getByTestId("attempt-status")).toHaveText(["HTTP 503"]);
  receiver.respond(() => 200);

  // Paused and deleted.
  await endpoint.root.getByRole("button", { name: "Pause" }).click();
  await expect(endpoint.root).toContainText("Paused");
  await endpoint.delete();
  await expect(endpoint.root).toHaveCount(0);
});
