// N web instances and M workers of the platform on one machine, sharing PostgreSQL and Redis, behind
// nginx: the scale-out deployment of docs/design.md, as child processes of this one. With `app`, the
// framework's Next.js app too (the image's app role: `next start` on the compiled build), behind the
// same nginx as docs/deploy.md routes it: /api/v2/ to the platform, everything else to the app.
import { spawn, type ChildProcess } from "node:child_process";
import { constants } from "node:fs";
import { access, chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as delay } from "node:timers/promises";
import pg from "pg";
import { nginxConfig } from "./nginx-config";
import { accepts, freePort } from "./ports";

export type InstanceRole = "web" | "worker" | "app";

export interface ClusterOptions {
  web: number;
  workers: number;
  /** nginx's port on 127.0.0.1; 0 picks a free one. */
  port: number;
  databaseUrl: string;
  redisUrl: string;
  /** The children's environment (the caller's, usually); the cluster adds its own settings on top. */
  env: NodeJS.ProcessEnv;
  /** The repository root, where `server/platform/standalone.ts` is. */
  cwd?: string;
  /**
   * What node runs to start one platform process, before its --role and port arguments. Default: the
   * sources through tsx; the compiled cluster (dist/platform/cluster.js) passes the compiled platform.
   */
  entry?: string[];
  nginxPath?: string;
  /** Each line a child writes on stderr, and the cluster's own reports. Default: this process's stderr. */
  onLog?: (line: string) => void;
  /** How long a process may take to print its ready line. */
  readyTimeoutMs?: number;
  /** Aborting it while the cluster starts stops what was started (startCluster then rejects). */
  signal?: AbortSignal;
  /** App processes, started once the platform and nginx are up. */
  app?: AppOptions;
}

export interface AppOptions {
  instances: number;
  /**
   * The apps' own settings (their database, NEXTAUTH_SECRET, the platform account's key and webhook
   * secret), made once the platform answers at `platformUrl`: an app is the platform's customer, so its
   * account is opened there first. The cluster adds PORT, the platform's URL and nginx's origin.
   */
  env: (urls: { origin: string; platformUrl: string }) => Promise<NodeJS.ProcessEnv>;
}

export interface Instance {
  /** `web-1`, `worker-2`: stable across replacements. */
  readonly name: string;
  readonly role: InstanceRole;
  readonly pid: number;
  /** The instance's own base URL (web: http://127.0.0.1:41234/api/v2; app: its origin). */
  readonly baseUrl: string | undefined;
  /** Where its /healthz and /readyz answer: a web instance's or an app's own origin, a worker's probe port. */
  readonly probeUrl: string | undefined;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
}

export interface Cluster {
  /** nginx's base URL, e.g. http://127.0.0.1:8080/api/v2. */
  readonly baseUrl: string;
  /** nginx's origin, where the apps answer (with `app`). */
  readonly origin: string;
  /** The current instances (a replacement takes its predecessor's place and name). */
  readonly web: readonly Instance[];
  readonly workers: readonly Instance[];
  readonly apps: readonly Instance[];
  /** Sends `signal` to the instance and waits until it has exited. */
  kill(instance: Instance, signal?: NodeJS.Signals): Promise<void>;
  /**
   * Starts a new process in a stopped instance's place, on the same port (nginx finds a web one there).
   * `env` is added to the cluster's environment for this process only (another database URL, say).
   */
  replace(instance: Instance, options?: { env?: Record<string, string> }): Promise<Instance>;
  /** Stops every process (SIGTERM, SIGKILL after a while) and removes nginx's directory. */
  stop(): Promise<void>;
}

interface Slot {
  name: string;
  role: InstanceRole;
  port: number;
  current?: Running;
}

interface Running extends Instance {
  child: ChildProcess;
  /** Set when the cluster itself stopped or killed it, so the exit is not reported as a crash. */
  expectedExit: boolean;
}

