// @inlay/server: what a vendor's backend needs of Inlay. Mint a chat session for one of your users in
// the workspace your embed secret belongs to (POST /api/embed/sessions: your own user id, no Inlay
// account), call the platform with the typed client, and verify Inlay's webhooks (Standard Webhooks).
// Web APIs only (fetch, Web Crypto), so it runs in Node, an edge runtime or a worker.
export {
  createPlatformClient,
  PlatformClient,
  PlatformApiError,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookHeaders,
} from "@inlay/core";
export { createInlayServer, InlaySessionError, type InlayServer, type InlayServerOptions, type MintedSession, type MintSessionInput } from "./sessions";
