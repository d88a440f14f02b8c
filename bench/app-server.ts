// The app as `npm start` runs it, for the chat benchmarks (bench/chat-path.ts): `next start` on the
// production build in .next/ (run `npm run build` first), on a loopback port, with the embedded platform
// (PGlite in a fresh directory, or PostgreSQL) or a separate compiled platform (PLATFORM_BASE_URL). It is
// set up over HTTP only, as an installation's people would: the owner lifts acme's demo limits (5 runs at
// once), acme's admin allows an origin and creates an embed secret, and a platform account with its API
// key measures the platform's own SSE beside the app. The live heap is read through the inspector (a full
// GC first), so no heap snapshot of a whole Next.js process has to be parsed.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as delay } from "node:timers/promises";
import { DEFAULT_PLATFORM_OUTDIR } from "@/server/platform-build";
import { DEMO_PASSWORD } from "@/prisma/seed";
import { freePort } from "@/server/cluster/ports";

const root = path.resolve(import.meta.dirname, "..");
export const EMBED_ORIGIN = "http://shop.bench.test";
export const AGENT = "Acme assistant"; // the seeded tenant agent of acme
const SECRET = "bench-only-secret-bench-only-secret";

export interface AppServer {
  base: string;
  child: ChildProcess;
  /** The Next.js server's own process (next start serves in the process it was started in). */
  pid: number;
  inspector: string;
}

const APP_METRICS_TOKEN = "bench-only-metrics-token";

/** The run ledger's figures from the app's /metrics: turns not settled yet, and the settle lag's sum and count. */
export async function ledgerFigures(base: string): Promise<{ open: number; lagSeconds: number; settled: number }> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${APP_METRICS_TOKEN}` } })).text();
  const value = (name: string) => {
    const line = text.split("\n").find((each) => each.startsWith(`${name} `));
    if (!line) throw new Error(`the app's /metrics has no ${name}`);
    return Number(line.split(" ")[1]);
  };
  return {
    open: value("inlay_app_ledger_admissions_open"),
    lagSeconds: value("inlay_app_ledger_settle_lag_seconds_sum"),
    settled: value("inlay_app_ledger_settle_lag_seconds_count"),
  };
}

/** `next start` on a free loopback port with the inspector on; resolves once it answers. */
export async function startApp(env: Record<string, string>): Promise<AppServer> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // BENCH_CPU_PROF=<dir>: the app writes its CPU profile to <dir>/app when it stops (as runs.ts's servers).
  // eslint-disable-next-line no-restricted-properties -- benchmark switch, not app configuration
  const profileDir = process.env.BENCH_CPU_PROF;
  const profile = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${path.join(profileDir, "app")}`] : [];
  // BENCH_NODE_FLAGS="--liftoff-only …": node flags for the app (V8's are not allowed in NODE_OPTIONS).
  // eslint-disable-next-line no-restricted-properties -- benchmark switch, not app configuration
  const nodeFlags = process.env.BENCH_NODE_FLAGS?.split(" ").filter(Boolean) ?? [];
  const child = spawn(
    process.execPath,
    [...profile, ...nodeFlags, "--inspect=127.0.0.1:0", "node_modules/next/dist/bin/next", "start", "--hostname", "127.0.0.1", "--port", String(port), "--keepAliveTimeout", "65000"],
    {
      cwd: root,
      env: {
        // As `npm start` runs it (package.json, server/entry.sh); BENCH_GLIBC_DEFAULTS=1 leaves glibc's own.
        // eslint-disable-next-line no-restricted-properties -- benchmark switch, not app configuration
        ...(process.env.BENCH_GLIBC_DEFAULTS ? {} : { MALLOC_MMAP_THRESHOLD_: "4194304" }),
        // eslint-disable-next-line no-restricted-properties -- the child inherits the benchmark's environment (PATH, its node)
        ...process.env,
        NODE_ENV: "production",
        NEXT_TELEMETRY_DISABLED: "1",
        NEXT_MANUAL_SIG_HANDLE: "1",
        NEXTAUTH_SECRET: SECRET,
        NEXTAUTH_URL: base,
        // eslint-disable-next-line no-restricted-properties -- BENCH_LOG_LEVEL shows the app's errors
        LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "error",
        INLAY_BENCH_FLOOR: "1",
        // The bench reads the ledger's open admissions from /metrics (a burst's settlement tail).
        INLAY_METRICS_TOKEN: APP_METRICS_TOKEN,
        INLAY_SIGNUP: "open",
        PLATFORM_SIGNUP_CREDIT_MICROS: "1000000000",
        ...env,
      },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const inspector = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stderr! });
    lines.on("line", (line) => {
      const url = /Debugger listening on (ws:\/\/\S+)/.exec(line)?.[1];
      if (url) resolve(url);
      else if (!line.startsWith("For help") && !line.startsWith("Debugger")) process.stderr.write(`[app] ${line}\n`);
    });
    child.once("exit", (code) => reject(new Error(`next start exited with ${code}`)));
  });
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited with ${child.exitCode}`);
    const ok = await fetch(`${base}/api/v2/openapi.json`).then((response) => response.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error("next start did not answer within 3 minutes");
    await delay(250);
  }
  return { base, child, pid: child.pid!, inspector };
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/** A separate platform (role all), compiled as `npm run build` wrote it, on `databaseUrl`. */
export async function startPlatform(databaseUrl: string): Promise<{ base: string; child: ChildProcess; pid: number }> {
  // Not NODE_ENV=production, as the e2e suite's separate platform: its webhooks (the app's ledger) may
  // then reach the app on loopback.
  const child = spawn(process.execPath, [path.join(DEFAULT_PLATFORM_OUTDIR, "standalone.js"), "--role", "all", "--port", "0"], {
    cwd: root,
    env: {
      // eslint-disable-next-line no-restricted-properties -- the child inherits the benchmark's environment
      ...process.env,
      DATABASE_URL: databaseUrl,
      NEXTAUTH_SECRET: SECRET,
      LOG_LEVEL: "error",
      OUTBOUND_ALLOW_LOOPBACK: "true",
      INLAY_SIGNUP: "open",
      PLATFORM_SIGNUP_CREDIT_MICROS: "1000000000",
      RUN_WORKER_CONCURRENCY: "1000",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`the platform exited with ${code}`)));
  });
  return { base: line.slice("listening on ".length), child, pid: child.pid! };
}

