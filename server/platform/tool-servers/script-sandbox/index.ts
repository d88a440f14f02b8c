// Script tools: Python run in Pyodide inside worker threads (worker.mjs), with a wall-clock limit per
// call, a memory limit, no filesystem and no network but the injected `http`, which this side answers
// through the outbound guard, limited to the call's allowed origins. The security model is described at
// the top of worker.mjs and prelude.py.
//
// Pool: `poolSize` interpreters, started on first use and kept warm, each running one call at a time;
// each call gets a fresh Python namespace. A call past its time is interrupted (KeyboardInterrupt in
// Python, the interpreter stays warm); one that ignores the interrupt, ran out of memory or broke is
// terminated and replaced. Shared fairly (docs/design.md, Operations), by account first and by end-user
// within the account: an account runs at most `accountConcurrency` calls at once (one interpreter always
// stays for the other accounts) and queues at most `accountQueue`, however many end-users its calls come
// from; within that, one end-user (or the account's own calls) runs at most `endUserConcurrency` and
// queues at most `endUserQueue`. Past those its calls are refused as busy, other accounts unaffected.
// Waiting calls are taken account by account in turn, and within an account end-user by end-user.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { z } from "zod";
import { guardedFetch, OutboundError, outboundDefaults, type OutboundOptions } from "../../outbound/guarded-fetch";
import type { ToolCallOutcome } from "../types";
import { Counts, FairQueues, type SandboxScope } from "./fair-queues";

export interface ScriptSandboxOptions {
  /** Warm interpreters kept ready. */
  poolSize?: number;
  /** Wall-clock budget of one call (or check), its `http` requests included. */
  timeoutMs?: number;
  /** Cap of one interpreter's Python heap (WebAssembly memory), in MiB. */
  memoryMb?: number;
  /** Cap of a result's JSON; a larger result is a tool error (a cut JSON would not parse). */
  maxResultBytes?: number;
  /** Calls waiting for an interpreter beyond which calls are refused at once. */
  maxQueue?: number;
  /** Calls of one account running at once; default poolSize - 1 (at least 1). */
  accountConcurrency?: number;
  /** Calls of one account waiting; default a quarter of maxQueue (at least 1). */
  accountQueue?: number;
  /** Calls of one end-user (or the account's own) running at once; default accountConcurrency - 1 (at least 1). */
  endUserConcurrency?: number;
  /** Calls of one end-user (or the account's own) waiting; default half of accountQueue (at least 1). */
  endUserQueue?: number;
  /** How long an interrupted script has to stop before its interpreter is replaced. */
  interruptGraceMs?: number;
  /** `http` requests one call may make. */
  maxHttpRequests?: number;
  outbound: OutboundOptions;
}

export interface ScriptCall {
  source: string;
  tool: string;
  args: Record<string, unknown>;
  /** Origins `http` may reach: the server's url origin and its script_allowlist. */
  allowedOrigins: string[];
  /** Whose call it is: the unit of fair sharing. */
  scope?: SandboxScope;
}

/** The error of a call refused because its scope (or the whole sandbox) has too many calls in flight. */
export const SANDBOX_BUSY = "RuntimeError: the script sandbox is busy";

export type { SandboxScope };

export const sandboxScope = (accountId: number, endUserId: number | null): SandboxScope => ({ account: String(accountId), endUser: endUserId === null ? "" : String(endUserId) });

const NO_SCOPE: SandboxScope = { account: "", endUser: "" };

export interface ScriptSandbox {
  /** Whether the script defines one function per tool name taking keyword arguments; error says what is wrong. */
  check(source: string, toolNames: string[], scope?: SandboxScope): Promise<{ ok: true } | { ok: false; error: string }>;
  call(input: ScriptCall): Promise<ToolCallOutcome>;
  close(): Promise<void>;
}

/** Why an interpreter was let go: what an operator (and a test) reads to tell a script's fault from the pool's. */
export type RetireCause =
  | "recycled" // the script broke its interpreter (memory, a fatal error): replaced after answering
  | "worn" // served maxCallsPerWorker calls
  | "ignored-interrupt" // still running past the interrupt's grace
  | "out-of-memory" // the worker's JavaScript heap hit its cap
  | "stopped" // the worker thread exited or failed on its own
  | "misbehaved" // sent a message that is not part of the protocol
  | "start-timeout"; // did not load in time

