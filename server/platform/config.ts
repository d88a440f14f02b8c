// The platform's dependencies as configured by the environment (lib/env.ts). Tests build their own.
import { env, type Env } from "@/lib/env";
import { publicOrigin } from "@/server/shared/public-origin";
import type { Database } from "@/server/shared/db";
import type { PlatformDeps, PlatformRole } from "./context";
import type { DemoAppSettings, PlatformConfig } from "./platform-config";
import { appCatalogOf } from "./apps/catalog";
import { createPlatformDeps } from "./deps";
import { createLimiters } from "./middleware/rate-limit";
import { languageModelFor } from "./models/providers";
import { createSimModel } from "./models/sim";
import { createSmtpMailer, recordingMailer } from "./services/messaging/mailer";
import type { WorkerThread } from "./runtime/worker-thread";

/**
 * `source` is the parsed environment; tests pass their own (parseEnv) instead of this process's.
 * `localBaseUrl`: where this process serves the platform, the public base URL when
 * INLAY_PLATFORM_PUBLIC_URL is unset (a default for local use; production sets the variable).
 */
export function platformConfigFromEnv(source: Env = env, localBaseUrl = LOCAL_BASE_URL): PlatformConfig {
  return {
    keyPrefix: source.INLAY_KEY_PREFIX,
    // Closed unless the operator opens it in production: an open sign-up gives anyone $5 of model credit.
    signup: source.INLAY_SIGNUP ?? (source.NODE_ENV === "production" ? "closed" : "open"),
    publicBaseUrl: (source.INLAY_PLATFORM_PUBLIC_URL ?? localBaseUrl).replace(/\/+$/, ""),
    rateLimits: {
      accountPerMinute: source.PLATFORM_RATE_LIMIT_ACCOUNT_PER_MINUTE,
      ipPerMinute: source.PLATFORM_RATE_LIMIT_IP_PER_MINUTE,
      signupPerMinute: source.PLATFORM_RATE_LIMIT_SIGNUP_PER_MINUTE,
      loginPerMinute: source.PLATFORM_RATE_LIMIT_LOGIN_PER_MINUTE,
    },
    trustProxy: source.TRUST_PROXY,
    sessions: {
      accessTtlMs: source.PLATFORM_SESSION_ACCESS_TTL_MINUTES * 60_000,
      refreshTtlMs: source.PLATFORM_SESSION_REFRESH_TTL_DAYS * 24 * 60 * 60_000,
    },
    billing: {
      signupCreditMicros: source.PLATFORM_SIGNUP_CREDIT_MICROS,
      runHoldMicros: source.PLATFORM_RUN_HOLD_MICROS,
      topupUrl: source.PLATFORM_TOPUP_URL,
    },
    plans: { file: source.INLAY_PLANS_FILE },
    payments: {
      provider: source.INLAY_PAYMENTS_PROVIDER,
      stripe: source.STRIPE_SECRET_KEY
        ? { secretKey: source.STRIPE_SECRET_KEY, webhookSecret: source.STRIPE_WEBHOOK_SECRET, apiBaseUrl: source.STRIPE_API_BASE_URL }
        : undefined,
      operatorKeySha256: source.INLAY_OPERATOR_KEY_SHA256,
      manualInstructions: source.INLAY_PAYMENTS_MANUAL_INSTRUCTIONS,
    },
    runs: {
      leaseMs: source.RUN_LEASE_MS,
      graceMs: source.RUN_SWEEP_GRACE_MS,
      sweepEveryMs: source.RUN_SWEEP_EVERY_MS,
      maxResumes: source.RUN_MAX_RESUMES,
      keepAliveMs: source.RUN_STREAM_KEEP_ALIVE_MS,
    },
    runEventRetentionDays: source.RUN_EVENT_RETENTION_DAYS,
    secretKey: source.INLAY_SECRET_KEY ?? source.NEXTAUTH_SECRET,
    previousSecretKeys: commaList(source.INLAY_SECRET_KEY_PREVIOUS),
    apps: {
      file: source.INLAY_APPS_FILE,
      overrides: {
        codehost: { clientId: source.INLAY_APP_CODEHOST_CLIENT_ID, clientSecret: source.INLAY_APP_CODEHOST_CLIENT_SECRET },
        chat: { clientId: source.INLAY_APP_CHAT_CLIENT_ID, clientSecret: source.INLAY_APP_CHAT_CLIENT_SECRET },
        mail: { clientId: source.INLAY_APP_MAIL_CLIENT_ID, clientSecret: source.INLAY_APP_MAIL_CLIENT_SECRET },
      },
      redirectOrigins: commaList(source.INLAY_APP_REDIRECT_ORIGINS),
      triggerPollSeconds: source.INLAY_APP_TRIGGER_POLL_SECONDS,
    },
    webhooks: {
      retryScheduleMs: source.WEBHOOK_RETRY_SCHEDULE,
      disableAfterMs: source.WEBHOOK_DISABLE_AFTER,
      timeoutMs: source.WEBHOOK_TIMEOUT_MS,
    },
    outboundAllowLoopback: source.OUTBOUND_ALLOW_LOOPBACK,
    scripts: { timeoutMs: source.INLAY_SCRIPT_TIMEOUT_MS, memoryMb: source.INLAY_SCRIPT_MEMORY_MB, poolSize: source.INLAY_SCRIPT_POOL_SIZE },
    email: {
      domain: source.INLAY_EMAIL_DOMAIN,
      smtp:
        source.INLAY_SMTP_PORT === undefined
          ? undefined
          : { port: source.INLAY_SMTP_PORT, host: source.INLAY_SMTP_HOST, maxBytes: source.INLAY_SMTP_MAX_BYTES },
      fetchmailPollSeconds: source.INLAY_FETCHMAIL_POLL_SECONDS,
    },
    judgments: {
      enabled: source.JUDGMENTS_ENABLED,
      model: source.JUDGMENT_MODEL,
      customerModel: source.JUDGMENT_CUSTOMER_MODEL,
      customerBaseUrl: source.JUDGMENT_CUSTOMER_BASE_URL,
    },
    models: {
      provider: source.INLAY_MODEL_PROVIDER,
      defaultModel: source.INLAY_DEFAULT_MODEL,
      openaiConfigured: source.OPENAI_API_KEY !== undefined || source.INLAY_LIST_CONNECTABLE_MODELS,
      anthropicConfigured: source.ANTHROPIC_API_KEY !== undefined || source.INLAY_LIST_CONNECTABLE_MODELS,
      compatibleModel: source.OPENAI_COMPATIBLE_BASE_URL ? compatibleModelName(source.INLAY_DEFAULT_MODEL) : undefined,
      openai: source.OPENAI_API_KEY
        ? { apiKey: source.OPENAI_API_KEY, baseUrl: source.OPENAI_BASE_URL }
        : undefined,
      anthropic: source.ANTHROPIC_API_KEY
        ? { apiKey: source.ANTHROPIC_API_KEY, baseUrl: source.ANTHROPIC_BASE_URL }
        : undefined,
      openaiCompatible: source.OPENAI_COMPATIBLE_BASE_URL
        ? { baseUrl: source.OPENAI_COMPATIBLE_BASE_URL, apiKey: source.OPENAI_COMPATIBLE_API_KEY }
        : undefined,
      connections: {
        provA: {
          apiBaseUrl: source.INLAY_PROVA_API_BASE_URL,
          oauth:
            source.INLAY_PROVA_CLIENT_ID && source.INLAY_PROVA_AUTHORIZATION_URL && source.INLAY_PROVA_TOKEN_URL && source.INLAY_PROVA_REDIRECT_URI
              ? {
                  clientId: source.INLAY_PROVA_CLIENT_ID,
                  clientSecret: source.INLAY_PROVA_CLIENT_SECRET,
                  authorizationUrl: source.INLAY_PROVA_AUTHORIZATION_URL,
                  tokenUrl: source.INLAY_PROVA_TOKEN_URL,
                  redirectUri: source.INLAY_PROVA_REDIRECT_URI,
                  scopes: (source.INLAY_PROVA_SCOPES ?? "").split(/[\s,]+/).filter(Boolean),
                }
              : undefined,
        },
      },
    },
  };
}

