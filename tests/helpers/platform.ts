// Starts the platform on a fresh database, served over real HTTP on a loopback port, for one test
// file; signs up accounts and makes authenticated calls the way a client would.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { createPlatformApp } from "@/server/platform/app";
import { applyServerTimeouts } from "@/server/platform/http/server-timeouts";
import { createPlatformDeps, type PlatformParts } from "@/server/platform/deps";
import type { RuntimeModel } from "@/server/platform/models/providers";
import { createSimModel, type SimModelOptions } from "@/server/platform/models/sim";
import type { PlatformApp, PlatformRole, PlatformRuntime } from "@/server/platform/context";
import type { PlatformConfig } from "@/server/platform/platform-config";
import { createLimiters, type LimiterOptions } from "@/server/platform/middleware/rate-limit";
import { recordingMailer, type Mailer, type OutgoingMail } from "@/server/platform/services/messaging/mailer";
import { createTestDatabase, type TestDatabase } from "./database";
import { waitForRun as waitForRunIn } from "./poll";

export interface PlatformOptions {
  /** The public base URL links are built from (config.publicBaseUrl); default the harness's own address. */
  publicBaseUrl?: string;
  rateLimits?: Partial<PlatformConfig["rateLimits"]>;
  store?: LimiterOptions["store"];
  redisUrl?: string;
  /** Shared by harnesses that stand for instances of one deployment; unique per harness otherwise. */
  limiterKeyPrefix?: string;
  trustProxy?: boolean;
  models?: Partial<PlatformConfig["models"]>;
  billing?: PlatformConfig["billing"];
  /** The plan catalogue (an operator's file, or the entries); unset: the defaults. */
  plans?: PlatformConfig["plans"];
  runs?: PlatformConfig["runs"];
  webhooks?: PlatformConfig["webhooks"];
  outboundAllowLoopback?: boolean;
  /** Browser session lifetimes (config.sessions). */
  sessions?: PlatformConfig["sessions"];
  /**
   * The app catalogue's settings: point a built-in app at loopback fakes with `overrides`
   * (e.g. `{ overrides: { codehost: { clientId, clientSecret, authorizationUrl, tokenUrl, apiBaseUrl } } }`),
   * or give vendor apps as `content`. Unset: the built-in apps, none configured.
   */
  apps?: PlatformConfig["apps"];
  /** Keys the platform's secret key replaced (config.previousSecretKeys). */
  previousSecretKeys?: string[];
  /** Replaces the platform's secret key (default "test-platform-secret-key"). */
  secretKey?: string;
  /** Another harness's database: this one stands for a second process on it and leaves it open. */
  database?: TestDatabase;
  /** Replaces the sim model, as when a test wraps it to read what the model was sent. */
  languageModel?: (modelId: string) => RuntimeModel;
  /** The sim model's wait between words (createSimModel's `sleep`), to hold a run mid-step. */
  simSleep?: SimModelOptions["sleep"];
  /** web: no worker here (another harness on the database executes); default all. */
  role?: PlatformRole;
  /** Runs this instance's worker executes at once. */
  workerConcurrency?: number;
  /** Let the worker look for claimable runs on its own (at start and periodically); default off. */
  pollRuns?: boolean;
  /** How often idle job handlers look for due jobs (default 2 s). */
  jobPollSeconds?: number;
  /** Email settings; by default the inbound SMTP server is on, on a free loopback port. */
  email?: PlatformConfig["email"];
  /** Builds the script tool servers' sandbox in place of the Pyodide one (a fake for tests of the wiring). */
  scriptSandbox?: PlatformParts["scriptSandbox"];
  /** The real script sandbox's limits (config.scripts): a small pool and short timeouts keep tests quick. */
  scripts?: PlatformConfig["scripts"];
  /** Judgments' kill switch and judge models (config.judgments). */
  judgments?: PlatformConfig["judgments"];
}

export interface CallOptions {
  method?: string;
  key?: string | null;
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
}

export interface Account {
  key: string;
  id: number;
  email: string;
}

