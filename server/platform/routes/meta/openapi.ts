// GET /openapi.json: the machine-readable description of the v2 routes (no auth), and of the bodies the
// platform POSTs to webhooks (the document's `webhooks`).
import { z } from "zod";
import { WEBHOOK_EVENT_TYPES, WEBHOOK_PAYLOADS, WEBHOOK_TEST_EVENT } from "@inlay/core/schemas/webhooks";
import type { PlatformApp } from "@/server/platform/context";
import { PLATFORM_BASE_PATH } from "@/server/platform/context";

/** The OpenAPI 3.1 document of the app's routes, paths relative to the base path. */
export function openApiDocument(app: PlatformApp) {
  const document = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Agent Platform API",
      version: "2",
      description: "Inlay's self-hosted implementation of the Agent Platform API v2.",
    },
    servers: [{ url: PLATFORM_BASE_PATH }],
  });
  // Routes are registered under the base path; the spec describes them relative to it.
  const paths = Object.fromEntries(
    Object.entries(document.paths ?? {}).map(([path, item]) => [
      path.startsWith(PLATFORM_BASE_PATH) ? path.slice(PLATFORM_BASE_PATH.length) || "/" : path,
      item,
    ]),
  );
  return { ...document, paths };
}

// Standard Webhooks signing (docs/platform-api.md, "Webhooks": Signing).
const SignatureHeaders = z.object({
  "webhook-id": z.string().meta({ description: "msg_<event id>: the same on every attempt and replay of the event; deduplicate on it" }),
  "webhook-timestamp": z.string().meta({ description: "Unix seconds of the attempt" }),
  "webhook-signature": z.string().meta({
    description: 'v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">, one per live secret, space-separated',
  }),
});

function registerWebhooks(app: PlatformApp) {
  const spec = new Set<string>(WEBHOOK_EVENT_TYPES);
  for (const [type, schema] of Object.entries(WEBHOOK_PAYLOADS)) {
    app.openAPIRegistry.registerWebhook({
      method: "post",
      path: type,
      operationId: `webhook_${type.replace(/\W/g, "_")}`,
      tags: ["webhooks"],
      // Signed with the webhook's secret (the headers), not an API key.
      security: [],
      summary: spec.has(type)
        ? `${type} event`
        : type === WEBHOOK_TEST_EVENT
          ? `${type} event (an extension: sent by POST /webhooks/{webhook_id}/test)`
          : `${type} event (an extension: sent only to webhooks that name it)`,
      description: schema.meta()?.description,
      request: { headers: SignatureHeaders, body: { required: true, content: { "application/json": { schema } } } },
      responses: {
        200: { description: "Any 2xx within 15 seconds acknowledges it; anything else (a 3xx included) is retried for about 28 hours" },
      },
    });
  }
}

export function register(app: PlatformApp) {
  registerWebhooks(app);
  app.get("/openapi.json", (c) => c.json(openApiDocument(app)));
}