/** A fresh PGlite directory for one app, removed by the returned function. */
export async function pgliteDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "inlay-chat-bench-"));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** `npm run inlay -- accounts verify <email>` against the database `env` names (the way without SMTP). */
export async function verifyPlatformAccount(email: string, env: Record<string, string>): Promise<void> {
  const cli = spawn(process.execPath, ["--import", "tsx", "server/cli/inlay.ts", "accounts", "verify", email], {
    cwd: root,
    // eslint-disable-next-line no-restricted-properties -- the CLI inherits the benchmark's environment
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const code = await new Promise((resolve) => cli.once("exit", resolve));
  if (code !== 0) throw new Error(`accounts verify exited with ${code}`);
}

/** A next-auth session of a seeded person: the Cookie header a browser would send. */
export async function signIn(base: string, email: string, password = DEMO_PASSWORD): Promise<string> {
  const csrf = await fetch(`${base}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const csrfCookie = csrf.headers.getSetCookie().map((cookie) => cookie.split(";")[0]).join("; ");
  const response = await fetch(`${base}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie },
    body: new URLSearchParams({ csrfToken, email, password, callbackUrl: base, json: "true" }),
  });
  const session = response.headers.getSetCookie().find((cookie) => cookie.startsWith("next-auth.session-token="));
  if (!session) throw new Error(`signing in ${email} failed: ${response.status}`);
  return session.split(";")[0]!;
}