export interface PlatformHarness {
  app: PlatformApp;
  database: TestDatabase;
  /** The configuration the platform runs with (services called directly by tests take it). */
  config: PlatformConfig;
  /** http://127.0.0.1:<port>/api/v2 */
  baseUrl: string;
  /** A raw request, path relative to /api/v2. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** A JSON call with an optional key; returns the response and its parsed body. */
  call<T = any>(path: string, options?: CallOptions): Promise<{ status: number; body: T; headers: Headers }>;
  /**
   * Every message the platform sent, as its recipient got it (tokens whole; the platform_mail record
   * masks them): the test's inbox. Newest last.
   */
  outbox: OutgoingMail[];
  /** The newest message of `kind` sent to `to` (throws when there is none). */
  lastMail(to: string, kind: string): OutgoingMail;
  /** The runtime (event bus and worker) the platform uses. */
  runtime(): Promise<PlatformRuntime>;
  /** The port of the inbound SMTP server (agent inboxes, email triggers); starts the runtime. */
  smtpPort(): Promise<number>;
  /**
   * GET /runs/{id} (as `key`, with `query`, e.g. user_id) until the run's status is one of `statuses`;
   * returns the run. A condition, not a count of tries: it fails only at the test's own limit, showing
   * the last status seen.
   */
  waitForRun<T = any>(key: string, runId: number, statuses: string[], query?: CallOptions["query"]): Promise<T>;
  /**
   * POST /signup with a fresh email; returns the default key. No password unless `overrides` gives
   * one (PASSWORD for a test that signs in with it): hashing one costs ~0.1 s of CPU, on every signup.
   */
  signup(overrides?: Record<string, unknown>): Promise<Account>;
  /**
   * Registers a paused webhook in the scope (the account level without `userId`): the scope's run
   * events are then written to the webhook outbox, and nothing is sent.
   */
  keepWebhookEvents(key: string, userId?: string): Promise<void>;
  close(): Promise<void>;
}

/** The password a test that signs in gives signup(): `platform.signup({ password: PASSWORD })`. */
export const PASSWORD = "correct-horse";

let accountCounter = 0;