const commaList = (value: string | undefined) =>
  (value ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");

/**
 * The model an OpenAI-compatible server serves: INLAY_DEFAULT_MODEL, given bare (`llama3.1`) or as a
 * catalogue id (`openai-compatible/llama3.1`); `local` when unset.
 */
function compatibleModelName(defaultModel: string | undefined): string {
  const prefix = "openai-compatible/";
  if (!defaultModel) return "local";
  return defaultModel.startsWith(prefix) ? defaultModel.slice(prefix.length) : defaultModel;
}

/** The default for a platform configured from a bare environment (benchmarks, tools). */
const LOCAL_BASE_URL = "http://localhost:3000/api/v2";

/**
 * `role` overrides INLAY_ROLE (the standalone server's --role). `localBaseUrl`: the standalone server's
 * listening address; embedded, the framework's (NEXTAUTH_URL), since the framework calls the platform
 * in-process at an internal URL no browser can reach.
 */
export function platformDepsFromEnv(
  database: () => Promise<Database>,
  // The app role's Next process reaches this only if /api/v2 is routed to it by mistake: it executes nothing.
  role: PlatformRole = env.INLAY_ROLE === "app" ? "web" : env.INLAY_ROLE,
  options: {
    localBaseUrl?: string;
    operatorKeySha256?: string;
    demoApp?: DemoAppSettings;
    inProcessWebhooks?: PlatformConfig["inProcessWebhooks"];
    /** Role all on PostgreSQL: the thread that executes the standard runs (runtime/worker-thread.ts). */
    workerThread?: WorkerThread | Promise<WorkerThread>;
    /** In that thread: the process's lease owner. */
    thread?: { owner: string };
  } = {},
): PlatformDeps {
  const config = platformConfigFromEnv(env, options.localBaseUrl ?? `${publicOrigin()}/api/v2`);
  // The embedded platform in development: the framework's own operator key (server/framework/tenancy/operator-key.ts),
  // only where INLAY_OPERATOR_KEY_SHA256 names none.
  if (options.operatorKeySha256 && !config.payments?.operatorKeySha256) {
    config.payments = { ...config.payments, operatorKeySha256: options.operatorKeySha256 };
  }
  // The framework's development demo app (server/framework/demo-app): only the embedding framework knows where it is.
  if (options.demoApp) config.apps = { ...config.apps, demo: options.demoApp };
  // The framework's run-ledger endpoint (server/framework/tenancy/run-ledger-webhook.ts), delivered in-process.
  if (options.inProcessWebhooks) config.inProcessWebhooks = options.inProcessWebhooks;
  // Read INLAY_APPS_FILE now: a mistake in it stops the process here, naming its place.
  appCatalogOf(config);
  const sim = createSimModel();
  return createPlatformDeps({
    database,
    config,
    role,
    workerConcurrency: env.RUN_WORKER_CONCURRENCY,
    ...(options.workerThread ? { workerThread: options.workerThread } : {}),
    ...(options.thread ? { thread: options.thread } : {}),
    limiters: createLimiters({
      ...config.rateLimits,
      store: env.RATE_LIMIT_STORE,
      redisUrl: env.REDIS_URL,
      keyPrefix: env.RATE_LIMIT_KEY_PREFIX,
    }),
    mailer: env.INLAY_MAIL_SMTP_URL
      ? createSmtpMailer(env.INLAY_MAIL_SMTP_URL, env.INLAY_MAIL_FROM ?? `no-reply@${env.INLAY_EMAIL_DOMAIN}`)
      : recordingMailer,
    languageModel: (modelId) => languageModelFor(config.models, modelId, { sim: () => sim }),
  });
}
