// The one place that reads process.env. Every variable is validated here and documented, with its
// default, in .env.example. Import `env` on the server only.
import { z } from "zod";

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

const flag = (fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === "") return fallback;
      const normalised = value.trim().toLowerCase();
      if (["1", "true", "yes", "on"].includes(normalised)) return true;
      if (["0", "false", "no", "off"].includes(normalised)) return false;
      ctx.addIssue({ code: "custom", message: `expected true or false, got "${value}"` });
      return z.NEVER;
    });

/** An integer that may be left unset or blank (then the caller derives a default). */
const optionalInt = (min: number) =>
  z.preprocess(
    (value) => (typeof value === "string" && value.trim() === "" ? undefined : value),
    z.coerce.number().int().min(min).optional(),
  );

/** A limit: a whole number (0 allowed), "none" for no limit (null), blank for the default. */
const limitSetting = (fallback: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      const text = value?.trim().toLowerCase();
      if (text === undefined || text === "") return fallback;
      if (text === "none") return null;
      if (/^\d{1,9}$/.test(text)) return Number(text);
      ctx.addIssue({ code: "custom", message: `expected a whole number or "none", got "${value}"` });
      return z.NEVER;
    });

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "0", "250ms", "5s", "5m", "2h", "5d" in milliseconds, or undefined. */
function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!match) return undefined;
  const amount = Number(match[1]);
  if (!match[2] && amount !== 0) return undefined;
  return Math.round(amount * DURATION_UNITS_MS[match[2] ?? "ms"]!);
}

const durationList = (fallback: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      const text = value === undefined || value.trim() === "" ? fallback : value;
      const parts = text.split(",").map(parseDuration);
      if (parts.some((part) => part === undefined)) {
        ctx.addIssue({ code: "custom", message: `expected durations such as 0,5s,5m,2h,1d separated by commas, got "${text}"` });
        return z.NEVER;
      }
      return parts as number[];
    });

const duration = (fallback: string) =>
  durationList(fallback).refine((list) => list.length === 1, "expected one duration such as 30s, 5m or 5d").transform((list) => list[0]!);

const postgresUrl = optionalString.refine(
  (value) => value === undefined || /^postgres(ql)?:\/\//.test(value),
  "must be a postgres:// or postgresql:// connection string",
);

const httpUrl = optionalString.refine(
  (value) => value === undefined || /^https?:\/\//.test(value),
  "must be an http:// or https:// URL",
);

const DEV_AUTH_SECRET = "inlay-development-secret-do-not-use-in-production";