export async function startPlatform(options: PlatformOptions = {}): Promise<PlatformHarness> {
  const database = options.database ?? (await createTestDatabase());
  // Listening first: the platform's links are built from its address (config.publicBaseUrl).
  const served: { app?: PlatformApp } = {};
  const server: ServerType = await new Promise((resolve) => {
    const started = serve({ fetch: (request, env) => served.app!.fetch(request, env), port: 0, hostname: "127.0.0.1" }, () => resolve(started));
  });
  applyServerTimeouts(server as Server);
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}/api/v2`;
  const config: PlatformConfig = {
    keyPrefix: "sk_inlay_",
    publicBaseUrl: options.publicBaseUrl ?? baseUrl,
    secretKey: options.secretKey ?? "test-platform-secret-key",
    previousSecretKeys: options.previousSecretKeys,
    apps: options.apps,
    rateLimits: { accountPerMinute: 10_000, ipPerMinute: 10_000, signupPerMinute: 10_000, loginPerMinute: 10_000, ...options.rateLimits },
    trustProxy: options.trustProxy ?? false,
    models: { provider: "sim", openaiConfigured: false, anthropicConfigured: false, ...options.models },
    billing: options.billing,
    plans: options.plans,
    runs: options.runs,
    webhooks: options.webhooks,
    scripts: options.scripts,
    judgments: options.judgments,
    sessions: options.sessions,
    // Test receivers listen on 127.0.0.1 over plain http.
    outboundAllowLoopback: options.outboundAllowLoopback ?? true,
    // The inbound SMTP server (worker and all roles) on a free port: see smtpPort().
    email: options.email ?? { smtp: { port: 0, host: "127.0.0.1", maxBytes: 10 * 1024 * 1024 } },
  };
  const limiters = createLimiters({
    ...config.rateLimits,
    store: options.store ?? "memory",
    redisUrl: options.redisUrl,
    keyPrefix: options.limiterKeyPrefix ?? `test-${process.pid}-${Date.now()}-${Math.random()}`,
  });
  const outbox: OutgoingMail[] = [];
  const mailer: Mailer = {
    async send(prisma, mail) {
      await recordingMailer.send(prisma, mail);
      outbox.push(mail);
    },
  };
  const deps = createPlatformDeps({
    database: async () => database,
    config,
    limiters,
    mailer,
    languageModel: options.languageModel ?? (() => createSimModel(options.simSleep ? { sleep: options.simSleep } : {})),
    // Tests that leave runs behind on purpose claim them themselves (worker.claim()), so nothing races them.
    pollRuns: options.pollRuns ?? false,
    role: options.role,
    workerConcurrency: options.workerConcurrency,
    jobPollSeconds: options.jobPollSeconds,
    scriptSandbox: options.scriptSandbox,
  });
  const app = createPlatformApp(deps);
  served.app = app;

  const request = (path: string, init?: RequestInit) => fetch(`${baseUrl}${path}`, init);

  async function call(path: string, callOptions: CallOptions = {}) {
    const url = new URL(`${baseUrl}${path}`);
    for (const [name, value] of Object.entries(callOptions.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = { ...callOptions.headers };
    if (callOptions.key) headers.authorization = `Bearer ${callOptions.key}`;
    if (callOptions.body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(url, {
      method: callOptions.method ?? (callOptions.body === undefined ? "GET" : "POST"),
      headers,
      body: callOptions.body === undefined ? undefined : JSON.stringify(callOptions.body),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: body as any, headers: response.headers };
  }

  const waitForRun = (key: string, runId: number, statuses: string[], query: CallOptions["query"] = {}) =>
    waitForRunIn(async (id) => (await call(`/runs/${id}`, { key, query })).body, runId, statuses);

  async function signup(overrides: Record<string, unknown> = {}): Promise<Account> {
    const email = `owner${++accountCounter}-${Date.now()}@example.test`;
    const { status, body } = await call("/signup", {
      body: { email, first_name: "Test", ...overrides },
    });
    if (status !== 201) throw new Error(`signup failed: ${status} ${JSON.stringify(body)}`);
    return { key: body.api_key, id: body.account.id, email: body.account.email };
  }

  async function keepWebhookEvents(key: string, userId?: string) {
    const query = userId === undefined ? {} : { user_id: userId };
    const created = await call("/webhooks", { key, query, body: { url: "https://hooks.example.com/outbox" } });
    if (created.status !== 201) throw new Error(`POST /webhooks: ${created.status} ${JSON.stringify(created.body)}`);
    const paused = await call(`/webhooks/${created.body.id}`, { key, query, method: "PATCH", body: { active: false } });
    if (paused.status !== 200) throw new Error(`PATCH /webhooks: ${paused.status} ${JSON.stringify(paused.body)}`);
  }

  return {
    app,
    database,
    config,
    baseUrl,
    request,
    call,
    waitForRun,
    signup,
    keepWebhookEvents,
    outbox,
    lastMail(to, kind) {
      const mail = outbox.findLast((sent) => sent.to === to && sent.kind === kind);
      if (!mail) throw new Error(`no ${kind} mail was sent to ${to}`);
      return mail;
    },
    runtime: () => deps.runtime(),
    async smtpPort() {
      const port = (await deps.runtime()).smtp?.port;
      if (port === undefined) throw new Error("this harness runs no SMTP server (role web, or email.smtp unset)");
      return port;
    },
    async close() {
      // Stop open streams (SSE) too, or close() would wait for them.
      if ("closeAllConnections" in server) server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await deps.close();
      if (!options.database) await database.dispose();
    },
  };
}

/**
 * Resolves once `to` hears `from`'s signals (both LISTEN on PostgreSQL): a test that relies on one
 * instance hearing another starts after this.
 */
export async function untilHeard(from: PlatformHarness, to: PlatformHarness): Promise<void> {
  const [sender, receiver] = [(await from.runtime()).signals, (await to.runtime()).signals];
  let heard = false;
  const stop = receiver.subscribe("test:probe", () => (heard = true));
  for (let tries = 0; !heard && tries < 100; tries++) {
    sender.publish("test:probe");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  stop();
  if (!heard) throw new Error("one instance never heard the other's signals");
}