export interface ScriptSandboxStats {
  /** Interpreters started since creation: the pool's first fill plus every replacement. */
  interpreterStarts: number;
  /** Interpreters let go since creation, by cause (closing the sandbox counts none). */
  retired: Partial<Record<RetireCause, number>>;
  /** Interpreters alive (starting or ready). */
  workers: number;
  /** Ready and not running a call. */
  idle: number;
  busy: number;
  queued: number;
}

export interface PooledScriptSandbox extends ScriptSandbox {
  stats(): ScriptSandboxStats;
}

export const scriptSandboxDefaults = {
  poolSize: 2,
  timeoutMs: 10_000,
  memoryMb: 128,
  maxResultBytes: 64 * 1024,
  maxQueue: 32,
  maxHttpRequests: 20,
  maxSourceBytes: 256 * 1024,
  /** Calls one interpreter serves before it is replaced, bounding whatever a long life accumulates. */
  maxCallsPerWorker: 500,
  /** Pyodide starts in a few seconds; a slow machine under load gets generous room. */
  startTimeoutMs: 60_000,
  /** How long an interrupted script has to stop before its interpreter is terminated and replaced. */
  interruptGraceMs: 2_000,
} as const;

const interruptResendMs = 100;

const WORKER_DIR = "server/platform/tool-servers/script-sandbox";
let workerFile: string | undefined;

/**
 * The worker loads from the source tree, beside prelude.py and with node_modules/pyodide above it (a
 * string path, not new URL(..., import.meta.url) inline: bundlers rewrite that pattern into an asset).
 * Beside this module under tsx and vitest; Next's webpack inlines import.meta.url as the path at build
 * time, so a build that runs from another directory looks in the working directory's source tree.
 */
function workerPath(): string {
  if (workerFile) return workerFile;
  const beside = path.join(path.dirname(fileURLToPath(import.meta.url)), "worker.mjs");
  workerFile = existsSync(beside) ? beside : path.join(process.cwd(), WORKER_DIR, "worker.mjs");
  return workerFile;
}

type JobInput =
  | { op: "check"; source: string; toolNames: string[] }
  | { op: "call"; source: string; tool: string; args: Record<string, unknown>; allowedOrigins: Set<string> };
type Job = JobInput & { scope: SandboxScope; resolve: (outcome: WorkerOutcome) => void };

interface WorkerOutcome {
  ok: boolean;
  result?: unknown;
  error?: string;
}

interface Running {
  id: number;
  job: Job;
  deadline: number;
  timer: NodeJS.Timeout;
  httpRequests: number;
  /** Set once the call ran past its time and was interrupted. */
  interrupted?: boolean;
  /** Re-sends the interrupt until the call answers (see interrupt()). */
  resend?: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  exchange: SharedArrayBuffer;
  /** Pyodide's interrupt buffer: 2 (SIGINT) raises KeyboardInterrupt in the running script. */
  interrupt: Uint8Array;
  ready: boolean;
  calls: number;
  running?: Running;
  startTimer?: NodeJS.Timeout;
}

const workerMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready") }),
  z.object({ type: z.literal("result"), id: z.number(), outcome: z.object({ ok: z.boolean(), result: z.unknown().optional(), error: z.string().optional(), recycle: z.boolean().optional() }) }),
  z.object({ type: z.literal("http"), id: z.number().nullable(), request: z.string().max(2 * 1024 * 1024) }),
]);

const httpRequest = z.object({
  method: z.enum(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]),
  url: z.string().max(8192),
  headers: z.record(z.string(), z.string()).refine((headers) => Object.keys(headers).length <= 50, "too many headers"),
  body: z.string().max(1024 * 1024).nullable(),
});

type HttpAnswer = { status: number; headers: Record<string, string>; body: string; truncated: boolean } | { error: string; kind: "PermissionError" | "TimeoutError" | "ConnectionError" };