export const envSchema = z
  .object({
    NODE_ENV: z.enum(["development", "test", "production"]).default("development"),
    // Set by Next.js while `next build` runs; secrets are not needed to build.
    NEXT_PHASE: optionalString,

    // Storage
    DATABASE_URL: postgresUrl,
    PGLITE_DATA_DIR: z.string().default(".data/pglite"),
    // PGlite's shared_buffers (PostgreSQL's own default is 128MB): every megabyte is resident in the
    // process from the start, and a PGlite installation's data is small and in the OS's file cache.
    PGLITE_SHARED_BUFFERS: z.string().trim().regex(/^\d+(kB|MB|GB)$/, "a size such as 32MB").default("32MB"),
    SEED_DEMO_DATA: flag(true),
    // PostgreSQL only: connections this process keeps, and how long a transaction may wait for one
    // (and run) before it fails. Bursts of runs queue for connections rather than fail.
    DATABASE_POOL_MAX: z.coerce.number().int().positive().default(20),
    DATABASE_TRANSACTION_WAIT_MS: z.coerce.number().int().positive().default(30_000),
    // The hot statements (platform/repositories/direct.ts) are prepared: parsed and planned once per
    // connection. "false" behind a pooler in transaction mode that cannot carry prepared statements.
    DATABASE_PREPARED_STATEMENTS: flag(true),
    // A session of its own, for what a pooler in transaction mode cannot carry (LISTEN/NOTIFY, the
    // migrations' advisory lock, the job queue): PostgreSQL itself when DATABASE_URL is a pooler.
    DATABASE_DIRECT_URL: postgresUrl,
    // How long a query waits for a pool connection (and a new connection for the server) before the
    // request answers 503: a pool held by slow queries must not hang requests.
    DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    // The server cancels a statement that runs longer (PostgreSQL's statement_timeout); 0: no limit.
    DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().nonnegative().default(60_000),

    // Framework sign-in. NEXTAUTH_URL is the app's one public origin (server/shared/public-origin.ts): links,
    // next-auth's redirects and OAuth callbacks. Unset, http://localhost:<PORT>, PORT being the port
    // Next listens on (it sets it; 3000 by default), never the request's Host; production should set it.
    NEXTAUTH_URL: httpUrl,
    PORT: optionalInt(1).pipe(z.number().max(65_535).optional()),
    NEXTAUTH_SECRET: optionalString,
    // Optional OAuth sign-in: each provider is offered only when both its variables are set.
    GITHUB_CLIENT_ID: optionalString,
    GITHUB_CLIENT_SECRET: optionalString,
    GOOGLE_CLIENT_ID: optionalString,
    GOOGLE_CLIENT_SECRET: optionalString,

    // The limits of a workspace made by open sign-up (the sign-up page, or a first OAuth sign-in with
    // no invite), so a stranger cannot spend without bound: runs and cost (cents) a month, runs at once,
    // messages (new runs and replies) a minute per member. "none" leaves one unlimited. The owner
    // changes any of them later on /admin/tenants; workspaces the owner creates start without limits.
    SIGNUP_WORKSPACE_RUNS_PER_MONTH: limitSetting(100),
    SIGNUP_WORKSPACE_COST_PER_MONTH_CENTS: limitSetting(500),
    SIGNUP_WORKSPACE_CONCURRENT_RUNS: limitSetting(2),
    SIGNUP_WORKSPACE_TURNS_PER_MINUTE: limitSetting(10),

    // Where the framework finds the platform (unset: the embedded one at /api/v2)
    PLATFORM_BASE_URL: httpUrl,
    PLATFORM_API_KEY: optionalString,
    // Remote platform only: the signing secret (whsec_…) of the webhook the operator registered there for
    // the framework's run ledger (<origin>/api/platform-webhooks, run.completed/failed/cancelled,
    // all_end_users). Embedded, the framework registers its own and keeps the secret sealed.
    PLATFORM_WEBHOOK_SECRET: optionalString,
    // Encrypts secrets stored to be read back (the framework's platform key, webhook signing secrets); NEXTAUTH_SECRET when unset.
    INLAY_SECRET_KEY: optionalString,
    // Keys INLAY_SECRET_KEY replaced, comma-separated: what they sealed still opens until the reseal jobs
    // (platform and framework, once per rotation) have sealed it again under the current key.
    INLAY_SECRET_KEY_PREVIOUS: optionalString,
    // Embedded mode only: the operating credit (micro-USD) the framework's own platform account gets
    // when it is first provisioned, so runs work before anyone tops up; 0 starts it empty. A remote
    // platform's account is never credited this way. Default $1,000.
    // The operator key the owner's "credit the balance" form (/admin/billing, the manual payments
    // adapter) sends to the platform's POST /operator/credits; that platform holds its SHA-256
    // (INLAY_OPERATOR_KEY_SHA256). Unset: the form answers that crediting by hand is not set up.
    INLAY_OPERATOR_KEY: optionalString,
    FRAMEWORK_OPERATOR_CREDIT_MICROS: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(1_000_000_000),

    // Platform
    INLAY_KEY_PREFIX: z
      .string()
      .regex(/^[a-z][a-z0-9_]{1,30}$/, "must be lower-case letters, digits and _")
      .default("sk_inlay_"),
    PLATFORM_RATE_LIMIT_ACCOUNT_PER_MINUTE: z.coerce.number().int().positive().default(10_000),
    PLATFORM_RATE_LIMIT_IP_PER_MINUTE: z.coerce.number().int().positive().default(120),
    PLATFORM_RATE_LIMIT_SIGNUP_PER_MINUTE: z.coerce.number().int().positive().default(10),
    // Password attempts per IP (session login, password change): the spec's login limit.
    PLATFORM_RATE_LIMIT_LOGIN_PER_MINUTE: z.coerce.number().int().positive().default(10),
    // Browser sessions: a short access token (a stolen one is worth little) and a refresh token
    // bounding the whole session.
    PLATFORM_SESSION_ACCESS_TTL_MINUTES: z.coerce.number().int().positive().default(15),
    PLATFORM_SESSION_REFRESH_TTL_DAYS: z.coerce.number().int().positive().default(30),
    // Money, in micro-USD: the test credit of a new account and what each run reserves while it runs.
    PLATFORM_SIGNUP_CREDIT_MICROS: z.coerce.number().int().min(0).default(5_000_000),
    // Who may create a platform account with POST /signup: open (anyone), invite (an invite code from
    // POST /operator/signup-invites) or closed (the operator key only). Unset: closed in production,
    // open otherwise.
    INLAY_SIGNUP: z.enum(["open", "closed", "invite"]).optional(),
    PLATFORM_RUN_HOLD_MICROS: z.coerce.number().int().positive().default(50_000),
    PLATFORM_TOPUP_URL: httpUrl,
    // The plan catalogue (GET /billing/plans): a JSON array of complete plan entries that replaces the
    // built-in one (docs/platform-api.md, "Plans"); read and validated at start, a mistake stops it.
    INLAY_PLANS_FILE: optionalString,
    // Payments (docs/platform-api.md, "Payments"): manual (no card provider; the installation's owner
    // credits balances through POST /operator/credits) or stripe. STRIPE_API_BASE_URL points the SDK
    // elsewhere than api.stripe.com (tests: a loopback fake). INLAY_OPERATOR_KEY_SHA256 is the SHA-256
    // (hex) of the operator key; unset, the operator endpoint refuses every call. The manual adapter's
    // hosted page shows INLAY_PAYMENTS_MANUAL_INSTRUCTIONS (how to pay this installation).
    INLAY_PAYMENTS_PROVIDER: z.enum(["manual", "stripe"]).default("manual"),
    STRIPE_SECRET_KEY: optionalString,
    STRIPE_WEBHOOK_SECRET: optionalString,
    STRIPE_API_BASE_URL: httpUrl,
    INLAY_OPERATOR_KEY_SHA256: optionalString.refine(
      (value) => value === undefined || /^[0-9a-f]{64}$/i.test(value),
      "must be 64 hex characters (sha256 of the operator key)",
    ),
    INLAY_PAYMENTS_MANUAL_INSTRUCTIONS: optionalString,
    // Where rate-limit counters live: this process (one instance) or Redis (several instances).
    RATE_LIMIT_STORE: z.enum(["memory", "redis"]).default("memory"),
    REDIS_URL: optionalString.refine(
      (value) => value === undefined || /^rediss?:\/\//.test(value),
      "must be a redis:// or rediss:// URL",
    ),
    // Starts every rate-limit counter's key in Redis, so deployments (or test runs) sharing one Redis
    // keep their counters apart.
    RATE_LIMIT_KEY_PREFIX: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be letters, digits, _ . or -").default("inlay"),
    // Behind a reverse proxy: take the client IP from X-Forwarded-For instead of the socket.
    TRUST_PROXY: flag(false),

    // What this process does: web (HTTP, SSE, admission), worker (claims and executes runs and jobs,
    // no port) or all (both: the embedded default). `npm run platform -- --role` overrides it. app: the
    // Next.js app alone (`npm start`), on a platform elsewhere (PLATFORM_BASE_URL); the image's start
    // (server/entry.sh role) runs it for this role.
    INLAY_ROLE: z.enum(["web", "worker", "all", "app"]).default("all"),
    // A worker's probe port (/healthz, /readyz) for an orchestrator; unset: none. Web and all roles
    // answer the probes on their own port. `npm run platform -- --probe-port` overrides it.
    INLAY_PROBE_PORT: optionalInt(0),
    // Prometheus scrapes /metrics with this bearer token, on every process (web ports included);
    // unset: /metrics answers only on a worker's probe port.
    INLAY_METRICS_TOKEN: optionalString.refine((value) => value === undefined || value.length >= 16, "at least 16 characters"),
    // OpenTelemetry traces go out over OTLP/HTTP when this standard variable is set (the exporter reads
    // the other OTEL_EXPORTER_OTLP_* itself); unset, nothing is recorded.
    OTEL_EXPORTER_OTLP_ENDPOINT: optionalString.refine((value) => value === undefined || URL.canParse(value), "a URL"),
    OTEL_SERVICE_NAME: optionalString,
    // The nginx binary `npm run cluster` runs in front of its web instances (`--nginx` overrides it).
    NGINX: z.string().trim().min(1).default("/usr/sbin/nginx"),
    // How long a process told to stop (SIGTERM) drains: requests in flight may finish and runs whose
    // tool with side effects is running may reach their checkpoint; past it, what is left is cut off.
    // Keep it below the orchestrator's grace period (Kubernetes: 30 s).
    INLAY_DRAIN_TIMEOUT_MS: z.coerce.number().int().min(0).default(20_000),
    // A second thread, so one process uses two cores: role all on PostgreSQL executes its standard runs
    // there (server/platform/runtime/worker-thread.ts, about 80 MB); on PGlite, PGlite itself runs there
    // (server/shared/pglite-thread.ts). 0 keeps everything on one thread (a one-core machine).
    INLAY_WORKER_THREAD: flag(true),
    // Runs one worker executes at once; more wait in the database for this or another worker.
    RUN_WORKER_CONCURRENCY: z.coerce.number().int().positive().default(200),
    // Run execution: the lease a worker holds on a run (renewed every third of it), how long after it
    // lapsed another worker takes the run over, and how often workers look for such runs.
    RUN_LEASE_MS: z.coerce.number().int().min(300).default(6_000),
    RUN_SWEEP_GRACE_MS: optionalInt(0),
    RUN_SWEEP_EVERY_MS: optionalInt(50),
    RUN_MAX_RESUMES: z.coerce.number().int().nonnegative().default(2),
    RUN_STREAM_KEEP_ALIVE_MS: z.coerce.number().int().min(100).default(15_000),
    RUN_EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).default(30),

    // Webhook delivery (jobs/webhook-delivery.ts): the wait before each attempt (the first is at once),
    // how long an endpoint may fail before it is disabled, and each attempt's timeout.
    WEBHOOK_RETRY_SCHEDULE: durationList("0,5s,5m,30m,2h,5h,10h,10h"),
    WEBHOOK_DISABLE_AFTER: duration("5d"),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
    // Calls to URLs users supply (webhooks; later tool servers and OAuth endpoints) may reach loopback
    // addresses over plain http. Development and tests only: never in production.
    OUTBOUND_ALLOW_LOOPBACK: flag(false),

    // Script tool servers (docs/platform-api.md, "Custom tool servers"): each call's wall-clock budget,
    // the heap cap of an interpreter's thread, and how many interpreters are kept warm.
    INLAY_SCRIPT_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
    INLAY_SCRIPT_MEMORY_MB: z.coerce.number().int().min(32).max(4_096).default(256),
    INLAY_SCRIPT_POOL_SIZE: z.coerce.number().int().min(0).max(64).default(2),

    // Apps (docs/platform-api.md, "Apps and connections"): the vendor's apps file (JSON), client
    // credentials of the built-in apps (an OAuth app without them is listed as not configured), the
    // origins a connect's redirect_uri may be on besides the platform's own (comma-separated), and the
    // platform's public base URL (…/api/v2) whose /apps/oauth/callback is registered with each app.
    INLAY_APPS_FILE: optionalString,
    INLAY_APP_CODEHOST_CLIENT_ID: optionalString,
    INLAY_APP_CODEHOST_CLIENT_SECRET: optionalString,
    INLAY_APP_CHAT_CLIENT_ID: optionalString,
    INLAY_APP_CHAT_CLIENT_SECRET: optionalString,
    INLAY_APP_MAIL_CLIENT_ID: optionalString,
    INLAY_APP_MAIL_CLIENT_SECRET: optionalString,
    INLAY_APP_REDIRECT_ORIGINS: optionalString,
    // How often app-event triggers ask their app for new events (seconds).
    INLAY_APP_TRIGGER_POLL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
    INLAY_PLATFORM_PUBLIC_URL: httpUrl,

    // Email (agent inboxes and email triggers; docs/platform-api.md, "Email"). Inbox addresses are
    // <slug>@INLAY_EMAIL_DOMAIN. The SMTP server that receives their mail runs in the worker role
    // (worker and all) only when INLAY_SMTP_PORT is set (0 picks a free port); off by default.
    INLAY_EMAIL_DOMAIN: z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/, "must be a domain name")
      .default("agents.localhost"),
    INLAY_SMTP_PORT: optionalInt(0).pipe(z.number().max(65_535).optional()),
    INLAY_SMTP_HOST: z.string().trim().min(1).default("127.0.0.1"),
    // The largest message the SMTP server accepts (SIZE; larger ones get 552).
    INLAY_SMTP_MAX_BYTES: z.coerce.number().int().min(1024).default(10 * 1024 * 1024),
    // How often an agent's fetchmail polls its outside IMAP mailbox (POST /agents/{id}/fetchmail).
    INLAY_FETCHMAIL_POLL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
    // Outgoing mail (verification links, notifications, inbox replies): recorded in platform_mail
    // always, and also sent through this SMTP relay when set (smtp:// or smtps://user:pass@host:port).
    INLAY_MAIL_SMTP_URL: optionalString.refine(
      (value) => value === undefined || /^smtps?:\/\//.test(value),
      "must be an smtp:// or smtps:// URL",
    ),
    // The sender of platform mail that is not an inbox's reply; no-reply@INLAY_EMAIL_DOMAIN when unset.
    INLAY_MAIL_FROM: optionalString,

    // Models (read by the run runtime; `sim` needs nothing)
    INLAY_MODEL_PROVIDER: z.enum(["sim", "openai", "anthropic", "openai-compatible"]).default("sim"),
    INLAY_DEFAULT_MODEL: optionalString,
    OPENAI_API_KEY: optionalString,
    OPENAI_BASE_URL: httpUrl,
    ANTHROPIC_API_KEY: optionalString,
    ANTHROPIC_BASE_URL: httpUrl,
    OPENAI_COMPATIBLE_BASE_URL: httpUrl,
    OPENAI_COMPATIBLE_API_KEY: optionalString,
    // Accounts bring their own provider credentials (/model-connections): list the OpenAI and
    // Anthropic models in GET /models even without the deployment's own key, so runs can name them.
    INLAY_LIST_CONNECTABLE_MODELS: flag(false),
    // provA (the provider whose tokens can be pasted) offers an authorization flow when the
    // deployment registered an OAuth client with it; its tokens call INLAY_PROVA_API_BASE_URL.
    INLAY_PROVA_CLIENT_ID: optionalString,
    INLAY_PROVA_CLIENT_SECRET: optionalString,
    INLAY_PROVA_AUTHORIZATION_URL: httpUrl,
    INLAY_PROVA_TOKEN_URL: httpUrl,
    // Where the provider sends the person with the code to paste (its own code page).
    INLAY_PROVA_REDIRECT_URI: httpUrl,
    INLAY_PROVA_SCOPES: optionalString,
    INLAY_PROVA_API_BASE_URL: httpUrl,

    // Judgments (services/models/judgments.ts): the kill switch, the catalogue model platform-funded judgments
    // use (unset: the deployment's default model), and the model and endpoint a customer's own key
    // (PUT /judgments/connection) is used with: an OpenAI or Anthropic catalogue id; an unset base URL
    // means the provider's public endpoint.
    JUDGMENTS_ENABLED: flag(true),
    JUDGMENT_MODEL: optionalString,
    JUDGMENT_CUSTOMER_MODEL: z.string().default("openai/gpt-4.1-mini"),
    JUDGMENT_CUSTOMER_BASE_URL: httpUrl,

    // Signs embed tokens (HS256, server/framework/embed/tokens.ts); derived from NEXTAUTH_SECRET when unset.
    EMBED_TOKEN_SECRET: optionalString.refine((value) => value === undefined || value.length >= 32, "must be at least 32 characters"),

    // Benchmarks only (bench/chat-path.ts): serves POST /api/bench-floor and /api/bench-floor/bridge, the
    // plain AI SDK route and the bare chat bridge the chat path is measured against. Off in every normal install.
    INLAY_BENCH_FLOOR: flag(false),

    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    // json: one JSON object per line (production's default); pretty: one readable line (development's).
    LOG_FORMAT: z.enum(["json", "pretty"]).optional(),
  })
  .superRefine((value, ctx) => {
    const building = value.NEXT_PHASE === "phase-production-build";
    if (value.NODE_ENV === "production" && !building && !value.NEXTAUTH_SECRET) {
      ctx.addIssue({ code: "custom", path: ["NEXTAUTH_SECRET"], message: "is required in production" });
    }
    if (value.RATE_LIMIT_STORE === "redis" && !value.REDIS_URL) {
      ctx.addIssue({ code: "custom", path: ["REDIS_URL"], message: "is required with RATE_LIMIT_STORE=redis" });
    }
    for (const [id, secret] of [
      ["GITHUB_CLIENT_ID", "GITHUB_CLIENT_SECRET"],
      ["GOOGLE_CLIENT_ID", "GOOGLE_CLIENT_SECRET"],
      ["INLAY_APP_CODEHOST_CLIENT_ID", "INLAY_APP_CODEHOST_CLIENT_SECRET"],
      ["INLAY_APP_CHAT_CLIENT_ID", "INLAY_APP_CHAT_CLIENT_SECRET"],
      ["INLAY_APP_MAIL_CLIENT_ID", "INLAY_APP_MAIL_CLIENT_SECRET"],
    ] as const) {
      if (Boolean(value[id]) !== Boolean(value[secret])) {
        ctx.addIssue({ code: "custom", path: [value[id] ? secret : id], message: `set both ${id} and ${secret}, or neither` });
      }
    }
    if (value.NODE_ENV === "production" && value.OUTBOUND_ALLOW_LOOPBACK) {
      ctx.addIssue({ code: "custom", path: ["OUTBOUND_ALLOW_LOOPBACK"], message: "must not be set in production" });
    }
    if (value.INLAY_ROLE === "app") {
      // The app role runs no platform of its own, and its instances share one database.
      for (const needed of ["PLATFORM_BASE_URL", "DATABASE_URL"] as const) {
        if (!value[needed]) ctx.addIssue({ code: "custom", path: [needed], message: "is required with INLAY_ROLE=app" });
      }
    }
    if (value.PLATFORM_BASE_URL && !value.PLATFORM_API_KEY) {
      ctx.addIssue({ code: "custom", path: ["PLATFORM_API_KEY"], message: "is required with PLATFORM_BASE_URL" });
    }
    const providerNeeds = {
      openai: "OPENAI_API_KEY",
      anthropic: "ANTHROPIC_API_KEY",
      "openai-compatible": "OPENAI_COMPATIBLE_BASE_URL",
    } as const;
    if (value.INLAY_MODEL_PROVIDER !== "sim") {
      const needed = providerNeeds[value.INLAY_MODEL_PROVIDER];
      if (!value[needed]) {
        ctx.addIssue({
          code: "custom",
          path: [needed],
          message: `is required with INLAY_MODEL_PROVIDER=${value.INLAY_MODEL_PROVIDER}`,
        });
      }
    }
  })
  .transform((value) => ({
    ...value,
    NEXTAUTH_SECRET: value.NEXTAUTH_SECRET ?? DEV_AUTH_SECRET,
    usingDevAuthSecret: value.NEXTAUTH_SECRET === undefined,
  }));

export type Env = z.infer<typeof envSchema>;

export class EnvError extends Error {
  override name = "EnvError";
}

export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = envSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join(".") || "(env)"}: ${issue.message}`);
    throw new EnvError(`Invalid environment (see .env.example):\n${lines.join("\n")}`);
  }
  return result.data;
}

export const env: Env = parseEnv(process.env);

/**
 * next-auth reads NEXTAUTH_URL from process.env itself (where it sends the browser after sign-in and
 * sign-out, its OAuth callback URLs) and, without it, assumes http://localhost:3000. When it is not
 * set, the framework hands next-auth the origin it derived (server/shared/public-origin.ts), so next-auth and
 * every other link agree on the one public URL.
 */
export function shareNextAuthUrl(origin: string): void {
  if (!process.env.NEXTAUTH_URL?.trim()) process.env.NEXTAUTH_URL = origin;
}