const STOP_GRACE_MS = 10_000;

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  if (!Number.isInteger(options.web) || options.web < 1) throw new Error("a cluster needs at least one web instance");
  if (!Number.isInteger(options.workers) || options.workers < 1) throw new Error("a cluster needs at least one worker");
  const appCount = options.app?.instances ?? 0;
  if (!Number.isInteger(appCount) || appCount < 0) throw new Error("app instances must be a whole number");
  const cwd = options.cwd ?? process.cwd();
  const entry = options.entry ?? ["--import", "tsx", "server/platform/standalone.ts"];
  const log = options.onLog ?? ((line: string) => process.stderr.write(`${line}\n`));
  const readyTimeoutMs = options.readyTimeoutMs ?? 120_000;
  const nginxBinary = options.nginxPath ?? "/usr/sbin/nginx";
  // What the processes cannot start without, checked before any of them is: a missing piece fails at
  // once and says which, instead of after the processes' own time-outs.
  await preflight(nginxBinary, options.databaseUrl);
  // nginx's port first: every instance hands out links to the address clients reach, nginx's.
  const port = options.port === 0 ? await freePort() : options.port;
  const origin = `http://127.0.0.1:${port}`;
  const baseUrl = `${origin}/api/v2`;
  const childEnv: NodeJS.ProcessEnv = {
    INLAY_PLATFORM_PUBLIC_URL: baseUrl,
    ...options.env,
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl,
    // Several web instances share one allowance only if the counters live in Redis.
    RATE_LIMIT_STORE: "redis",
    // The web instances see nginx as the peer; the client is in X-Forwarded-For.
    TRUST_PROXY: "true",
  };
  delete childEnv.INLAY_ROLE;

  const slots: Slot[] = [
    ...Array.from({ length: options.web }, (_, i) => ({ name: `web-${i + 1}`, role: "web" as const, port: 0 })),
    ...Array.from({ length: options.workers }, (_, i) => ({ name: `worker-${i + 1}`, role: "worker" as const, port: 0 })),
  ];
  // next start cannot report a port it picked: the apps' are picked here, before nginx names them.
  const appSlots: Slot[] = [];
  for (let i = 0; i < appCount; i++) appSlots.push({ name: `app-${i + 1}`, role: "app", port: await freePort() });
  let appEnv: NodeJS.ProcessEnv | undefined;
  let stopping = false;
  let nginx: ChildProcess | undefined;
  let nginxDir: string | undefined;

  async function launch(slot: Slot, extraEnv?: Record<string, string>): Promise<Running> {
    let args: string[];
    let env: NodeJS.ProcessEnv = { ...childEnv, ...extraEnv };
    if (slot.role === "app") {
      // What server/entry.sh runs for INLAY_ROLE=app, on loopback; SIGTERM is the app's own drain.
      args = ["node_modules/next/dist/bin/next", "start", "--hostname", "127.0.0.1", "--port", String(slot.port), "--keepAliveTimeout", "65000"];
      env = { ...appEnv, ...extraEnv, INLAY_ROLE: "app", NEXT_MANUAL_SIG_HANDLE: "1", PORT: String(slot.port) } as NodeJS.ProcessEnv;
    } else {
      args = [...entry, "--role", slot.role, "--host", "127.0.0.1"];
      // Web instances answer /healthz and /readyz on their own port, workers on a probe port of their own.
      args.push(slot.role === "web" ? "--port" : "--probe-port", String(slot.port));
    }
    const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let ready = false;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const lines = createInterface({ input: child.stdout! });
    // The last lines it wrote, for the error when it does not get ready (a caller's onLog may keep none).
    const recent: string[] = [];
    const output = (line: string) => {
      recent.push(line);
      if (recent.length > 20) recent.shift();
      log(`[${slot.name}] ${line}`);
    };
    const lastLines = () => (recent.length > 0 ? `; its last lines:\n${recent.join("\n")}` : "");
    createInterface({ input: child.stderr! }).on("line", output);
    const readyLine = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${slot.name} did not get ready within ${readyTimeoutMs} ms`)), readyTimeoutMs);
      lines.on("line", (line) => {
        if (ready) return output(line);
        const expected = slot.role === "app" ? /\bReady in\b/.test(line) : line.startsWith(slot.role === "web" ? "listening on " : "worker ready, probes on ");
        if (!expected) return output(line);
        ready = true;
        clearTimeout(timer);
        resolve(line);
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        if (!ready) reject(new Error(`${slot.name} exited before it was ready (${signal ?? `code ${code}`})${lastLines()}`));
      });
    });
    const running: Running = {
      name: slot.name,
      role: slot.role,
      pid: child.pid ?? -1,
      baseUrl: undefined,
      probeUrl: undefined,
      exited,
      child,
      expectedExit: false,
    };
    child.once("exit", (code, signal) => {
      if (ready && !running.expectedExit && !stopping) {
        log(`cluster: ${slot.name} (pid ${running.pid}) exited unexpectedly (${signal ?? `code ${code}`})`);
      }
    });
    slot.current = running;
    try {
      const line = await readyLine;
      if (slot.role === "app") {
        // next prints its ready line before the app has opened its database and reached the platform.
        const appOrigin = `http://127.0.0.1:${slot.port}`;
        await untilReady(`${appOrigin}/readyz`, readyTimeoutMs, () => running.child.exitCode !== null || running.child.signalCode !== null);
        return Object.assign(running, { baseUrl: appOrigin, probeUrl: appOrigin });
      }
      if (slot.role === "web") {
        const baseUrl = line.slice("listening on ".length);
        slot.port = Number(new URL(baseUrl).port);
        return Object.assign(running, { baseUrl, probeUrl: new URL(baseUrl).origin });
      }
      const probeUrl = line.slice("worker ready, probes on ".length);
      slot.port = Number(new URL(probeUrl).port);
      return Object.assign(running, { probeUrl });
    } catch (error) {
      running.expectedExit = true;
      child.kill("SIGKILL");
      if (error instanceof Error && !error.message.includes("its last lines")) error.message += lastLines();
      throw error;
    }
  }

  async function startNginx(port: number): Promise<void> {
    nginxDir = await mkdtemp(path.join(tmpdir(), "inlay-nginx-"));
    // nginx's workers drop root to an unprivileged user; they must reach the temp paths inside.
    await chmod(nginxDir, 0o755);
    const config = nginxConfig({
      dir: nginxDir,
      port,
      upstreamPorts: slots.filter((s) => s.role === "web").map((s) => s.port),
      appPorts: appSlots.map((s) => s.port),
    });
    await writeFile(path.join(nginxDir, "nginx.conf"), config);
    // -e stderr: before it reads the config, nginx would open its compiled-in log path.
    const child = spawn(nginxBinary, ["-p", nginxDir, "-c", path.join(nginxDir, "nginx.conf"), "-e", "stderr"], {
      cwd: nginxDir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    nginx = child;
    let exit: string | undefined;
    child.once("exit", (code, signal) => {
      exit = signal ?? `code ${code}`;
      if (!stopping) log(`cluster: nginx exited unexpectedly (${exit})`);
    });
    child.once("error", (error) => {
      exit = error.message;
      log(`cluster: nginx: ${error.message}`);
    });
    for (const stream of [child.stdout!, child.stderr!]) createInterface({ input: stream }).on("line", (line) => log(`[nginx] ${line}`));
    // nginx prints nothing when it is up: wait until its port accepts connections.
    const deadline = Date.now() + readyTimeoutMs;
    while (!(await accepts(port))) {
      if (exit !== undefined) throw new Error(`nginx exited before it was ready (${exit}); see its log above`);
      if (Date.now() > deadline) throw new Error(`nginx did not listen on ${port} within ${readyTimeoutMs} ms`);
      await delay(50);
    }
  }

  async function kill(instance: Instance, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    const running = instance as Running;
    running.expectedExit = true;
    if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill(signal);
    await running.exited;
  }

  let stopped: Promise<void> | undefined;
  const stopAll = () => (stopped ??= stopProcesses());
  async function stopProcesses(): Promise<void> {
    stopping = true;
    const processes: { child: ChildProcess; exited: Promise<unknown> }[] = [];
    if (nginx) processes.push({ child: nginx, exited: exitOf(nginx) });
    for (const slot of [...slots, ...appSlots]) if (slot.current) processes.push({ child: slot.current.child, exited: slot.current.exited });
    const alive = processes.filter(({ child }) => child.exitCode === null && child.signalCode === null);
    for (const { child } of alive) child.kill("SIGTERM");
    const timer = setTimeout(() => {
      for (const { child } of alive) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }, STOP_GRACE_MS);
    await Promise.all(alive.map(({ exited }) => exited));
    clearTimeout(timer);
    if (nginxDir) await rm(nginxDir, { recursive: true, force: true });
  }

  const onAbort = () => void stopAll();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    // The first process applies the migrations (under an advisory lock); the rest start together.
    const [first, ...rest] = slots;
    await launch(first!);
    await Promise.all(rest.map((slot) => launch(slot)));
    if (stopping) throw new Error("the cluster was stopped while it started");
    await startNginx(port);
    if (stopping) throw new Error("the cluster was stopped while it started");
    if (options.app && appSlots.length > 0) {
      appEnv = { ...(await options.app.env({ origin, platformUrl: baseUrl })), PLATFORM_BASE_URL: baseUrl, NEXTAUTH_URL: origin };
      // Migrations are applied under an advisory lock: the apps start together.
      await Promise.all(appSlots.map((slot) => launch(slot)));
      if (stopping) throw new Error("the cluster was stopped while it started");
    }
    const current = (role: InstanceRole) => [...slots, ...appSlots].filter((slot) => slot.role === role).map((slot) => slot.current!);
    return {
      baseUrl,
      origin,
      get apps() {
        return current("app");
      },
      get web() {
        return current("web");
      },
      get workers() {
        return current("worker");
      },
      kill,
      async replace(instance, replacement) {
        const slot = [...slots, ...appSlots].find((candidate) => candidate.current === instance);
        if (!slot) throw new Error(`${instance.name} (pid ${instance.pid}) is not a current instance of this cluster`);
        const running = slot.current!;
        if (running.child.exitCode === null && running.child.signalCode === null) {
          throw new Error(`${instance.name} is still running; kill it first`);
        }
        return launch(slot, replacement?.env);
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/** Throws, naming what is missing, when nginx cannot be run or PostgreSQL does not answer. */
async function preflight(nginxBinary: string, databaseUrl: string): Promise<void> {
  try {
    await access(nginxBinary, constants.X_OK);
  } catch {
    throw new Error(`nginx is not installed at ${nginxBinary} (Debian: apt-get install nginx; elsewhere name it with --nginx PATH or NGINX); the cluster runs it in front of the web instances`);
  }
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
  } catch (error) {
    const where = new URL(databaseUrl);
    throw new Error(`PostgreSQL at ${where.hostname}:${where.port || 5432}${where.pathname} does not answer: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Polls a readiness URL until it answers 200; throws at the deadline or when the process has gone. */
async function untilReady(url: string, timeoutMs: number, gone: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "no answer";
  for (;;) {
    if (gone()) throw new Error(`exited before ${url} answered ready`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      if (response.ok) return;
      last = `${response.status} ${await response.text()}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() > deadline) throw new Error(`${url} was not ready within ${timeoutMs} ms (last: ${last})`);
    await delay(250);
  }
}

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}