async function trpc<T>(base: string, cookie: string, procedure: string, input?: unknown): Promise<T> {
  const response =
    input === undefined
      ? await fetch(`${base}/api/trpc/${procedure}`, { headers: { cookie } })
      : await fetch(`${base}/api/trpc/${procedure}`, { method: "POST", headers: { cookie, "content-type": "application/json" }, body: JSON.stringify(input) });
  if (!response.ok) throw new Error(`${procedure}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { result: { data: T } }).result.data;
}

export interface ChatSetup {
  /** The embed secret of acme. */
  secret: string;
  /** A signed-in member of acme (its admin): the Cookie header. */
  memberCookie: string;
}

/** Lifts acme's limits (as the owner) and its default member cap, allows EMBED_ORIGIN and creates an embed secret (as its admin). */
export async function prepareTenant(base: string): Promise<ChatSetup> {
  const owner = await signIn(base, "owner@inlay.test");
  const tenants = await trpc<{ id: string; slug: string }[]>(base, owner, "tenants.listAll");
  const acme = tenants.find((tenant) => tenant.slug === "acme");
  if (!acme) throw new Error("no acme tenant: the app did not seed its demo data");
  const none = { runsPerMonth: null, costPerMonthCents: null, concurrentRuns: null, turnsPerMinutePerMember: null };
  await trpc(base, owner, "tenants.setLimits", { tenantId: acme.id, limits: none });
  const admin = await signIn(base, "admin@acme.test");
  // The demo's default member cap (200 runs a month) would refuse the signed-in path after a few rounds.
  await trpc(base, admin, "limits.setDefaultCap", { runsPerMonth: null, costPerMonthCents: null });
  const origins = await fetch(`${base}/api/embed/origins`, {
    method: "PUT",
    headers: { cookie: admin, "content-type": "application/json" },
    body: JSON.stringify({ origins: [EMBED_ORIGIN] }),
  });
  if (!origins.ok) throw new Error(`PUT /api/embed/origins: ${origins.status} ${await origins.text()}`);
  const { secret } = await trpc<{ secret: string }>(base, admin, "embedSecrets.create", { name: "chat bench" });
  return { secret, memberCookie: admin };
}

/** An embed token for the vendor's user `userId` (POST /api/embed/sessions, as a vendor's backend). */
export async function embedToken(base: string, secret: string, userId: string): Promise<string> {
  const response = await fetch(`${base}/api/embed/sessions`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ user_id: userId, email: `${userId}@shop.bench.test`, agent: AGENT, origin: EMBED_ORIGIN, ttl_seconds: 600 }),
  });
  if (!response.ok) throw new Error(`POST /api/embed/sessions: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}

/** A platform account with an agent, for POST /runs beside the app; verify it before it runs 25 runs. */
export async function platformAccount(platformBase: string): Promise<{ email: string; key: string; agentId: number }> {
  const email = `chat-bench-${randomBytes(4).toString("hex")}@example.test`;
  const post = async (pathname: string, body: object, key?: string) => {
    const response = await fetch(`${platformBase}${pathname}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`POST ${pathname}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { api_key: string; id: number };
  };
  const { api_key: key } = await post("/signup", { email, first_name: "Chat bench", password: randomBytes(12).toString("base64url"), require_end_user_id: false });
  // The chat agent's settings (server/framework/tenancy: the seeded tenant agent), so the runs match.
  const agent = await post("/agents", { name: "Bench chat", tools: ["memory", "calculator", "AskUserQuestion"] }, key);
  return { email, key, agentId: agent.id };
}

/**
 * The process's memory after a full GC, read through its inspector. heapUsed and heapTotal add up every
 * isolate of the process: the main thread's and its worker threads' (the embedded platform's run
 * executor on PostgreSQL), each collected first; RSS is the process's.
 */
export async function liveMemory(inspectorUrl: string): Promise<NodeJS.MemoryUsage & { isolates: number }> {
  const Socket = (globalThis as { WebSocket?: typeof WebSocket }).WebSocket;
  if (!Socket) throw new Error("reading the app's heap needs Node 22 or later (a global WebSocket)");
  const socket = new Socket(inspectorUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let id = 0;
  const pending = new Map<number, (result: unknown) => void>();
  const sessions: string[] = [];
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; method?: string; params?: { sessionId: string; message?: string } };
    if (message.id !== undefined) pending.get(message.id)?.(message.result);
    else if (message.method === "NodeWorker.attachedToWorker") sessions.push(message.params!.sessionId);
    else if (message.method === "NodeWorker.receivedMessageFromWorker") {
      const inner = JSON.parse(message.params!.message!) as { id?: number; result?: unknown };
      if (inner.id !== undefined) pending.get(inner.id)?.(inner.result);
    }
  };
  const send = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      pending.set(++id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  // A worker's calls go inside NodeWorker.sendMessageToWorker; its answer comes back as an event.
  const sendToWorker = (sessionId: string, method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      const inner = ++id;
      pending.set(inner, resolve);
      void send("NodeWorker.sendMessageToWorker", { sessionId, message: JSON.stringify({ id: inner, method, params }) });
    });
  const usage = "JSON.stringify(process.memoryUsage())";
  try {
    await send("NodeWorker.enable", { waitForDebuggerOnStart: false });
    // The attach events of threads already running come right after enable.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await send("HeapProfiler.collectGarbage");
    await send("HeapProfiler.collectGarbage");
    const main = JSON.parse(((await send("Runtime.evaluate", { expression: usage, returnByValue: true })) as { result: { value: string } }).result.value) as NodeJS.MemoryUsage;
    let heapUsed = main.heapUsed;
    let heapTotal = main.heapTotal;
    for (const session of sessions) {
      await sendToWorker(session, "HeapProfiler.collectGarbage");
      await sendToWorker(session, "HeapProfiler.collectGarbage");
      const result = (await sendToWorker(session, "Runtime.evaluate", { expression: usage, returnByValue: true })) as { result: { value: string } };
      const thread = JSON.parse(result.result.value) as NodeJS.MemoryUsage;
      heapUsed += thread.heapUsed;
      heapTotal += thread.heapTotal;
    }
    return { ...main, heapUsed, heapTotal, isolates: 1 + sessions.length };
  } finally {
    socket.close();
  }
}

/** Evaluates `expression` in the process (through its inspector); its value, JSON-serialisable. */
export async function evaluate(inspectorUrl: string, expression: string): Promise<unknown> {
  const socket = new WebSocket(inspectorUrl);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  try {
    const answer = new Promise<unknown>((resolve) => {
      socket.onmessage = (event) => resolve((JSON.parse(String(event.data)) as { result: { result: { value: unknown } } }).result.result.value);
    });
    socket.send(JSON.stringify({ id: 1, method: "Runtime.evaluate", params: { expression, returnByValue: true, awaitPromise: true } }));
    return await answer;
  } finally {
    socket.close();
  }
}
