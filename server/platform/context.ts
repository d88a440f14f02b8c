// What every platform handler can reach: its dependencies and the per-request variables set by
// middleware. Kept apart from app.ts so route files can import the types without a cycle.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { PrismaClient } from "@/server/generated/prisma/client";
import type { Database } from "@/server/db";
import type { Limiters } from "./middleware/rate-limit";
import type { AuthContext } from "./services/auth";
import type { IdempotentCall } from "./services/idempotency";
import type { RunEventBus } from "./runtime/event-bus";
import type { RunEventWriter } from "./runtime/event-writer";
import type { KnownRun, RunWorker } from "./runtime/executor";
import type { LiveContent } from "./runtime/live-content";
import type { HotCache } from "./runtime/hot-cache";
import type { Signals } from "./runtime/signals";
import type { JobQueue } from "./jobs/queue";
import type { Mailer } from "./services/mailer";
import type { BillingSettings } from "./services/billing";
import type { Plan } from "./services/plans";
import type { PaymentSettings } from "./payments/settings";
import type { ModelSettings } from "./services/models";
import type { AppSettings } from "./apps/catalog";
import type { SessionSettings } from "./services/sessions";
import type { ScriptSandbox } from "./tool-servers/script-sandbox";
import type { RuntimeModel } from "./runtime/models/providers";

export interface PlatformConfig {
  keyPrefix: string;
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
  /** Money settings; omitted ones take BILLING_DEFAULTS (services/billing.ts). */
  billing?: Partial<BillingSettings>;
  /** The plan catalogue (services/plans.ts): the operator's file, or the catalogue itself; the defaults otherwise. */
  plans?: { file?: string; catalogue?: Plan[] };
  /** Leases and resuming runs whose process died; unset fields take the defaults (runtime/recovery.ts). */
  runs?: Partial<RunTimings>;
  /** Days after a run finished before its text deltas are merged (jobs/event-retention.ts); default 30. */
  runEventRetentionDays?: number;
  /** Seals the secrets the platform must read back, such as webhook signing secrets (server/secret-box.ts). */
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
  /** The script sandbox of script tool servers (tool-servers/script-sandbox.ts); unset fields take its defaults. */
  scripts?: { timeoutMs?: number; memoryMb?: number; poolSize?: number };
  /** Browser session lifetimes; unset fields take SESSION_DEFAULTS (services/sessions.ts). */
  sessions?: Partial<SessionSettings>;
  /** Payments: the adapter, its credentials, the operator key (payments/settings.ts). */
  payments?: PaymentSettings;
  /** Agent inboxes and email triggers (docs/platform-api.md, "Email"); defaults in services/email-addresses.ts. */
  email?: Partial<EmailSettings>;
  /** POST /judgments: the kill switch and the judge models (services/judgments.ts); unset fields take its defaults. */
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
}

export interface WebhookSettings {
  /** The wait before each attempt: the first entry before the first attempt (usually 0). */
  retryScheduleMs: number[];
  /** An endpoint failing this long (every attempt since its last success) is disabled. */
  disableAfterMs: number;
  /** Each attempt's timeout, response included. */
  timeoutMs: number;
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

/** What executes runs in this process: the event log's writer, the wake-up bus over it and the executor. */
export interface PlatformRuntime {
  bus: RunEventBus;
  /** Hints between the instances of a deployment (runtime/signals.ts). */
  signals: Signals;
  /** Keys, end-users and agents as last read, dropped on every instance when written (runtime/hot-cache.ts). */
  cache: HotCache;
  /** Appends run frames, every run's together (runtime/event-writer.ts). */
  events: RunEventWriter;
  /** This process's worker (roles worker and all); none in a web process. */
  worker?: RunWorker;
  /** Hands a run that is ready to execute to its worker: this process's when leased to it, else any. */
  startRun(runId: number, known?: KnownRun): void;
  /** The lease a run inserted now gets so this process executes it at once (role all, with room). */
  localLease(): { owner: string; ms: number } | undefined;
  /** What metadata_only runs say, held by this process only (runtime/live-content.ts). */
  live: LiveContent;
  /** The durable queue for everything scheduled or retried (jobs/queue.ts). */
  jobs: JobQueue;
  /** RunTimings.keepAliveMs, for the run streams (routes/runs/stream.ts). */
  keepAliveMs: number;
  /** The inbound SMTP server of agent inboxes, when this process runs one (inbound/smtp-server.ts). */
  smtp?: { port: number };
  /** The script tool servers' sandbox, started on first use (approvals and calls of scripts). */
  scriptSandbox(): ScriptSandbox;
  /** Stops claiming, waits for the runs this process executes to stop, then closes the bus. */
  close(): Promise<void>;
}

/** What a process does: serve HTTP, execute runs and jobs, or both (DESIGN.md, Roles). */
export type PlatformRole = "web" | "worker" | "all";

export interface PlatformDeps {
  /** The database, opened (and migrated) on first use. */
  database: () => Promise<Database>;
  /** Built once, on first use, over the database. */
  runtime: () => Promise<PlatformRuntime>;
  /** Stops the runtime (waiting for runs in progress) and the limiters; the database stays open. */
  close(): Promise<void>;
  config: PlatformConfig;
  limiters: Limiters;
  mailer: Mailer;
  /** The model for a catalogue id (sim or a configured provider): judgments call it from the web role. */
  languageModel: (modelId: string) => RuntimeModel;
}

export interface PlatformEnv {
  Variables: {
    requestId: string;
    deps: PlatformDeps;
    prisma: PrismaClient;
    /** Set when the request presented a valid key; null for an invalid one; undefined for none. */
    auth: AuthContext | null | undefined;
    runtime: PlatformRuntime;
    /** Set by the idempotency middleware when the request sent an Idempotency-Key. */
    idempotency: IdempotentCall | undefined;
  };
}

export type PlatformApp = OpenAPIHono<PlatformEnv>;
export type PlatformContext = Context<PlatformEnv>;

/** Where the platform is mounted, in Next.js and in the standalone server alike. */
export const PLATFORM_BASE_PATH = "/api/v2";
