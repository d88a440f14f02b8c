// POST /hooks/agents/{token} (Inlay's inbound URL for agent webhooks): public, the token is the
// credential. Any content type: the body (256 KB at most, app.ts's limit: 413) is the run's message.
// Unauthenticated, so the IP rate limit (middleware/rate-limit.ts) applies.
import { AgentWebhookTokenParam } from "@inlay/core/schemas/agents";
import { IdempotencyKeyHeaders } from "@inlay/core/schemas/common";
import { TaskWebhookAccepted } from "@inlay/core/schemas/triggers";
import type { PlatformApp } from "../../context";
import { receiveAgentWebhook } from "../../entry-points/inbound-webhooks";
import { defineRoute, errorResponse, json } from "../define";
import { runServicesOf } from "../request";

export const route = defineRoute({
  operationId: "receiveAgentWebhook",
  method: "post",
  path: "/hooks/agents/{token}",
  tags: ["agents"],
  summary: "Start a run of the agent whose webhook URL this is (Inlay extension)",
  description:
    "The body, of any content type (JSON is parsed and pretty-printed, anything else passed as text), is the run's " +
    "message under \"Webhook payload:\". No API key: the URL's token is the credential.",
  access: "public",
  request: { params: AgentWebhookTokenParam, headers: IdempotencyKeyHeaders },
  responses: {
    202: json(TaskWebhookAccepted, "The run started (or, on an Idempotency-Key replay, the first call's run, with Idempotent-Replay: true)"),
    402: errorResponse("The account's balance or a run cap refuses the run"),
    409: errorResponse("The webhook is paused (webhook_paused), the agent is disabled, or the Idempotency-Key was used with another request"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const { accepted, replay } = await receiveAgentWebhook(runServicesOf(c), {
      token: c.req.valid("param").token,
      contentType: c.req.header("content-type"),
      body: await c.req.text(),
      idempotencyKey: c.req.valid("header")["idempotency-key"],
    });
    return c.json(accepted, 202, replay ? { "idempotent-replay": "true" } : {});
  });
}
