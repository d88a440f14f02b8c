// The platform's configuration: what lib/env.ts settles at start (server/platform/config.ts builds it)
// or a test passes. Plain types, apart from the Hono context (context.ts), so services and the runtime
// take their settings without importing the request's types. The settings of each part live here
// with the rest, below the services that read them; their defaults stay with those services.
import type { z } from "zod";
import type { PlanCatalogEntry } from "@inlay/core/schemas/billing";
import type { PaymentSettings } from "./payments/settings";
import type { ModelSettings } from "./models/catalog";

/** Who may POST /signup (INLAY_SIGNUP): anyone, holders of an operator's invite, or nobody but the operator. */
export type SignupMode = "open" | "closed" | "invite";

export interface PlatformConfig {
  keyPrefix: string;
  /** Who may POST /signup (INLAY_SIGNUP; services/account/signup-policy.ts); unset: open. */
  signup?: SignupMode;
  /**
   * The platform's public {base_url} (…/api/v2, no trailing slash), INLAY_PLATFORM_PUBLIC_URL: every
   * link the platform hands out starts here (verification and invite mails, doc_url, topup_url, payment
   * pages, webhook URLs, OAuth callbacks), never at the request's Host header, which a caller controls.
   */
  publicBaseUrl: string;
  rateLimits: { accountPerMinute: number; ipPerMinute: number; signupPerMinute: number; loginPerMinute?: number };
  /** Read the client IP from X-Forwarded-For (behind a trusted reverse proxy). */
  trustProxy: boolean;
  models: ModelSettings;
  /** Money settings; omitted ones take BILLING_DEFAULTS (services/billing/billing.ts). */
  billing?: Partial<BillingSettings>;
  /** The plan catalogue (services/billing/plans.ts): the operator's file, or the catalogue itself; the defaults otherwise. */
  plans?: { file?: string; catalogue?: z.infer<typeof PlanCatalogEntry>[] };
  /** Leases and resuming runs whose process died; unset fields take the defaults (runtime/recovery.ts). */
  runs?: Partial<RunTimings>;
  /** Days after a run finished before its text deltas are merged (jobs/event-retention.ts); default 30. */
  runEventRetentionDays?: number;
  /** Seals the secrets the platform must read back, such as webhook signing secrets (server/shared/secret-box.ts). */
  secretKey: string;
  /**
   * Secrets sealing used before (INLAY_SECRET_KEY_PREVIOUS): app credentials sealed under one of them
   * still open, and are sealed again under secretKey when next written (a token refresh).
   */
  previousSecretKeys?: string[];
  /** The app catalogue: the apps file, credentials and URL overrides, the redirect allow-list (apps/catalog.ts). */
  apps?: AppSettings;
  /** Delivery timings; unset fields take WEBHOOK_DEFAULTS (jobs/webhook-delivery.ts). */
  webhooks?: Partial<WebhookSettings>;
  /** Calls to URLs users supply may reach loopback over plain http (development and tests only). */
  outboundAllowLoopback?: boolean;
  /**
   * Embedded only: webhook URLs the embedding app itself receives (its run ledger's endpoint). A webhook
   * with exactly such a URL is accepted whatever the outbound rules, and its deliveries are handed to
   * `receive` in-process (signed as any other), never sent over the network. A foreign account could
   * register the URL too, but its deliveries do not verify against the app's secret.
   */
  inProcessWebhooks?: { url: string; receive: (request: Request) => Promise<Response> }[];
  /** The script sandbox of script tool servers (tool-servers/script-sandbox.ts); unset fields take its defaults. */
  scripts?: { timeoutMs?: number; memoryMb?: number; poolSize?: number };
  /** Browser session lifetimes; unset fields take SESSION_DEFAULTS (services/account/sessions.ts). */
  sessions?: Partial<SessionSettings>;
  /** Payments: the adapter, its credentials, the operator key (payments/settings.ts). */
  payments?: PaymentSettings;
  /** Agent inboxes and email triggers (docs/platform-api.md, "Email"); defaults in services/messaging/email-addresses.ts. */
  email?: Partial<EmailSettings>;
  /** POST /judgments: the kill switch and the judge models (services/models/judgments.ts); unset fields take its defaults. */
  judgments?: Partial<JudgmentSettings>;
}

