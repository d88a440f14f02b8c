// client.webhooks against a real platform and a loopback receiver: registration, a run's delivery
// verified with verifyWebhook, deliveries as an async iterable, retryDelivery, replay, and forUser
// isolation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ConflictError,
  NotFoundError,
  createPlatformClient,
  verifyWebhook,
  type PlatformClient,
  type Run,
  type WebhookDelivery,
} from "@inlay/core/platform-client";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";
import { pollFor, waitForRun } from "../../helpers/poll";
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from "../../helpers/webhook-receiver";

let platform: PlatformHarness;
let receiver: WebhookReceiver;
let client: PlatformClient;

beforeAll(async () => {
  // Two attempts 200 ms apart (the shipped schedule is minutes to hours apart); jobs polled every 0.5 s.
  platform = await startPlatform({ webhooks: { retryScheduleMs: [0, 200] }, jobPollSeconds: 0.5 });
  receiver = await startWebhookReceiver();
  const account = await platform.signup({ require_end_user_id: false });
  client = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: account.key });
});
afterAll(async () => {
  await platform.close();
  await receiver.close();
});

const at = (path: string) => (request: ReceivedRequest) => request.path === path;

/** Runs a fresh agent to its end in the client's scope. */
async function runToEnd(scoped: PlatformClient, message = "hello") {
  const agent = await scoped.agents.create({ name: "Hooked" });
  const run = await scoped.runs.create({ teammate_id: agent.id, message, stream: false });
  return waitForRun<Run>(scoped, run.id, ["completed", "failed"]);
}

async function waitForDelivery(scoped: PlatformClient, webhookId: number, match: (delivery: WebhookDelivery) => boolean) {
  return pollFor(async () => {
    for await (const delivery of scoped.webhooks.deliveries(webhookId)) if (match(delivery)) return delivery;
    return undefined;
  }, `a delivery of webhook ${webhookId}`);
}

