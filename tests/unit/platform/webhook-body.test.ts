// What a webhook delivery sends: the body (the event's payload and time, within the 256 KB cap) and
// its Standard Webhooks signature headers, one signature per live secret.
import { Webhook as StandardWebhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { signatureHeaders, WEBHOOK_PAYLOAD_MAX_BYTES, webhookBody } from "@/server/platform/jobs/webhook-delivery";

const at = new Date("2026-11-25T10:00:00.123Z");

describe("webhookBody", () => {
  it("is the payload with the event's time", () => {
    const body = JSON.parse(webhookBody({ type: "run.completed", run_id: 7, status: "completed", output_data: { ok: true } }, at));
    expect(body).toEqual({ type: "run.completed", run_id: 7, status: "completed", output_data: { ok: true }, timestamp: "2026-11-25T10:00:00.123Z" });
  });

  it("leaves out output_data over the cap and says so", () => {
    const huge = { type: "run.completed", run_id: 7, status: "completed", output_data: { text: "x".repeat(WEBHOOK_PAYLOAD_MAX_BYTES) } };
    const body = webhookBody(huge, at);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(WEBHOOK_PAYLOAD_MAX_BYTES);
    expect(JSON.parse(body)).toEqual({ type: "run.completed", run_id: 7, status: "completed", timestamp: at.toISOString(), truncated: true });
  });
});

describe("signatureHeaders", () => {
  const current = `whsec_${Buffer.from("current secret of 24 bytes").toString("base64")}`;
  const previous = `whsec_${Buffer.from("previous secret 24 bytes").toString("base64")}`;

  it("signs with every live secret; each verifies on its own", () => {
    const body = webhookBody({ type: "run.started", run_id: 1, status: "running" }, at);
    const now = new Date();
    const headers = signatureHeaders("msg_1", body, [current, previous], now);
    expect(headers["webhook-id"]).toBe("msg_1");
    expect(headers["webhook-timestamp"]).toBe(String(Math.floor(now.getTime() / 1000)));
    expect(headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    for (const secret of [current, previous]) expect(new StandardWebhook(secret).verify(body, headers)).toMatchObject({ run_id: 1 });
    const other = `whsec_${Buffer.from("some other secret here!!").toString("base64")}`;
    expect(() => new StandardWebhook(other).verify(body, headers)).toThrow();
  });
});