export function createScriptSandbox(options: ScriptSandboxOptions): PooledScriptSandbox {
  const poolSize = Math.max(1, options.poolSize ?? scriptSandboxDefaults.poolSize);
  const timeoutMs = options.timeoutMs ?? scriptSandboxDefaults.timeoutMs;
  const memoryMb = options.memoryMb ?? scriptSandboxDefaults.memoryMb;
  const maxResultBytes = options.maxResultBytes ?? scriptSandboxDefaults.maxResultBytes;
  const maxQueue = options.maxQueue ?? scriptSandboxDefaults.maxQueue;
  const maxHttpRequests = options.maxHttpRequests ?? scriptSandboxDefaults.maxHttpRequests;
  const accountConcurrency = Math.max(1, options.accountConcurrency ?? poolSize - 1);
  const accountQueue = Math.max(1, options.accountQueue ?? Math.ceil(maxQueue / 4));
  const endUserConcurrency = Math.max(1, options.endUserConcurrency ?? accountConcurrency - 1);
  const endUserQueue = Math.max(1, options.endUserQueue ?? Math.ceil(accountQueue / 2));
  const interruptGraceMs = options.interruptGraceMs ?? scriptSandboxDefaults.interruptGraceMs;
  const outbound = options.outbound;
  // Worst case of the JSON of a response body: every byte escaped as \u00XX, plus room for headers.
  const exchangeBytes = 8 + 6 * (outbound.maxResponseBytes ?? outboundDefaults.maxResponseBytes) + 64 * 1024;

  const slots = new Set<Slot>();
  const queues = new FairQueues<Job>();
  // Running calls per account and per end-user (keyed as FairQueues keys them).
  const inFlight = new Counts();
  const queued = () => queues.size;
  let nextId = 1;
  let interpreterStarts = 0;
  const retired: Partial<Record<RetireCause, number>> = {};
  let closed = false;

  function spawn(): void {
    interpreterStarts++;
    const exchange = new SharedArrayBuffer(exchangeBytes);
    const interrupt = new SharedArrayBuffer(1);
    const worker = new Worker(workerPath(), {
      workerData: { memoryMb, exchange, interrupt },
      // No secrets in the worker: an empty environment, and none of the parent's loader flags.
      env: {},
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32 },
      stdout: true,
      stderr: true,
    });
    // Pyodide reports fatal errors on stderr; a script's faults are answered as tool errors instead.
    worker.stdout.resume();
    worker.stderr.resume();
    const slot: Slot = { worker, exchange, interrupt: new Uint8Array(interrupt), ready: false, calls: 0 };
    slot.startTimer = setTimeout(() => retire(slot, "start-timeout", "RuntimeError: the script interpreter did not start in time"), scriptSandboxDefaults.startTimeoutMs);
    slots.add(slot);
    worker.on("message", (raw: unknown) => onMessage(slot, raw));
    worker.on("error", (err: Error & { code?: string }) => {
      if (err.code === "ERR_WORKER_OUT_OF_MEMORY") retire(slot, "out-of-memory", "MemoryError: the script exceeded its memory limit");
      else retire(slot, "stopped", "RuntimeError: the script's interpreter stopped");
    });
    worker.on("exit", () => retire(slot, "stopped", "RuntimeError: the script's interpreter stopped"));
  }

  function onMessage(slot: Slot, raw: unknown): void {
    const parsed = workerMessage.safeParse(raw);
    if (!parsed.success) return retire(slot, "misbehaved", "RuntimeError: the script's interpreter misbehaved");
    const message = parsed.data;
    if (message.type === "ready") {
      clearTimeout(slot.startTimer);
      slot.ready = true;
      return pump();
    }
    const running = slot.running;
    if (message.type === "http") {
      if (!running || message.id !== running.id || running.job.op !== "call") {
        return answerHttp(slot, { kind: "PermissionError", error: "http is not available here" });
      }
      void serveHttp(running, message.request).then((answer) => {
        if (slot.running === running) answerHttp(slot, answer);
      });
      return;
    }
    if (!running || message.id !== running.id) return;
    clearTimeout(running.timer);
    finish(slot);
    slot.calls++;
    const { recycle, ...outcome } = message.outcome;
    // An interrupted call is answered as what it is, whatever the script made of the interrupt.
    running.job.resolve(running.interrupted ? { ok: false, error: timeoutError() } : outcome);
    if (recycle) retire(slot, "recycled");
    else if (slot.calls >= scriptSandboxDefaults.maxCallsPerWorker) retire(slot, "worn");
    pump();
  }

  function answerHttp(slot: Slot, answer: HttpAnswer): void {
    let bytes = new TextEncoder().encode(JSON.stringify(answer));
    if (bytes.length > slot.exchange.byteLength - 8) {
      bytes = new TextEncoder().encode(JSON.stringify({ kind: "ConnectionError", error: "the response is too large to pass to the script" }));
    }
    const signal = new Int32Array(slot.exchange, 0, 2);
    new Uint8Array(slot.exchange, 8).set(bytes);
    signal[1] = bytes.length;
    Atomics.store(signal, 0, 1);
    Atomics.notify(signal, 0);
  }

  async function serveHttp(running: Running, raw: string): Promise<HttpAnswer> {
    if (running.job.op !== "call") return { kind: "PermissionError", error: "http is not available here" };
    let request: z.infer<typeof httpRequest>;
    try {
      request = httpRequest.parse(JSON.parse(raw));
    } catch {
      return { kind: "ConnectionError", error: "the request is not valid (method, url, headers or body)" };
    }
    if (++running.httpRequests > maxHttpRequests) {
      return { kind: "PermissionError", error: `a call may make at most ${maxHttpRequests} http requests` };
    }
    let origin: string;
    try {
      origin = new URL(request.url).origin;
    } catch {
      return { kind: "ConnectionError", error: "the URL is not valid" };
    }
    if (!running.job.allowedOrigins.has(origin)) {
      return { kind: "PermissionError", error: `${origin} is not among the origins this script may call` };
    }
    const remaining = running.deadline - Date.now();
    if (remaining <= 0) return { kind: "TimeoutError", error: "the call has no time left" };
    try {
      const response = await guardedFetch(
        request.url,
        { method: request.method, headers: request.headers, body: request.body ?? undefined },
        // No redirects: a redirect could leave the allowed origins; the script sees the 3xx instead.
        { ...outbound, maxRedirects: 0, timeoutMs: Math.min(outbound.timeoutMs ?? outboundDefaults.timeoutMs, remaining) },
      );
      return { status: response.status, headers: response.headers, body: response.body, truncated: response.truncated };
    } catch (err) {
      if (err instanceof OutboundError) {
        const kind = err.reason === "timeout" ? "TimeoutError" : err.reason === "blocked_address" || err.reason === "scheme_not_allowed" ? "PermissionError" : "ConnectionError";
        return { kind, error: err.message };
      }
      return { kind: "ConnectionError", error: "the request failed" };
    }
  }

  const timeoutError = () => `TimeoutError: the script ran longer than ${timeoutMs} ms`;

  /** The slot's call is over: its account and end-user have one running call less. */
  function finish(slot: Slot): void {
    const call = slot.running;
    if (!call) return;
    slot.running = undefined;
    clearInterval(call.resend);
    inFlight.add(call.job.scope, -1);
  }

  /** Past its time: raise KeyboardInterrupt in the script, and replace the interpreter if it does not stop. */
  function interrupt(slot: Slot, running: Running): void {
    running.interrupted = true;
    Atomics.store(slot.interrupt, 0, 2);
    // Pyodide takes an interrupt by reading the buffer and then zeroing it, not atomically: a store
    // between the two is lost. Re-sent until the call answers (or the grace ends), a lost interrupt
    // costs a few milliseconds instead of the interpreter, and a script that catches one gets another.
    running.resend = setInterval(() => Atomics.store(slot.interrupt, 0, 2), interruptResendMs);
    running.timer = setTimeout(() => retire(slot, "ignored-interrupt", timeoutError()), interruptGraceMs);
  }

  /** Terminates a worker; its call, if any, is answered with `reason`. Replaced while the pool is open. */
  function retire(slot: Slot, cause: RetireCause | "closed", reason?: string): void {
    if (!slots.delete(slot)) return;
    if (cause !== "closed") retired[cause] = (retired[cause] ?? 0) + 1;
    clearTimeout(slot.startTimer);
    const running = slot.running;
    if (running) {
      clearTimeout(running.timer);
      finish(slot);
      running.job.resolve({ ok: false, error: reason ?? "RuntimeError: the script's interpreter stopped" });
    } else if (!slot.ready && reason) {
      // It never started: the queue would wait for nothing, so fail it now (a later call tries again).
      for (const job of queues.clear()) job.resolve({ ok: false, error: `RuntimeError: the script sandbox could not start` });
    }
    void slot.worker.terminate();
    if (!closed && (slot.ready || queued() > 0)) fill();
    pump();
  }

  /** The next waiting call: of the first account in turn under its concurrency, of its first end-user in turn under theirs. */
  const nextJob = () =>
    queues.take(
      (account) => inFlight.ofAccount(account) < accountConcurrency,
      (scope) => inFlight.ofEndUser(scope) < endUserConcurrency,
    );

  function fill(): void {
    while (!closed && slots.size < poolSize) spawn();
  }

  function pump(): void {
    for (const slot of slots) {
      if (!slot.ready || slot.running) continue;
      const job = nextJob();
      if (!job) return;
      const id = nextId++;
      const running: Running = { id, job, deadline: Date.now() + timeoutMs, httpRequests: 0, timer: undefined as unknown as NodeJS.Timeout };
      running.timer = setTimeout(() => interrupt(slot, running), timeoutMs);
      Atomics.store(slot.interrupt, 0, 0);
      inFlight.add(job.scope, 1);
      slot.running = running;
      slot.worker.postMessage(
        job.op === "check"
          ? { id, op: "check", source: job.source, toolNames: job.toolNames }
          : { id, op: "call", source: job.source, tool: job.tool, args: job.args, maxResultBytes },
      );
    }
  }

  function submit(job: JobInput, scope = NO_SCOPE): Promise<WorkerOutcome> {
    if (closed) return Promise.resolve({ ok: false, error: "RuntimeError: the script sandbox is closed" });
    if (Buffer.byteLength(job.source, "utf8") > scriptSandboxDefaults.maxSourceBytes) {
      return Promise.resolve({ ok: false, error: `ValueError: the script is over ${scriptSandboxDefaults.maxSourceBytes} bytes` });
    }
    // An end-user at their share waits no further than their own queue (the rest of the account's is
    // its other end-users'), an account no further than its own (the rest of the pool is the others').
    const whose = scope.endUser ? "this end-user's" : "this account's own";
    if (queues.waitingOf(scope) >= endUserQueue) {
      return Promise.resolve({ ok: false, error: `${SANDBOX_BUSY} with ${whose} calls (${endUserConcurrency} running, ${endUserQueue} waiting); try again shortly` });
    }
    if (queues.waitingOfAccount(scope.account) >= accountQueue) {
      return Promise.resolve({ ok: false, error: `${SANDBOX_BUSY} with this account's calls (${accountConcurrency} running, ${accountQueue} waiting); try again shortly` });
    }
    if (queued() >= maxQueue) return Promise.resolve({ ok: false, error: `${SANDBOX_BUSY}; try again shortly` });
    return new Promise((resolve) => {
      queues.push({ ...job, scope, resolve });
      fill();
      pump();
    });
  }

  return {
    async check(source, toolNames, scope) {
      const outcome = await submit({ op: "check", source, toolNames }, scope);
      return outcome.ok ? { ok: true } : { ok: false, error: outcome.error ?? "the script is not valid" };
    },

    async call({ source, tool, args, allowedOrigins, scope }) {
      let cloned: Record<string, unknown>;
      try {
        cloned = JSON.parse(JSON.stringify(args ?? {})) as Record<string, unknown>;
      } catch {
        return { ok: false, error: "TypeError: the arguments are not JSON" };
      }
      if (cloned === null || typeof cloned !== "object" || Array.isArray(cloned)) {
        return { ok: false, error: "TypeError: the arguments must be an object" };
      }
      const origins = new Set<string>();
      for (const entry of allowedOrigins) {
        try {
          origins.add(new URL(entry).origin);
        } catch {
          // An invalid entry admits nothing.
        }
      }
      const outcome = await submit({ op: "call", source, tool, args: cloned, allowedOrigins: origins }, scope);
      return outcome.ok ? { ok: true, result: outcome.result ?? null } : { ok: false, error: outcome.error ?? "the script failed" };
    },

    async close() {
      closed = true;
      for (const job of queues.clear()) job.resolve({ ok: false, error: "RuntimeError: the script sandbox is closed" });
      const workers = [...slots].map((slot) => slot.worker);
      for (const slot of [...slots]) retire(slot, "closed", "RuntimeError: the script sandbox is closed");
      await Promise.all(workers.map((worker) => worker.terminate()));
    },

    stats() {
      const all = [...slots];
      return {
        interpreterStarts,
        retired: { ...retired },
        workers: all.length,
        idle: all.filter((slot) => slot.ready && !slot.running).length,
        busy: all.filter((slot) => slot.running).length,
        queued: queued(),
      };
    },
  };
}
