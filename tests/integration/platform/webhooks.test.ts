// Webhooks: /webhooks registrations, and delivery of run events to a loopback receiver: signing,
// retries, attempts logged, rotation, scoping, auto-disable, replay, manual retry and test events.
import { Webhook as StandardWebhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "@inlay/core/platform-client";
import { WEBHOOK_EVENTS_SIGNAL } from "@/server/platform/jobs/webhook-delivery";
import { insertWebhookEvent } from "@/server/platform/repositories/webhook-events";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { pollFor, pollUntil } from "../../helpers/poll";
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from "../../helpers/webhook-receiver";

let platform: PlatformHarness;
let receiver: WebhookReceiver;
let account: Account;

beforeAll(async () => {
  // Retries 200 ms apart (the shipped schedule is minutes to hours apart); jobs looked for every 0.5 s.
  platform = await startPlatform({ webhooks: { retryScheduleMs: [0, 200, 200, 200] }, jobPollSeconds: 0.5 });
  receiver = await startWebhookReceiver();
  account = await platform.signup({ require_end_user_id: false });
});
afterAll(async () => {
  await platform.close();
  await receiver.close();
});

let counter = 0;
const freshUser = () => `hook-user-${++counter}`;

async function register(key: string, body: Record<string, unknown>) {
  const response = await platform.call("/webhooks", { key, body });
  if (response.status !== 201) throw new Error(`POST /webhooks: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: number; secret: string; url: string; events: string[]; user_id: string | null };
}

async function agentFor(key: string, userId: string | undefined) {
  const response = await platform.call("/agents", { key, body: { name: "Hooked", ...(userId ? { user_id: userId } : {}) } });
  return response.body.id as number;
}

async function runToEnd(key: string, userId: string | undefined, message = "hello") {
  const agent = await agentFor(key, userId);
  const query = userId ? { user_id: userId } : {};
  const started = await platform.call("/runs", { key, query, body: { teammate_id: agent, message, stream: false } });
  expect(started.status).toBe(200);
  return platform.waitForRun<{ id: number; status: string }>(key, started.body.id, ["completed", "failed", "awaiting_approval"], query);
}

/** Each request to `path` is a distinct receiver endpoint, so tests do not see each other's traffic. */
const at = (path: string) => (request: ReceivedRequest) => request.path === path;

async function deliveries(key: string, webhookId: number, query: Record<string, string> = {}) {
  const response = await platform.call(`/webhooks/${webhookId}/deliveries`, { key, query });
  expect(response.status).toBe(200);
  return response.body.data as any[];
}

const waitForDelivery = (key: string, webhookId: number, match: (delivery: any) => boolean, query: Record<string, string> = {}) =>
  pollFor(async () => (await deliveries(key, webhookId, query)).find(match), `a delivery of webhook ${webhookId}`);

/**
 * Resolves once every outbox event of the account is dispatched and none of its deliveries has an
 * attempt to come: the receiver has then had every request it will get, so "no stray delivery" can
 * be asserted without waiting a while for one.
 */
const deliveriesSettled = (accountId: number) =>
  pollUntil(
    async () => {
      const { prisma } = platform.database;
      const undispatched = await prisma.platformWebhookEvent.count({ where: { accountId, dispatchedAt: null } });
      const pending = await prisma.platformWebhookDelivery.count({ where: { event: { accountId }, status: "pending" } });
      return { undispatched, pending };
    },
    ({ undispatched, pending }) => undispatched === 0 && pending === 0,
    `account ${accountId}'s webhook deliveries to settle`,
  );

describe("POST /webhooks", () => {
  it("returns the whole secret once; lists and reads show it masked", async () => {
    const created = await register(account.key, { url: receiver.url("/crud"), events: ["run.completed", "run.completed", "run.failed"] });
    expect(created).toMatchObject({ url: receiver.url("/crud"), events: ["run.completed", "run.failed"], active: true, user_id: null, disabled_reason: null });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const read = await platform.call(`/webhooks/${created.id}`, { key: account.key });
    expect(read.status).toBe(200);
    expect(read.body.secret).toBe(`whsec_****${created.secret.slice(-4)}`);
    const list = await platform.call("/webhooks", { key: account.key });
    const listed = list.body.data.find((hook: any) => hook.id === created.id);
    expect(listed.secret).toBe(`whsec_****${created.secret.slice(-4)}`);
    expect(JSON.stringify(list.body)).not.toContain(created.secret);
  });

  it("subscribes to every kind when events is omitted", async () => {
    const created = await register(account.key, { url: receiver.url("/all") });
    expect(created.events).toEqual([
      "run.started",
      "run.completed",
      "run.failed",
      "run.cancelled",
      "run.awaiting_input",
      "run.message_received",
      "run.message_cancelled",
    ]);
  });

  it("stores the secret sealed, never as given", async () => {
    const created = await register(account.key, { url: receiver.url("/sealed") });
    const row = await platform.database.prisma.platformWebhook.findUniqueOrThrow({ where: { id: created.id } });
    expect(JSON.stringify(row)).not.toContain(created.secret.slice("whsec_".length));
  });

  it("refuses unknown kinds, a missing url and a bad url with 422 naming the field", async () => {
    for (const [body, field] of [
      [{ url: receiver.url(), events: ["run.exploded"] }, "events"],
      [{ events: ["run.completed"] }, "url"],
      [{ url: "not a url" }, "url"],
      [{ url: "ftp://example.com/hook" }, "url"],
      [{ url: receiver.url(), events: [] }, "events"],
    ] as const) {
      const response = await platform.call("/webhooks", { key: account.key, body });
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.error.type).toBe("validation_error");
      expect(response.body.error.message).toContain(field);
    }
  });

  it("needs a key", async () => {
    expect((await platform.call("/webhooks", { body: { url: receiver.url() } })).status).toBe(401);
  });
});

describe("PATCH and DELETE /webhooks/{id}", () => {
  it("changes url and events, pauses and resumes, and deletes", async () => {
    const created = await register(account.key, { url: receiver.url("/patch") });
    const patched = await platform.call(`/webhooks/${created.id}`, {
      key: account.key,
      method: "PATCH",
      body: { url: receiver.url("/patched"), events: ["run.failed"], active: false },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ url: receiver.url("/patched"), events: ["run.failed"], active: false });
    expect(patched.body.secret).toBe(`whsec_****${created.secret.slice(-4)}`);
    const resumed = await platform.call(`/webhooks/${created.id}`, { key: account.key, method: "PATCH", body: { active: true } });
    expect(resumed.body.active).toBe(true);
    expect((await platform.call(`/webhooks/${created.id}`, { key: account.key, method: "DELETE" })).status).toBe(204);
    expect((await platform.call(`/webhooks/${created.id}`, { key: account.key })).status).toBe(404);
    expect((await platform.call(`/webhooks/${created.id}`, { key: account.key, method: "DELETE" })).status).toBe(404);
  });

  it("rotate_secret returns the new secret in full and keeps the old one signing for 24 hours", async () => {
    const created = await register(account.key, { url: receiver.url("/rotate"), events: ["run.completed"] });
    const rotated = await platform.call(`/webhooks/${created.id}`, { key: account.key, method: "PATCH", body: { rotate_secret: true } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.secret);
    const overlapEnds = Date.parse(rotated.body.previous_secret_expires_at);
    expect(overlapEnds - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect(overlapEnds - Date.now()).toBeLessThanOrEqual(24 * 3600_000);

    await runToEnd(account.key, undefined);
    const [request] = await receiver.waitFor(1, at("/rotate"));
    const signatures = String(request!.headers["webhook-signature"]).split(" ");
    expect(signatures).toHaveLength(2);
    // Either secret alone verifies the delivery: receivers switch at their own pace.
    for (const secret of [created.secret, rotated.body.secret]) {
      expect(new StandardWebhook(secret).verify(request!.body, request!.headers as Record<string, string>)).toMatchObject({ type: "run.completed" });
      expect(await verifyWebhook(request!.body, request!.headers as Record<string, string>, secret)).toMatchObject({ type: "run.completed" });
    }
    const wrong = "whsec_" + Buffer.from("not the secret at all, really").toString("base64");
    await expect(verifyWebhook(request!.body, request!.headers as Record<string, string>, wrong)).rejects.toThrow();
  });

  it("refuses an empty events list and a bad url", async () => {
    const created = await register(account.key, { url: receiver.url("/patch-bad") });
    expect((await platform.call(`/webhooks/${created.id}`, { key: account.key, method: "PATCH", body: { events: [] } })).status).toBe(422);
    expect((await platform.call(`/webhooks/${created.id}`, { key: account.key, method: "PATCH", body: { url: "nope" } })).status).toBe(422);
  });
});

describe("scoping by user_id", () => {
  it("a webhook belongs to its scope: another end-user, the account level and another account get 404", async () => {
    const owner = freshUser();
    const created = await register(account.key, { url: receiver.url("/scoped"), user_id: owner });
    expect(created.user_id).toBe(owner);
    expect((await platform.call(`/webhooks/${created.id}`, { key: account.key, query: { user_id: owner } })).status).toBe(200);
    expect((await platform.call(`/webhooks/${created.id}`, { key: account.key })).status).toBe(404);
    expect((await platform.call(`/webhooks/${created.id}`, { key: account.key, query: { user_id: freshUser() } })).status).toBe(404);
    const other = await platform.signup();
    for (const [path, method] of [
      [`/webhooks/${created.id}`, "GET"],
      [`/webhooks/${created.id}`, "DELETE"],
      [`/webhooks/${created.id}/deliveries`, "GET"],
    ] as const) {
      expect((await platform.call(path, { key: other.key, method, query: { user_id: owner } })).status).toBe(404);
    }
    expect((await platform.call(`/webhooks/${created.id}`, { key: other.key, method: "PATCH", query: { user_id: owner }, body: { active: false } })).status).toBe(404);
    const listed = await platform.call("/webhooks", { key: account.key, query: { user_id: owner } });
    expect(listed.body.data.map((hook: any) => hook.id)).toEqual([created.id]);
    const accountLevel = await platform.call("/webhooks", { key: account.key, query: { limit: 100 } });
    expect(accountLevel.body.data.map((hook: any) => hook.id)).not.toContain(created.id);
  });

  it("delivers an end-user's runs only to that end-user's webhooks, and account-level runs only to account-level ones", async () => {
    const mine = freshUser();
    const someoneElse = freshUser();
    const tenant = await platform.signup({ require_end_user_id: false });
    const userHook = await register(tenant.key, { url: receiver.url("/scope-user"), events: ["run.completed"], user_id: mine });
    const accountHook = await register(tenant.key, { url: receiver.url("/scope-account"), events: ["run.completed"] });
    const userRun = await runToEnd(tenant.key, mine);
    const otherRun = await runToEnd(tenant.key, someoneElse);
    const accountRun = await runToEnd(tenant.key, undefined);
    const [toUser] = await receiver.waitFor(1, at("/scope-user"));
    const [toAccount] = await receiver.waitFor(1, at("/scope-account"));
    await deliveriesSettled(tenant.id);
    expect(receiver.received.filter(at("/scope-user")).map((r) => r.json.run_id)).toEqual([userRun.id]);
    expect(receiver.received.filter(at("/scope-account")).map((r) => r.json.run_id)).toEqual([accountRun.id]);
    expect(toUser!.json).toMatchObject({ user_id: mine });
    expect(toAccount!.json).toMatchObject({ user_id: null });
    expect(receiver.received.some((r) => r.json?.run_id === otherRun.id)).toBe(false);
    expect((await deliveries(tenant.key, userHook.id, { user_id: mine })).length).toBe(1);
    expect((await deliveries(tenant.key, accountHook.id)).length).toBe(1);
  });
});

describe("all_end_users (extension)", () => {
  it("an account-level webhook with all_end_users receives every end-user's runs and the account's", async () => {
    const tenant = await platform.signup({ require_end_user_id: false });
    const hook = await register(tenant.key, { url: receiver.url("/everyone"), events: ["run.completed"], all_end_users: true });
    expect(hook).toMatchObject({ user_id: null, all_end_users: true });
    const [alice, bob] = [freshUser(), freshUser()];
    const runs = [await runToEnd(tenant.key, alice), await runToEnd(tenant.key, bob), await runToEnd(tenant.key, undefined)];
    const received = await receiver.waitFor(3, at("/everyone"));
    expect(received.map((r) => r.json.run_id).sort()).toEqual(runs.map((run) => run.id).sort());
    expect(received.map((r) => r.json.user_id).sort()).toEqual([alice, bob, null].sort());
  });

  it("is refused on an end-user's webhook", async () => {
    const response = await platform.call("/webhooks", { key: account.key, body: { url: receiver.url(), user_id: freshUser(), all_end_users: true } });
    expect(response.status).toBe(422);
    expect(response.body.error.message).toContain("all_end_users");
  });
});

describe("delivery", () => {
  it("retries a failing endpoint: one logical event, N+1 attempts logged, signatures that verify", async () => {
    const tenant = await platform.signup({ require_end_user_id: false });
    const hook = await register(tenant.key, { url: receiver.url("/flaky"), events: ["run.completed"] });
    let failures = 0;
    receiver.respond((request) => (request.path === "/flaky" && failures++ < 2 ? 503 : 200));
    const run = await runToEnd(tenant.key, undefined);
    const requests = await receiver.waitFor(3, at("/flaky"));
    receiver.respond(() => 200);
    expect(requests.map((request) => request.answered)).toEqual([503, 503, 200]);
    // The same message each time: receivers deduplicate on webhook-id.
    expect(new Set(requests.map((request) => request.headers["webhook-id"])).size).toBe(1);
    for (const request of requests) {
      const headers = request.headers as Record<string, string>;
      expect(new StandardWebhook(hook.secret).verify(request.body, headers)).toMatchObject({ type: "run.completed", run_id: run.id });
      const event = await verifyWebhook(request.body, headers, hook.secret);
      expect(event).toMatchObject({ type: "run.completed", run_id: run.id, status: "completed", user_id: null });
      expect(Date.parse(event.timestamp)).not.toBeNaN();
    }
    const delivery = await waitForDelivery(tenant.key, hook.id, (d) => d.status === "succeeded");
    expect(delivery).toMatchObject({ event_type: "run.completed", run_id: run.id, attempt_count: 3, next_attempt_at: null, origin: "dispatch" });
    expect(delivery.message_id).toBe(requests[0]!.headers["webhook-id"]);
    expect(delivery.attempts.map((attempt: any) => [attempt.number, attempt.response_status, attempt.succeeded])).toEqual([
      [1, 503, false],
      [2, 503, false],
      [3, 200, true],
    ]);
    expect(delivery.attempts[0].response_body).toContain("failure");
    expect(delivery.attempts[0].error).toContain("503");
    expect((await deliveries(tenant.key, hook.id)).length).toBe(1);
    // The failures marked the webhook failing; the success ended that.
    const webhook = await platform.database.prisma.platformWebhook.findUniqueOrThrow({ where: { id: hook.id } });
    expect(webhook.failingSince).toBeNull();
  });

  it("sends each kind it subscribes to and nothing else, with the run's status and time", async () => {
    const tenant = await platform.signup({ require_end_user_id: false });
    await register(tenant.key, { url: receiver.url("/kinds"), events: ["run.started", "run.failed"] });
    const ok = await runToEnd(tenant.key, undefined);
    const failed = await runToEnd(tenant.key, undefined, "::fail boom");
    const received = await receiver.waitFor(3, at("/kinds"));
    await deliveriesSettled(tenant.id);
    const kinds = receiver.received.filter(at("/kinds")).map((r) => `${r.json.type}:${r.json.run_id}`);
    expect(kinds.sort()).toEqual([`run.failed:${failed.id}`, `run.started:${failed.id}`, `run.started:${ok.id}`].sort());
    const failure = received.find((r) => r.json.type === "run.failed")!;
    expect(failure.json).toMatchObject({ status: "failed", error: "boom" });
  });

  it("a reply cancelled while the run works on it sends run.message_received, run.message_cancelled and run.cancelled", async () => {
    const tenant = await platform.signup({ require_end_user_id: false });
    await register(tenant.key, { url: receiver.url("/messages"), events: ["run.message_received", "run.message_cancelled", "run.cancelled"] });
    const run = await runToEnd(tenant.key, undefined);
    const replied = await platform.call(`/runs/${run.id}/reply`, { key: tenant.key, body: { message: "::delay 5000\nlater", stream: false } });
    expect(replied.status).toBe(200);
    expect((await platform.call(`/runs/${run.id}/cancel`, { key: tenant.key, method: "POST" })).status).toBe(200);
    const received = await receiver.waitFor(3, at("/messages"));
    expect(received.map((r) => r.json.type).sort()).toEqual(["run.cancelled", "run.message_cancelled", "run.message_received"]);
    expect(received.find((r) => r.json.type === "run.message_cancelled")!.json).toMatchObject({ run_id: run.id, status: "cancelled" });
  });

  it("gives up after the schedule, and POST .../retry makes one more attempt", async () => {
    const tenant = await platform.signup({ require_end_user_id: false });
    const hook = await register(tenant.key, { url: receiver.url("/down"), events: ["run.completed"] });
    receiver.respond((request) => (request.path === "/down" ? 500 : 200));
    await runToEnd(tenant.key, undefined);
    const failed = await waitForDelivery(tenant.key, hook.id, (d) => d.status === "failed");
    expect(failed.attempt_count).toBe(4);
    expect(failed.error).toContain("gave up after 4 attempts");
    receiver.respond(() => 200);
    const retried = await platform.call(`/webhooks/${hook.id}/deliveries/${failed.id}/retry`, { key: tenant.key, method: "POST" });
    expect(retried.status).toBe(202);
    expect(retried.body.status).toBe("pending");
    const done = await waitForDelivery(tenant.key, hook.id, (d) => d.id === failed.id && d.status === "succeeded");
    expect(done.attempt_count).toBe(5);
    // A pending delivery is not retried twice at once; an unknown delivery is not found.
    const again = await platform.call(`/webhooks/${hook.id}/deliveries/999999/retry`, { key: tenant.key, method: "POST" });
    expect(again.status).toBe(404);
  });

  it("refuses a loopback URL when loopback is not allowed, and a delivery to one never connects", async () => {
    const strict = await startPlatform({ database: platform.database, outboundAllowLoopback: false, role: "web" });
    try {
      const tenant = await strict.signup();
      for (const url of [
        receiver.url("/strict"),
        "https://127.0.0.1/hook",
        "https://[::1]/hook",
        "https://[::ffff:127.0.0.1]/hook",
        "https://2130706433/hook",
        "https://0.0.0.0/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://10.0.0.5/hook",
        "https://192.168.1.1/hook",
      ]) {
        const response = await strict.call("/webhooks", { key: tenant.key, body: { url } });
        expect(response.status, url).toBe(422);
        expect(response.body.error.error_code).toBe("invalid_webhook_url");
      }
      expect((await strict.call("/webhooks", { key: tenant.key, body: { url: "https://hooks.example.com/inlay" } })).status).toBe(201);
    } finally {
      await strict.close();
    }
  });
});

describe("the dispatcher's wake-up", () => {
  it("comes only from a statement that wrote an event to dispatch: not from a run no webhook receives, nor from a kind no active webhook takes", async () => {
    const runtime = await platform.runtime();
    const { prisma } = platform.database;
    let wakeUps = 0;
    const unsubscribe = runtime.signals.subscribe(WEBHOOK_EVENTS_SIGNAL, () => wakeUps++);
    const event = (accountId: number, type: string) => ({ accountId, endUserId: null, runId: null, type, payload: {} });
    const latest = (accountId: number) => prisma.platformWebhookEvent.findFirstOrThrow({ where: { accountId }, orderBy: { id: "desc" } });
    try {
      const quiet = await platform.signup({ require_end_user_id: false });
      await runToEnd(quiet.key, undefined);
      // Kept for a replay where only a paused webhook listens, or where the active one takes other
      // kinds, but written dispatched: nothing to deliver, so no wake-up.
      const listening = await platform.signup({ require_end_user_id: false });
      await platform.keepWebhookEvents(listening.key);
      expect(await insertWebhookEvent(prisma, event(listening.id, "run.completed"))).toBe(1);
      expect((await latest(listening.id)).dispatchedAt).not.toBeNull();
      await register(listening.key, { url: receiver.url("/wake-up"), events: ["run.completed"] });
      expect(await insertWebhookEvent(prisma, event(listening.id, "run.started"))).toBe(1);
      expect((await latest(listening.id)).dispatchedAt).not.toBeNull();
      // One event to dispatch: its wake-up comes after any the others would have caused.
      expect(await insertWebhookEvent(prisma, event(listening.id, "run.completed"))).toBe(1);
      await pollUntil(async () => wakeUps, (count) => count > 0, "the event's wake-up");
      expect(wakeUps).toBe(1);
    } finally {
      unsubscribe();
    }
  });
});

describe("the sweep and retention jobs", () => {
  it("the sweep attempts a delivery whose job was lost", async () => {
    const tenant = await platform.signup({ require_end_user_id: false });
    const hook = await register(tenant.key, { url: receiver.url("/swept"), events: ["run.completed"] });
    await runToEnd(tenant.key, undefined);
    await receiver.waitFor(1, at("/swept"));
    const { prisma } = platform.database;
    // A delivery committed by a process that died before it enqueued the attempt: due 2 minutes ago, no job.
    const event = await prisma.platformWebhookEvent.findFirstOrThrow({ where: { accountId: tenant.id, type: "run.completed" } });
    const lost = await prisma.platformWebhookDelivery.create({
      data: { webhookId: hook.id, eventId: event.id, status: "pending", nextAttemptAt: new Date(Date.now() - 120_000) },
    });
    const runtime = await platform.runtime();
    await runtime.jobs.enqueue("webhook-sweep", {});
    await receiver.waitFor(2, at("/swept"));
    const swept = await waitForDelivery(tenant.key, hook.id, (d) => d.id === Number(lost.id) && d.status === "succeeded");
    expect(swept.attempt_count).toBe(1);
  });

  it("retention removes dispatched events older than the retention period, and their deliveries", async () => {
    const tenant = await platform.signup({ require_end_user_id: false });
    const hook = await register(tenant.key, { url: receiver.url("/retained"), events: ["run.completed"] });
    await runToEnd(tenant.key, undefined);
    await waitForDelivery(tenant.key, hook.id, (d) => d.status === "succeeded");
    const { prisma } = platform.database;
    const old = await prisma.platformWebhookEvent.create({
      data: { accountId: tenant.id, type: "run.completed", payload: { type: "run.completed" }, createdAt: new Date(Date.now() - 31 * 86_400_000), dispatchedAt: new Date() },
    });
    await prisma.platformWebhookDelivery.create({ data: { webhookId: hook.id, eventId: old.id, status: "succeeded" } });
    const runtime = await platform.runtime();
    const jobId = await runtime.jobs.enqueue("webhook-event-retention", {});
    await pollUntil(async () => (await runtime.jobs.inspect("webhook-event-retention", jobId!))?.state, (state) => state === "completed", "the retention job");
    expect(await prisma.platformWebhookEvent.findUnique({ where: { id: old.id } })).toBeNull();
    expect(await prisma.platformWebhookDelivery.count({ where: { eventId: old.id } })).toBe(0);
    // The run's own events (run.started and run.completed) stay.
    expect(await prisma.platformWebhookEvent.count({ where: { accountId: tenant.id } })).toBe(2);
    expect((await deliveries(tenant.key, hook.id)).map((d) => d.status)).toEqual(["succeeded"]);
  });
});

describe("outbound safety of deliveries", () => {
  it("a name that resolves to loopback is refused when it is dialled: the attempt is logged, nothing connects", async () => {
    // A database of its own: no other harness (which allows loopback) may take its attempts.
    const strict = await startPlatform({ outboundAllowLoopback: false, webhooks: { retryScheduleMs: [0] }, jobPollSeconds: 0.5 });
    try {
      const tenant = await strict.signup({ require_end_user_id: false });
      const port = new URL(receiver.url()).port;
      // Registration refuses a loopback name (outbound/user-url.ts) ...
      const refused = await strict.call("/webhooks", { key: tenant.key, body: { url: `https://LOCALHOST.:${port}/ssrf`, events: ["run.completed"] } });
      expect(refused.status).toBe(422);
      expect(refused.body.error.message).toMatch(/^url: localhost is a loopback address; set OUTBOUND_ALLOW_LOOPBACK=true/);
      // ... and a name that resolves to loopback only later (DNS rebinding: here the row is pointed at
      // localhost behind the API's back) is refused where it is dialled.
      const created = await strict.call("/webhooks", { key: tenant.key, body: { url: `https://hooks.example.com:${port}/ssrf`, events: ["run.completed"] } });
      expect(created.status).toBe(201);
      await strict.database.prisma.platformWebhook.update({ where: { id: created.body.id }, data: { url: `https://localhost:${port}/ssrf` } });
      const agent = (await strict.call("/agents", { key: tenant.key, body: { name: "S" } })).body.id;
      await strict.call("/runs", { key: tenant.key, body: { teammate_id: agent, message: "hi", stream: false } });
      const delivery = await pollUntil(
        async () => (await strict.call(`/webhooks/${created.body.id}/deliveries`, { key: tenant.key })).body.data[0],
        (first) => first?.status === "failed",
        "the delivery to fail",
      );
      expect(delivery).toMatchObject({ status: "failed", attempt_count: 1 });
      expect(delivery.attempts[0]).toMatchObject({ response_status: null, succeeded: false });
      expect(delivery.attempts[0].error).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
      expect(receiver.received.filter(at("/ssrf"))).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });
});

describe("auto-disable, re-enable and replay", () => {
  it("disables an endpoint failing for the whole period, then PATCH active and replay deliver what it missed", async () => {
    // Here the period is 0: the first failure is already "failing for the period". A database of its
    // own, so no other harness's handlers (with the default period) take its attempts.
    const strictPeriod = await startPlatform({
      webhooks: { retryScheduleMs: [0, 200], disableAfterMs: 0 },
      jobPollSeconds: 0.5,
    });
    try {
      const tenant = await strictPeriod.signup({ require_end_user_id: false });
      const since = new Date().toISOString();
      const created = await strictPeriod.call("/webhooks", { key: tenant.key, body: { url: receiver.url("/disable"), events: ["run.completed"] } });
      const hookId = created.body.id as number;
      receiver.respond((request) => (request.path === "/disable" ? 500 : 200));
      const agent = (await strictPeriod.call("/agents", { key: tenant.key, body: { name: "D" } })).body.id;
      const run = await strictPeriod.call("/runs", { key: tenant.key, body: { teammate_id: agent, message: "hi", stream: false } });
      await receiver.waitFor(1, at("/disable"));
      const hook = await pollUntil(async () => (await strictPeriod.call(`/webhooks/${hookId}`, { key: tenant.key })).body, (now) => !now.active, "the webhook to be disabled");
      expect(hook).toMatchObject({ active: false, disabled_reason: expect.stringContaining("every delivery attempt failed") });
      const list = await strictPeriod.call(`/webhooks/${hookId}/deliveries`, { key: tenant.key });
      expect(list.body.data[0]).toMatchObject({ status: "failed", attempt_count: 1, error: expect.stringContaining("disabled") });
      // Off: no more attempts, and replay is refused until it is back on.
      const refused = await strictPeriod.call(`/webhooks/${hookId}/replay`, { key: tenant.key, body: { since } });
      expect(refused.status).toBe(409);
      expect(refused.body.error.error_code).toBe("webhook_inactive");

      receiver.respond(() => 200);
      const enabled = await strictPeriod.call(`/webhooks/${hookId}`, { key: tenant.key, method: "PATCH", body: { active: true } });
      expect(enabled.body).toMatchObject({ active: true, disabled_reason: null });
      const replay = await strictPeriod.call(`/webhooks/${hookId}/replay`, { key: tenant.key, body: { since } });
      expect(replay.status).toBe(202);
      expect(replay.body).toEqual({ queued: 1, has_more: false, next_since: null });
      const delivered = await receiver.waitFor(1, (r) => r.path === "/disable" && r.answered === 200);
      expect(delivered[0]!.json).toMatchObject({ type: "run.completed", run_id: run.body.id });
      const replayed = (await strictPeriod.call(`/webhooks/${hookId}/deliveries`, { key: tenant.key })).body.data[0];
      expect(replayed).toMatchObject({ origin: "replay" });
      // The replay carries the original message id: a receiver that saw it already can tell.
      expect(replayed.message_id).toBe(list.body.data[0].message_id);

      const badWindow = await strictPeriod.call(`/webhooks/${hookId}/replay`, { key: tenant.key, body: { since, until: since } });
      expect(badWindow.status).toBe(422);
      expect((await strictPeriod.call(`/webhooks/${hookId}/replay`, { key: tenant.key, body: {} })).status).toBe(422);
    } finally {
      await strictPeriod.close();
    }
  });
});

describe("POST /webhooks/{id}/test (extension)", () => {
  it("sends one signed webhook.test to that webhook only, whatever its events, and no other webhook or replay sees it", async () => {
    const tenant = await platform.signup({ require_end_user_id: false });
    const owner = freshUser();
    const hook = await register(tenant.key, { url: receiver.url("/test-event"), events: ["run.failed"], user_id: owner });
    const bystander = await register(tenant.key, { url: receiver.url("/test-bystander"), user_id: owner });
    const since = new Date(Date.now() - 1_000).toISOString();

    const sent = await platform.call(`/webhooks/${hook.id}/test`, { key: tenant.key, method: "POST", query: { user_id: owner } });
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ webhook_id: hook.id, event_type: "webhook.test", origin: "test", status: "pending", run_id: null });
    const [request] = await receiver.waitFor(1, at("/test-event"));
    const event = await verifyWebhook(request!.body, request!.headers as Record<string, string>, hook.secret);
    expect(event).toMatchObject({ type: "webhook.test", webhook_id: hook.id, user_id: owner });
    expect(request!.headers["webhook-id"]).toBe(sent.body.message_id);
    const done = await waitForDelivery(tenant.key, hook.id, (d) => d.id === sent.body.id && d.status === "succeeded", { user_id: owner });
    expect(done.attempt_count).toBe(1);

    // A replay covers the kinds a webhook subscribes to: the test event is not among them.
    const replay = await platform.call(`/webhooks/${bystander.id}/replay`, { key: tenant.key, query: { user_id: owner }, body: { since } });
    expect(replay.body).toMatchObject({ queued: 0 });
    await deliveriesSettled(tenant.id);
    expect(receiver.received.filter(at("/test-bystander"))).toHaveLength(0);
  });

  it("is tried once against a failing endpoint and leaves its health alone", async () => {
    const tenant = await platform.signup({ require_end_user_id: false });
    const hook = await register(tenant.key, { url: receiver.url("/test-down") });
    receiver.respond((request) => (request.path === "/test-down" ? 500 : 200));
    try {
      const sent = await platform.call(`/webhooks/${hook.id}/test`, { key: tenant.key, method: "POST" });
      const failed = await waitForDelivery(tenant.key, hook.id, (d) => d.id === sent.body.id && d.status === "failed");
      expect(failed.attempt_count).toBe(1);
      expect(failed.attempts.map((attempt: any) => attempt.response_status)).toEqual([500]);
      const webhook = await platform.database.prisma.platformWebhook.findUniqueOrThrow({ where: { id: hook.id } });
      expect(webhook.failingSince).toBeNull();
    } finally {
      receiver.respond(() => 200);
    }
  });

  it("is refused while the webhook is off (409), and another scope's or account's webhook is not found", async () => {
    const tenant = await platform.signup({ require_end_user_id: false });
    const owner = freshUser();
    const hook = await register(tenant.key, { url: receiver.url("/test-scope"), user_id: owner });
    expect((await platform.call(`/webhooks/${hook.id}/test`, { key: tenant.key, method: "POST" })).status).toBe(404);
    expect((await platform.call(`/webhooks/${hook.id}/test`, { key: tenant.key, method: "POST", query: { user_id: freshUser() } })).status).toBe(404);
    const other = await platform.signup();
    expect((await platform.call(`/webhooks/${hook.id}/test`, { key: other.key, method: "POST", query: { user_id: owner } })).status).toBe(404);
    await platform.call(`/webhooks/${hook.id}`, { key: tenant.key, method: "PATCH", query: { user_id: owner }, body: { active: false } });
    const paused = await platform.call(`/webhooks/${hook.id}/test`, { key: tenant.key, method: "POST", query: { user_id: owner } });
    expect(paused.status).toBe(409);
    expect(paused.body.error.error_code).toBe("webhook_inactive");
  });
});
