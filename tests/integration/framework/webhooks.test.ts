// The owner's webhooks through tRPC (createCaller) over the embedded platform: endpoints on the
// framework's platform account at the account level, a delivery with its attempts, retry, replay,
// rotation; everyone else is refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "@inlay/core/platform-client";
import { startFramework, type FrameworkHarness } from "../../helpers/framework";
import { pollFor, waitForRun } from "../../helpers/poll";
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from "../../helpers/webhook-receiver";

let fw: FrameworkHarness;
let receiver: WebhookReceiver;
beforeAll(async () => {
  fw = await startFramework({ webhooks: { retryScheduleMs: [0, 200] }, outboundAllowLoopback: true, jobPollSeconds: 0.5 });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await fw?.close();
  await receiver?.close();
});

const OWNER = "owner@inlay.test";
const at = (path: string) => (request: ReceivedRequest) => request.path === path;
type Owner = Awaited<ReturnType<FrameworkHarness["callerFor"]>>;

/** A run of an end-user on the framework's platform account, as every member's run is. */
async function accountRun() {
  const client = (await fw.connect()).client.forUser(`member-${Date.now()}`);
  const agent = await client.agents.create({ name: "Hooked" });
  const run = await client.runs.create({ teammate_id: agent.id, message: "hello", stream: false });
  await waitForRun(client, run.id, ["completed"]);
  return run;
}

async function waitForDelivery(owner: Owner, webhookId: number, match: (delivery: any) => boolean) {
  return pollFor(async () => (await owner.webhooks.deliveries({ webhookId })).data.find(match), `a delivery of webhook ${webhookId}`);
}

describe("webhooks (owner)", () => {
  it("registers an endpoint, shows its secret once, and lists it masked", async () => {
    const owner = await fw.callerFor(OWNER);
    const created = await owner.webhooks.create({ url: receiver.url("/list"), events: ["run.completed", "run.failed"] });
    expect(created).toMatchObject({ url: receiver.url("/list"), events: ["run.completed", "run.failed"], active: true, user_id: null });
    expect(created.secret).toMatch(/^whsec_/);
    const listed = (await owner.webhooks.list()).find((hook) => hook.id === created.id);
    expect(listed?.secret).toBe(`whsec_****${created.secret.slice(-4)}`);

    const paused = await owner.webhooks.update({ webhookId: created.id, active: false });
    expect(paused.active).toBe(false);
    const edited = await owner.webhooks.update({ webhookId: created.id, active: true, events: ["run.started"], url: receiver.url("/edited") });
    expect(edited).toMatchObject({ active: true, events: ["run.started"], url: receiver.url("/edited") });
    const rotated = await owner.webhooks.rotateSecret({ webhookId: created.id });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(rotated.previous_secret_expires_at).not.toBeNull();

    expect(await owner.webhooks.delete({ webhookId: created.id })).toEqual({ webhookId: created.id });
    expect((await owner.webhooks.list()).map((hook) => hook.id)).not.toContain(created.id);
    await expect(owner.webhooks.delete({ webhookId: created.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("shows a run's delivery with every attempt; retries a failed one and replays since a time", async () => {
    const owner = await fw.callerFor(OWNER);
    const since = new Date().toISOString();
    const hook = await owner.webhooks.create({ url: receiver.url("/run"), events: ["run.completed"] });
    receiver.respond((request) => (request.path === "/run" ? 503 : 200));
    const run = await accountRun();
    const failed = await waitForDelivery(owner, hook.id, (delivery) => delivery.status === "failed");
    expect(failed).toMatchObject({ event_type: "run.completed", run_id: run.id, attempt_count: 2 });
    expect(failed.attempts.map((attempt: any) => [attempt.response_status, attempt.succeeded])).toEqual([
      [503, false],
      [503, false],
    ]);
    expect(failed.attempts[0]!.response_body).toContain("failure");
    const [request] = await receiver.waitFor(1, at("/run"));
    expect(await verifyWebhook(request!.body, request!.headers as Record<string, string>, hook.secret)).toMatchObject({ run_id: run.id });

    receiver.respond(() => 200);
    expect((await owner.webhooks.retryDelivery({ webhookId: hook.id, deliveryId: failed.id })).status).toBe("pending");
    const retried = await waitForDelivery(owner, hook.id, (delivery) => delivery.id === failed.id && delivery.status === "succeeded");
    expect(retried.attempts.at(-1)).toMatchObject({ number: 3, response_status: 200, succeeded: true });
    await expect(owner.webhooks.retryDelivery({ webhookId: hook.id, deliveryId: 999_999 })).rejects.toMatchObject({ code: "NOT_FOUND" });

    expect(await owner.webhooks.replay({ webhookId: hook.id, since })).toEqual({ queued: 1, has_more: false, next_since: null });
    await waitForDelivery(owner, hook.id, (delivery) => delivery.origin === "replay" && delivery.status === "succeeded");

    // Pages by cursor, newest first.
    const first = await owner.webhooks.deliveries({ webhookId: hook.id, limit: 1 });
    expect(first).toMatchObject({ has_more: true, nextCursor: first.data[0]!.id });
    expect(first.data[0]!.origin).toBe("replay");
    const second = await owner.webhooks.deliveries({ webhookId: hook.id, limit: 1, cursor: first.nextCursor! });
    expect(second).toMatchObject({ has_more: false, nextCursor: null });
    expect(second.data[0]!.id).toBe(failed.id);
  });

  it("passes on the platform's refusals: a paused endpoint's replay is CONFLICT, a bad URL BAD_REQUEST", async () => {
    const owner = await fw.callerFor(OWNER);
    const hook = await owner.webhooks.create({ url: receiver.url("/paused") });
    await owner.webhooks.update({ webhookId: hook.id, active: false });
    await expect(owner.webhooks.replay({ webhookId: hook.id, since: new Date().toISOString() })).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(owner.webhooks.create({ url: "ftp://example.com/hook" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    // zod refuses before the platform is asked.
    await expect(owner.webhooks.create({ url: receiver.url(), events: [] })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(owner.webhooks.replay({ webhookId: hook.id, since: "yesterday" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("is the owner's only: tenant admins and members are FORBIDDEN", async () => {
    const hook = await (await fw.callerFor(OWNER)).webhooks.create({ url: receiver.url("/owner-only") });
    for (const email of ["admin@acme.test", "member@acme.test", "admin@globex.test"]) {
      const caller = await fw.callerFor(email);
      await expect(caller.webhooks.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(caller.webhooks.create({ url: receiver.url("/nope") })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(caller.webhooks.deliveries({ webhookId: hook.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(caller.webhooks.rotateSecret({ webhookId: hook.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(caller.webhooks.delete({ webhookId: hook.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
    expect((await (await fw.callerFor(OWNER)).webhooks.list()).map((each) => each.id)).toContain(hook.id);
  });
});