describe("client.webhooks", () => {
  it("creates, reads, lists, updates and deletes; the secret is whole only when created or rotated", async () => {
    const created = await client.webhooks.create({ url: receiver.url("/crud"), events: ["run.completed"] });
    expect(created).toMatchObject({ url: receiver.url("/crud"), events: ["run.completed"], active: true, user_id: null });
    expect(created.secret).toMatch(/^whsec_/);
    const masked = `whsec_****${created.secret.slice(-4)}`;
    expect((await client.webhooks.get(created.id)).secret).toBe(masked);
    expect((await client.webhooks.listAll()).find((hook) => hook.id === created.id)?.secret).toBe(masked);

    const paused = await client.webhooks.update(created.id, { active: false, events: ["run.failed", "run.completed"] });
    expect(paused).toMatchObject({ active: false, events: ["run.failed", "run.completed"], secret: masked });
    const rotated = await client.webhooks.update(created.id, { rotate_secret: true });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(rotated.previous_secret_expires_at).not.toBeNull();

    await client.webhooks.delete(created.id);
    await expect(client.webhooks.get(created.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("lists page by page and iterates every webhook", async () => {
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await client.webhooks.create({ url: receiver.url(`/page-${i}`) })).id);
    const first = await client.webhooks.list({ limit: 1 });
    expect(first.data).toHaveLength(1);
    expect(first.has_more).toBe(true);
    const seen: number[] = [];
    for await (const hook of client.webhooks.list({ limit: 2 })) seen.push(hook.id);
    expect(seen).toEqual(expect.arrayContaining(ids));
    for (const id of ids) await client.webhooks.delete(id);
  });

  it("a run delivers; verifyWebhook verifies the delivery as received; retryDelivery and replay deliver again", async () => {
    const scoped = client.forUser("hook-owner");
    const since = new Date().toISOString();
    const hook = await scoped.webhooks.create({ url: receiver.url("/run"), events: ["run.completed"] });
    expect(hook.user_id).toBe("hook-owner");
    // Every attempt of the first delivery fails: it gives up after the two the schedule allows.
    receiver.respond((request) => (request.path === "/run" ? 500 : 200));
    const run = await runToEnd(scoped);
    const failed = await waitForDelivery(scoped, hook.id, (delivery) => delivery.status === "failed");
    expect(failed).toMatchObject({ event_type: "run.completed", run_id: run.id, attempt_count: 2, origin: "dispatch" });
    expect(failed.attempts.map((attempt) => [attempt.number, attempt.response_status, attempt.succeeded])).toEqual([
      [1, 500, false],
      [2, 500, false],
    ]);

    const [request] = await receiver.waitFor(1, at("/run"));
    const event = await verifyWebhook(request!.body, request!.headers as Record<string, string>, hook.secret);
    expect(event).toMatchObject({ type: "run.completed", run_id: run.id, status: "completed", user_id: "hook-owner" });
    await expect(verifyWebhook(request!.body, request!.headers as Record<string, string>, `whsec_${btoa("another secret entirely")}`)).rejects.toThrow();

    receiver.respond(() => 200);
    const retried = await scoped.webhooks.retryDelivery(hook.id, failed.id);
    expect(retried).toMatchObject({ id: failed.id, status: "pending" });
    const succeeded = await waitForDelivery(scoped, hook.id, (delivery) => delivery.id === failed.id && delivery.status === "succeeded");
    expect(succeeded.attempt_count).toBe(3);
    // A delivery that is not finished cannot be retried; nor can one that does not exist.
    await expect(scoped.webhooks.retryDelivery(hook.id, 999_999)).rejects.toBeInstanceOf(NotFoundError);

    const replay = await scoped.webhooks.replay(hook.id, { since });
    expect(replay).toEqual({ queued: 1, has_more: false, next_since: null });
    const replayed = await waitForDelivery(scoped, hook.id, (delivery) => delivery.origin === "replay" && delivery.status === "succeeded");
    expect(replayed.message_id).toBe(failed.message_id);
    const delivered = await receiver.waitFor(2, (r) => r.path === "/run" && r.answered === 200);
    for (const each of delivered) {
      expect(await verifyWebhook(each.body, each.headers as Record<string, string>, hook.secret)).toMatchObject({ run_id: run.id });
    }

    const statuses: string[] = [];
    for await (const delivery of scoped.webhooks.deliveries(hook.id, { limit: 1 })) statuses.push(`${delivery.origin}:${delivery.status}`);
    expect(statuses).toEqual(["replay:succeeded", "dispatch:succeeded"]);
    expect((await scoped.webhooks.deliveries(hook.id, { status: "failed" })).data).toEqual([]);
  });

  it("replay of a paused webhook is a ConflictError", async () => {
    const hook = await client.webhooks.create({ url: receiver.url("/paused") });
    await client.webhooks.update(hook.id, { active: false });
    const error = await client.webhooks.replay(hook.id, { since: new Date(Date.now() - 60_000).toISOString() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).errorCode).toBe("webhook_inactive");
  });

  it("another end-user's webhook, or an account-level one, is a NotFoundError through forUser", async () => {
    const mine = await client.forUser("hook-alice").webhooks.create({ url: receiver.url("/alice") });
    const accountLevel = await client.webhooks.create({ url: receiver.url("/account") });
    const bob = client.forUser("hook-bob");
    for (const id of [mine.id, accountLevel.id]) {
      await expect(bob.webhooks.get(id)).rejects.toBeInstanceOf(NotFoundError);
      await expect(bob.webhooks.update(id, { active: false })).rejects.toBeInstanceOf(NotFoundError);
      await expect(bob.webhooks.delete(id)).rejects.toBeInstanceOf(NotFoundError);
      await expect(bob.webhooks.deliveries(id)).rejects.toBeInstanceOf(NotFoundError);
      await expect(bob.webhooks.replay(id, { since: new Date().toISOString() })).rejects.toBeInstanceOf(NotFoundError);
    }
    expect((await bob.webhooks.listAll()).map((hook) => hook.id)).toEqual([]);
    expect((await client.forUser("hook-alice").webhooks.listAll()).map((hook) => hook.id)).toEqual([mine.id]);
    // A scoped client refuses to speak for anyone else.
    await expect(bob.webhooks.create({ url: receiver.url("/x"), user_id: "hook-alice" })).rejects.toThrow(TypeError);
  });
});
