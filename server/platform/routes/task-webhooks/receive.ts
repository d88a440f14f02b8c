// POST /hooks/tasks/{token} (Inlay's inbound URL for task webhooks): public, the token is the
// credential. Any content type: the body (256 KB at most, app.ts's limit: 413) is the payload the run's
// message carries. Unauthenticated, so the IP rate limit (middleware/rate-limit.ts) applies.
import { IdempotencyKeyHeaders } from "@inlay/core/schemas/common";
import { TaskWebhookAccepted, TaskWebhookTokenParam } from "@inlay/core/schemas/triggers";
import type { PlatformApp } from "../../context";
import { receiveTaskWebhook } from "../../entry-points/inbound-webhooks";
import { defineRoute, errorResponse, json } from "../define";
import { runServicesOf } from "../request";

export const route = defineRoute({
  operationId: "receiveTaskWebhook",
  method: "post",
  path: "/hooks/tasks/{token}",
  tags: ["tasks"],
  summary: "Start a run of the task whose webhook URL this is (Inlay extension)",
  description:
    "The body, of any content type (JSON is parsed and pretty-printed, anything else passed as text), is given to the " +
    "agent under \"Webhook payload:\" after the task's instructions. No API key: the URL's token is the credential.",
  access: "public",
  request: { params: TaskWebhookTokenParam, headers: IdempotencyKeyHeaders },
  responses: {
    202: json(TaskWebhookAccepted, "The run started (or, on an Idempotency-Key replay, the first call's run, with Idempotent-Replay: true)"),
    402: errorResponse("The account's balance or a run cap refuses the run"),
    409: errorResponse("The webhook is paused (webhook_paused), or the Idempotency-Key was used with another request"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { accepted, replay } = await receiveTaskWebhook(runServicesOf(c), {
      token: c.req.valid("param").token,
      contentType: c.req.header("content-type"),
      body: await c.req.text(),
      idempotencyKey: c.req.valid("header")["idempotency-key"],
    });
    return c.json(accepted, 202, replay ? { "idempotent-replay": "true" } : {});
  });
}
