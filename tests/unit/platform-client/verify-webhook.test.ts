// verifyWebhook against the Standard Webhooks reference implementation, both ways.
import { createHmac, randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { isRunWebhookEvent, verifyWebhook, WebhookVerificationError, type WebhookVerificationReason } from "@inlay/core/platform-client";

const secret = `whsec_${randomBytes(24).toString("base64")}`;
const otherSecret = `whsec_${randomBytes(24).toString("base64")}`;
const NOW = Date.parse("2025-06-01T12:00:00Z");
const now = () => NOW;
const body = JSON.stringify({ type: "run.completed", run_id: 42, status: "completed", timestamp: "2025-06-01T12:00:00.000Z", user_id: "u_1" });

/** Headers signed by the reference implementation. */
function signed(options: { id?: string; at?: number; payload?: string; with?: string } = {}) {
  const id = options.id ?? "msg_1";
  const at = options.at ?? NOW;
  const signature = new Webhook(options.with ?? secret).sign(id, new Date(at), options.payload ?? body);
  return { "webhook-id": id, "webhook-timestamp": String(Math.floor(at / 1000)), "webhook-signature": signature };
}

async function rejection(promise: Promise<unknown>): Promise<WebhookVerificationReason> {
  const error = await promise.then(
    () => expect.fail("verified"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return (error as WebhookVerificationError).reason;
}

describe("verifyWebhook", () => {
  it("accepts what the reference implementation signs, and returns the parsed body", async () => {
    await expect(verifyWebhook(body, signed(), secret, { now })).resolves.toEqual(JSON.parse(body));
  });

  it("tells a run's event from the account's and the test event, for narrowing on `type`", async () => {
    const lowBalance = JSON.stringify({ type: "billing.low_balance", account_id: 1, balance_micros: 10, balance_usd: "0.00", low_balance_threshold_cents: 100, crossing: 1, user_id: null, timestamp: "2025-06-01T12:00:00.000Z" });
    const test = JSON.stringify({ type: "webhook.test", webhook_id: 3, user_id: null, message: "hello", timestamp: "2025-06-01T12:00:00.000Z" });
    const run = await verifyWebhook(body, signed(), secret, { now });
    expect(isRunWebhookEvent(run) && run.run_id).toBe(42);
    for (const payload of [lowBalance, test]) {
      expect(isRunWebhookEvent(await verifyWebhook(payload, signed({ payload }), secret, { now }))).toBe(false);
    }
  });

  it("signs content the reference implementation accepts where ours does", async () => {
    const id = "msg_2";
    const at = Math.floor(Date.now() / 1000);
    const key = Buffer.from(secret.slice("whsec_".length), "base64");
    const mac = createHmac("sha256", key).update(`${id}.${at}.${body}`).digest("base64");
    const headers = { "webhook-id": id, "webhook-timestamp": String(at), "webhook-signature": `v1,${mac}` };

    await expect(verifyWebhook(body, headers, secret)).resolves.toMatchObject({ run_id: 42 });
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it("accepts a header with two signatures when only the second matches (secret rotation)", async () => {
    const headers = signed();
    const old = signed({ with: otherSecret })["webhook-signature"];
    headers["webhook-signature"] = `${old} ${headers["webhook-signature"]}`;
    await expect(verifyWebhook(body, headers, secret, { now })).resolves.toMatchObject({ type: "run.completed" });
  });

  it("accepts a raw base64 secret without the whsec_ prefix", async () => {
    await expect(verifyWebhook(body, signed(), secret.slice("whsec_".length), { now })).resolves.toMatchObject({ run_id: 42 });
  });

  it("rejects a tampered body", async () => {
    expect(await rejection(verifyWebhook(body.replace("42", "43"), signed(), secret, { now }))).toBe("bad_signature");
  });

  it("rejects a signature made with another secret", async () => {
    expect(await rejection(verifyWebhook(body, signed({ with: otherSecret }), secret, { now }))).toBe("bad_signature");
  });

  it("rejects signatures of another version or that are not base64", async () => {
    const mac = signed()["webhook-signature"].slice("v1,".length);
    const headers = { ...signed(), "webhook-signature": `v2,${mac} v1a,${mac} v1,not*base64 v1` };
    expect(await rejection(verifyWebhook(body, headers, secret, { now }))).toBe("bad_signature");
  });

  it("rejects a timestamp 10 minutes old and one 10 minutes in the future", async () => {
    const old = signed({ at: NOW - 10 * 60_000 });
    const future = signed({ at: NOW + 10 * 60_000 });
    expect(await rejection(verifyWebhook(body, old, secret, { now }))).toBe("timestamp_out_of_range");
    expect(await rejection(verifyWebhook(body, future, secret, { now }))).toBe("timestamp_out_of_range");
    // Within a wider tolerance they verify.
    await expect(verifyWebhook(body, old, secret, { now, toleranceSeconds: 15 * 60 })).resolves.toMatchObject({ type: "run.completed", run_id: 42 });
  });

  it("rejects a delivery missing any of the three headers, or with a timestamp that is not a number", async () => {
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"] as const) {
      const headers: Record<string, string | undefined> = { ...signed(), [name]: undefined };
      expect(await rejection(verifyWebhook(body, headers, secret, { now }))).toBe("missing_headers");
    }
    const headers = { ...signed(), "webhook-timestamp": "1748779200abc" };
    expect(await rejection(verifyWebhook(body, headers, secret, { now }))).toBe("missing_headers");
  });

  it("rejects a malformed or empty secret", async () => {
    expect(await rejection(verifyWebhook(body, signed(), "whsec_not*base64", { now }))).toBe("bad_secret");
    expect(await rejection(verifyWebhook(body, signed(), "whsec_", { now }))).toBe("bad_secret");
  });

  it("rejects a signed body that is not a JSON object", async () => {
    expect(await rejection(verifyWebhook("not json", signed({ payload: "not json" }), secret, { now }))).toBe("bad_payload");
    expect(await rejection(verifyWebhook("[1]", signed({ payload: "[1]" }), secret, { now }))).toBe("bad_payload");
  });

  it("reads a Headers object and plain-object headers in any case, and arrays of one value", async () => {
    const plain = signed();
    await expect(verifyWebhook(body, new Headers(plain), secret, { now })).resolves.toMatchObject({ run_id: 42 });
    const upper = Object.fromEntries(Object.entries(plain).map(([k, v]) => [k.toUpperCase(), v]));
    await expect(verifyWebhook(body, upper, secret, { now })).resolves.toMatchObject({ run_id: 42 });
    const arrays = Object.fromEntries(Object.entries(plain).map(([k, v]) => [k, [v]]));
    await expect(verifyWebhook(body, arrays, secret, { now })).resolves.toMatchObject({ run_id: 42 });
  });

  it("accepts a signature header repeated in a Headers object (joined with a comma)", async () => {
    const plain = signed();
    const headers = new Headers(plain);
    headers.set("webhook-signature", signed({ with: otherSecret })["webhook-signature"]);
    headers.append("webhook-signature", plain["webhook-signature"]);
    await expect(verifyWebhook(body, headers, secret, { now })).resolves.toMatchObject({ run_id: 42 });
  });

  it("verifies a Uint8Array payload byte for byte", async () => {
    const unicode = JSON.stringify({ type: "run.message_received", run_id: 7, status: "running", timestamp: "t", user_id: null, note: "café ✓" });
    const bytes = new TextEncoder().encode(unicode);
    await expect(verifyWebhook(bytes, signed({ payload: unicode }), secret, { now })).resolves.toMatchObject({ note: "café ✓", user_id: null });
    // A view into a larger buffer signs only its own bytes.
    const padded = new Uint8Array(bytes.length + 8);
    padded.set(bytes, 4);
    await expect(verifyWebhook(padded.subarray(4, 4 + bytes.length), signed({ payload: unicode }), secret, { now })).resolves.toMatchObject({ note: "café ✓" });
  });
});