export interface JudgmentSettings {
  /** The kill switch: off, every judgment answers 503. */
  enabled: boolean;
  /** The catalogue id of platform-funded judgments; unset: the deployment's default model. */
  model?: string;
  /** The catalogue id (openai/… or anthropic/…) a customer's own key is used with. */
  customerModel: string;
  /** The provider endpoint for customer keys; unset: the provider's public endpoint. */
  customerBaseUrl?: string;
}

export interface EmailSettings {
  /** Inbox addresses are <slug>@domain. */
  domain: string;
  /** The inbound SMTP server (worker role); none when absent. */
  smtp?: { port: number; host: string; maxBytes: number };
  /** How often an agent's fetchmail polls its outside mailbox (jobs/fetchmail-polls.ts); default 60. */
  fetchmailPollSeconds?: number;
}

export interface WebhookSettings {
  /** The wait before each attempt: the first entry before the first attempt (usually 0). */
  retryScheduleMs: number[];
  /** An endpoint failing this long (every attempt since its last success) is disabled. */
  disableAfterMs: number;
  /** Each attempt's timeout, response included. */
  timeoutMs: number;
  /**
   * An in-process first attempt (inProcessWebhooks) waits for this process's runs to say their first
   * words, up to this long after its dispatch (runtime/fair-share.ts).
   */
  inProcessWaitMs: number;
}

export interface RunTimings {
  /** How long a worker's claim on a run lasts; renewed every third of it. */
  leaseMs: number;
  /** How long a lease must have lapsed before another worker claims the run. */
  graceMs: number;
  /** How often every worker looks for claimable runs besides its wake-ups. */
  sweepEveryMs: number;
  /** Resumes allowed per run before it ends failed and interrupted. */
  maxResumes: number;
  /** How often an idle run stream sends a keep-alive comment and looks at the log again. */
  keepAliveMs: number;
}

/** Money settings (services/billing/billing.ts, BILLING_DEFAULTS). */
export interface BillingSettings {
  /** The test credit a new account gets at signup. */
  signupCreditMicros: number;
  /** What a run reserves out of the balance while it runs (or the whole balance, when less). */
  runHoldMicros: number;
  /** Where TOKEN_BALANCE_DEPLETED sends people; default {base_url}/billing/topup. */
  topupUrl?: string;
}

/** Browser session lifetimes (services/account/sessions.ts, SESSION_DEFAULTS). */
export interface SessionSettings {
  accessTtlMs: number;
  refreshTtlMs: number;
}

/** What configuration may change on any app: credentials and where its endpoints are. */
export interface AppOverride {
  clientId?: string;
  clientSecret?: string;
  authorizationUrl?: string;
  tokenUrl?: string;
  revocationUrl?: string;
  issuer?: string;
  apiBaseUrl?: string;
  scopes?: string[];
  nativeRedirect?: boolean;
}

/** The app catalogue's settings (apps/catalog.ts). */
export interface AppSettings {
  /** How often app-event triggers ask their app for new events (jobs/app-trigger-polls.ts); default 60 s. */
  triggerPollSeconds?: number;
  /** Path of the apps file (INLAY_APPS_FILE), read once when the catalogue is built. */
  file?: string;
  /** Or the file's content, already parsed (tests, embedders). */
  content?: unknown;
  /** Per-slug overrides (env credentials, tests' loopback URLs); they win over the file. */
  overrides?: Record<string, AppOverride>;
  /**
   * Origins a connect's redirect_uri may be on, besides the platform's own origin (as the caller
   * reached it). The file's redirect_origins are added.
   */
  redirectOrigins?: string[];
  /**
   * The development demo app (definitions/demo-notes.ts), served by the embedding framework: set only
   * by it in development (server/framework/demo-app), never in production; absent, the catalogue lacks the app.
   */
  demo?: DemoAppSettings;
}

/** Where the demo app is served and the client secret both sides derive from the installation's secret. */
export interface DemoAppSettings {
  /** The framework's origin plus /demo-app, e.g. http://localhost:3000/demo-app. */
  baseUrl: string;
  clientSecret: string;
}
