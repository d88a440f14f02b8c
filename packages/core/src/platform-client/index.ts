// The platform client's public surface. Isomorphic: no Node-only API (ESLint keeps node:* out).
export {
  PlatformClient,
  createPlatformClient,
  createSession,
  refreshSession,
  signup,
  token,
  type PublicOptions,
} from "./client";
export type { CallReport, ClientOptions, RequestOptions } from "./transport";
export { operationName } from "./operation-name";
export { PagePromise } from "./pagination";
export { RunStream, normalizeFrame } from "./streaming";
export type { CreatedRun } from "./resources/runs";
export { listPlans } from "./resources/money";
export {
  AuthenticationError,
  BillingError,
  ConflictError,
  ConnectionError,
  ConnectionTimeoutError,
  IdempotentReplayTerminalError,
  InternalServerError,
  isRefusal,
  NotFoundError,
  PermissionDeniedError,
  PlatformApiError,
  RateLimitError,
  UserAbortError,
  ValidationError,
} from "./errors";
export {
  isRunWebhookEvent,
  readHeader,
  verifyWebhook,
  WebhookVerificationError,
  type RunWebhookEvent,
  type VerifyWebhookOptions,
  type WebhookEvent,
  type WebhookEventType,
  type WebhookHeaders,
  type WebhookVerificationReason,
} from "./webhooks";
export type * from "./types";
