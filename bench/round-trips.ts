// Counts the round trips to PostgreSQL of one simple run (POST /runs, the sim model, no tools), streamed
// and not, and of a plan-mode run up to its pause, per role: the platform runs as a web and a worker
// instance in this process, each on a pool of its own told apart by its connections' application_name;
// then the simple runs again on one instance of role all (its worker leases each run as it is admitted).
// Every call of node-postgres's Client.query is one round trip (a Prisma transaction's BEGIN and
// COMMIT included; a statement list sent as one string is one). pg-boss shares each instance's pool:
// its statements are counted apart, and those that touched no row (an idle worker's fetch, which
// pg-boss sends every pollingInterval) are idle polling, not the run's cost.
// `npm run bench -- round-trips` prints the counts and writes bench/results/<date>-round-trips.md;
// tests/integration/platform/round-trips.postgres.test.ts holds the counts to a ceiling.
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { openDatabase, type Database } from "@/server/shared/db";
import { createPlatformApp } from "@/server/platform/app";
import type { PlatformRole } from "@/server/platform/context";
import { createPlatformDeps } from "@/server/platform/deps";
import { createSimModel } from "@/server/platform/models/sim";
import type { PlatformConfig } from "@/server/platform/platform-config";
import { createLimiters } from "@/server/platform/middleware/rate-limit";
import { addBalanceEntry } from "@/server/platform/services/billing/billing";
import { recordingMailer } from "@/server/platform/services/messaging/mailer";

export type Role = "web" | "worker";
type InstanceRole = Role | "all";

interface Call {
  /** The instance whose pool sent it (its connections' application_name). */
  role: string;
  sql: string;
  /** Rows returned or changed; null until the answer came (or when it failed). */
  rows: number | null;
}

/** One role's part of a run. */
export interface RoleCount {
  /** The app's own round trips (pg-boss's left out). */
  roundTrips: number;
  /** The app's statements, normalised, with how many times each was sent. */
  statements: [string, number][];
  /** pg-boss's round trips that touched a row: the run's jobs (enqueued, fetched, completed). */
  queue: number;
  queueStatements: [string, number][];
  /** pg-boss's round trips that touched nothing meanwhile: idle polling, not the run's cost. */
  idleQueue: number;
  /** The app's statements in the order they were sent (the start of each, and the rows it touched). */
  order: string[];
}

export type RunCount = Record<Role, RoleCount>;

export interface RoundTripReport {
  streaming: RunCount;
  nonStreaming: RunCount;
  /** A plan-mode run (stream=false) up to its pause for the plan's approval. */
  paused: RunCount;
  /** A run of an end-user's agent (stream=false, user_id): its events carry the end-user's user_id. */
  endUser: RunCount;
  /** The simple runs on one instance of role all. */
  oneProcess: { streaming: RoleCount; nonStreaming: RoleCount };
  /** pg-boss's statements per role while nothing happens, over `idleSeconds` (when asked for). */
  idle?: { seconds: number; web: number; worker: number };
}

const APP_NAME = { web: "inlay-rt-web", worker: "inlay-rt-worker", all: "inlay-rt-all" } as const;

let recording: Call[] | undefined;
let patched = false;

/** Wraps Client.query once per process; it records only while a measurement is under way. */
function patchClientQuery() {
  if (patched) return;
  patched = true;
  const original = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  const rowsOf = (result: unknown) => {
    const results = (Array.isArray(result) ? result : [result]) as { rowCount?: number | null; rows?: unknown[] }[];
    return results.reduce((sum, one) => sum + (one?.rowCount ?? one?.rows?.length ?? 0), 0);
  };
  (pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (this: pg.Client, ...args: unknown[]) {
    const calls = recording;
    const first = args[0] as string | { text?: string } | undefined;
    const sql = typeof first === "string" ? first : first?.text;
    const role = (this as unknown as { connectionParameters?: { application_name?: string } }).connectionParameters?.application_name ?? "";
    if (!calls || sql === undefined || !role.startsWith("inlay-rt-")) return original.apply(this, args);
    const call: Call = { role, sql, rows: null };
    calls.push(call);
    const last = args.length - 1;
    if (typeof args[last] === "function") {
      const callback = args[last] as (error: unknown, result: unknown) => void;
      args[last] = (error: unknown, result: unknown) => {
        if (!error) call.rows = rowsOf(result);
        callback(error, result);
      };
      return original.apply(this, args);
    }
    const result = original.apply(this, args);
    if (result && typeof (result as Promise<unknown>).then === "function") {
      (result as Promise<unknown>).then(
        (value) => (call.rows = rowsOf(value)),
        () => {},
      );
    }
    return result;
  };
}

/** A statement with its literals and lists folded, so the same statement counts as one. */
export function normaliseSql(sql: string): string {
  return sql
    .replace(/--[^\n]*/g, "")
    .replace(/\s+/g, " ")
    .replace(/'(?:[^']|'')*'/g, "?")
    .replace(/\b\d+\b/g, "?")
    .replace(/\$\d+(?:\s*,\s*\$\d+)+/g, "$n…")
    .trim();
}

const isQueue = (sql: string) => /\bpgboss\./.test(sql);

function tally(sqls: string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const sql of sqls) counts.set(normaliseSql(sql), (counts.get(normaliseSql(sql)) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

function countRole(calls: Call[], role: InstanceRole): RoleCount {
  const mine = calls.filter((call) => call.role === APP_NAME[role]);
  const app = mine.filter((call) => !isQueue(call.sql));
  const queue = mine.filter((call) => isQueue(call.sql) && (call.rows ?? 0) > 0);
  return {
    roundTrips: app.length,
    statements: tally(app.map((call) => call.sql)),
    queue: queue.length,
    queueStatements: tally(queue.map((call) => call.sql)),
    idleQueue: mine.filter((call) => isQueue(call.sql) && (call.rows ?? 0) === 0).length,
    order: app.map((call) => `${normaliseSql(call.sql).slice(0, 100)} (${call.rows ?? "?"} rows)`),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function withAppName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set("application_name", name);
  return parsed.toString();
}

type Kind = "streaming" | "nonStreaming" | "paused" | "endUser";
const END_USER = "round-trips-user";

/**
 * Measures one streamed and one non-streamed run (and a plan-mode run to its pause) on the migrated (or
 * empty: it is migrated) database at `url`, after a warm-up run of each (caches, prepared plans,
 * pg-boss's queues): with a web and a worker instance, then with one instance of role all.
 */
export async function measureRunRoundTrips(url: string, options: { idleSeconds?: number } = {}): Promise<RoundTripReport> {
  const split = await measureOn(url, ["web", "worker"], ["streaming", "nonStreaming", "paused", "endUser"], options);
  const one = await measureOn(url, ["all"], ["streaming", "nonStreaming"]);
  const runCount = (kind: Kind): RunCount => ({ web: split.counts[kind]!.web!, worker: split.counts[kind]!.worker! });
  return {
    streaming: runCount("streaming"),
    nonStreaming: runCount("nonStreaming"),
    paused: runCount("paused"),
    endUser: runCount("endUser"),
    oneProcess: { streaming: one.counts.streaming!.all!, nonStreaming: one.counts.nonStreaming!.all! },
    ...(split.idle ? { idle: split.idle } : {}),
  };
}

async function measureOn(
  url: string,
  roles: InstanceRole[],
  kinds: Kind[],
  options: { idleSeconds?: number } = {},
): Promise<{ counts: Partial<Record<Kind, Partial<Record<InstanceRole, RoleCount>>>>; idle?: { seconds: number; web: number; worker: number } }> {
  patchClientQuery();
  const config: PlatformConfig = {
    keyPrefix: "sk_inlay_",
    publicBaseUrl: "http://127.0.0.1/api/v2",
    secretKey: "round-trips-secret-key",
    rateLimits: { accountPerMinute: 1e9, ipPerMinute: 1e9, signupPerMinute: 1e9, loginPerMinute: 1e9 },
    trustProxy: false,
    models: { provider: "sim", openaiConfigured: false, anthropicConfigured: false },
    // No lease renewal falls inside a measured run (it renews every third of a lease).
    runs: { leaseMs: 10 * 60_000 },
    email: {},
  };
  const databases: Database[] = [];
  const instances: { role: InstanceRole; deps: ReturnType<typeof createPlatformDeps> }[] = [];
  const probe = new pg.Client({ connectionString: url });
  try {
    for (const role of roles) {
      const database = await openDatabase({ url: withAppName(url, APP_NAME[role]) });
      databases.push(database);
      const deps = createPlatformDeps({
        database: async () => database,
        config,
        role: role satisfies PlatformRole,
        limiters: createLimiters({ ...config.rateLimits, store: "memory" }),
        mailer: recordingMailer,
        languageModel: () => createSimModel(),
        // The worker claims when woken (RUN_READY), never on a timer that could fall inside a measurement.
        pollRuns: false,
      });
      await deps.runtime();
      instances.push({ role, deps });
    }
    await probe.connect();
    // The first instance serves the API; the last executes runs (the same one in role all).
    const web = instances[0]!;
    const worker = instances[instances.length - 1]!;
    const app = createPlatformApp(web.deps);
    const call = async (route: string, body: unknown, key?: string) => {
      const response = await app.request(`http://127.0.0.1/api/v2${route}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body: JSON.stringify(body),
      });
      return { status: response.status, text: await response.text(), runId: response.headers.get("x-run-id") };
    };
    const email = `round-trips-${Date.now()}@example.test`;
    const signup = await call("/signup", { email, first_name: "Bench", require_end_user_id: false });
    if (signup.status !== 201) throw new Error(`signup: ${signup.status} ${signup.text}`);
    const key = (JSON.parse(signup.text) as { api_key: string }).api_key;
    // Verified and funded, as a vendor's account in production: no cap or top-up path in the way.
    const account = await databases[0]!.prisma.platformAccount.update({ where: { email }, data: { emailVerifiedAt: new Date() } });
    await addBalanceEntry(databases[0]!.prisma, account.id, { type: "adjustment", amountMicros: 1_000_000_000n, description: "round trips" });
    const agent = await call("/agents", { name: "Round trips", default_permission_mode: "autonomous" }, key);
    if (agent.status !== 201) throw new Error(`agent: ${agent.status} ${agent.text}`);
    const agentId = (JSON.parse(agent.text) as { id: number }).id;
    const endUserAgent = await call("/agents", { name: "Round trips", user_id: END_USER, default_permission_mode: "autonomous" }, key);
    if (endUserAgent.status !== 201) throw new Error(`end-user agent: ${endUserAgent.status} ${endUserAgent.text}`);
    const endUserAgentId = (JSON.parse(endUserAgent.text) as { id: number }).id;
    const workerRuntime = await worker.deps.runtime();

    const oneRun = async (kind: Kind): Promise<void> => {
      const stream = kind === "streaming";
      const body =
        kind === "paused"
          ? { teammate_id: agentId, message: 'Work it out\n::tool calculator {"expression":"6*7"}', permission_mode: "plan", stream }
          : kind === "endUser"
            ? { teammate_id: endUserAgentId, user_id: END_USER, message: "hello there", stream }
            : { teammate_id: agentId, message: "hello there", stream };
      const ends = kind === "paused" ? "awaiting_approval" : "completed";
      const created = await call("/runs", body, key);
      if (created.status !== 200 && created.status !== 201 && created.status !== 202) {
        throw new Error(`POST /runs: ${created.status} ${created.text}`);
      }
      let runId: number;
      if (stream) {
        // The stream was read to its end (the done frame): the run's id is in a header.
        if (!created.runId || !created.text.includes('"type":"done"')) throw new Error(`the stream did not end with done: ${created.text.slice(-300)}`);
        runId = Number(created.runId);
      } else {
        runId = (JSON.parse(created.text) as { id: number }).id;
      }
      // Ended, and its pass over (settlement and lease release come after the status).
      for (;;) {
        const { rows } = await probe.query<{ status: string }>("SELECT status FROM platform_runs WHERE id = $1", [runId]);
        if (rows[0]?.status === ends) break;
        if (rows[0] && rows[0].status !== "queued" && rows[0].status !== "running") throw new Error(`run ${runId} ended ${rows[0].status}`);
        await sleep(10);
      }
      await workerRuntime.worker!.idle();
      // What either instance sends after (webhook outbox, wake-ups' readers) lands in this run's count.
      await sleep(300);
      await workerRuntime.worker!.idle();
    };
    // Jobs due at start (schedule fires of the instances' registrations) run before anything is
    // counted: until a whole poll of pg-boss (2 s) goes by with nothing sent but idle fetches.
    for (let tries = 0; ; tries++) {
      const calls: Call[] = [];
      recording = calls;
      await sleep(2_500);
      recording = undefined;
      if (calls.every((call) => isQueue(call.sql) && call.rows === 0)) break;
      if (tries === 10) throw new Error("the instances did not go quiet after their start");
    }
    // The queue's sweeps (every minute) run on the same pools and may fall inside a counted run: a run
    // is counted three times and the smallest count kept. Background work only adds statements, and a
    // statement the run itself sends is in every count.
    const measure = async (kind: Kind): Promise<Partial<Record<InstanceRole, RoleCount>>> => {
      await oneRun(kind);
      let best: Partial<Record<InstanceRole, RoleCount>> | undefined;
      const total = (run: Partial<Record<InstanceRole, RoleCount>>) => Object.values(run).reduce((sum, role) => sum + role.roundTrips, 0);
      for (let attempt = 0; attempt < 3; attempt++) {
        const calls: Call[] = [];
        recording = calls;
        try {
          await oneRun(kind);
        } finally {
          recording = undefined;
        }
        const count = Object.fromEntries(roles.map((role) => [role, countRole(calls, role)]));
        if (!best || total(count) < total(best)) best = count;
      }
      return best!;
    };
    const counts: Partial<Record<Kind, Partial<Record<InstanceRole, RoleCount>>>> = {};
    for (const kind of kinds) counts[kind] = await measure(kind);
    if (!options.idleSeconds) return { counts };
    const calls: Call[] = [];
    recording = calls;
    await sleep(options.idleSeconds * 1000);
    recording = undefined;
    const idleOf = (role: Role) => calls.filter((call) => call.role === APP_NAME[role] && isQueue(call.sql)).length;
    return { counts, idle: { seconds: options.idleSeconds, web: idleOf("web"), worker: idleOf("worker") } };
  } finally {
    recording = undefined;
    await probe.end().catch(() => {});
    for (const { deps } of instances.reverse()) await deps.close();
    for (const database of databases) await database.close();
  }
}

/** The report as markdown: per-role counts, then each role's statements. */
export function formatReport(report: RoundTripReport): string {
  const lines: string[] = [
    "| run | web | worker | total | pg-boss (run's jobs) | pg-boss idle polling meanwhile |",
    "|---|---|---|---|---|---|",
  ];
  const runs = [
    ["stream=true", report.streaming],
    ["stream=false", report.nonStreaming],
    ["plan mode, to its pause", report.paused],
    ["an end-user's run (user_id), stream=false", report.endUser],
  ] as const;
  for (const [name, run] of runs) {
    lines.push(
      `| ${name} | ${run.web.roundTrips} | ${run.worker.roundTrips} | ${run.web.roundTrips + run.worker.roundTrips} | ${run.web.queue + run.worker.queue} | ${run.web.idleQueue + run.worker.idleQueue} |`,
    );
  }
  const one = report.oneProcess;
  lines.push(
    "",
    "One instance of role all (its worker leases each run as it is admitted: no claim):",
    "",
    "| run | round trips |",
    "|---|---|",
    `| stream=true | ${one.streaming.roundTrips} |`,
    `| stream=false | ${one.nonStreaming.roundTrips} |`,
  );
  if (report.idle) {
    lines.push("", `Idle, over ${report.idle.seconds} s: pg-boss sent ${report.idle.web} statements from the web instance, ${report.idle.worker} from the worker.`);
  }
  lines.push("", "The worker's statements of the stream=false run, in the order sent:", "");
  report.nonStreaming.worker.order.forEach((statement, index) => lines.push(`${index + 1}. \`${statement}\``));
  const listed = (title: string, count: RoleCount) => {
    lines.push("", `### ${title}: ${count.roundTrips} round trips`, "");
    for (const [sql, times] of count.statements) lines.push(`- ${times}× \`${sql.slice(0, 220)}${sql.length > 220 ? "…" : ""}\``);
    for (const [sql, times] of count.queueStatements) lines.push(`- (pg-boss) ${times}× \`${sql.slice(0, 160)}…\``);
  };
  for (const [name, run] of runs) for (const role of ["web", "worker"] as const) listed(`${name}, ${role}`, run[role]);
  listed("stream=true, one instance of role all", one.streaming);
  listed("stream=false, one instance of role all", one.nonStreaming);
  return lines.join("\n");
}

/** `npm run bench -- round-trips`: on a database made for it (bench/runs.ts's withPostgresDatabase). */
export async function roundTrips(url: string): Promise<void> {
  const report = await measureRunRoundTrips(url, { idleSeconds: 60 });
  const table = formatReport(report);
  console.log(`\nround trips to PostgreSQL of one run (sim model): a simple one, streamed and not, and one in plan mode to its pause, per role\n\n${table}`);
  const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  const date = new Date().toISOString().slice(0, 10);
  const file = path.join(import.meta.dirname, "results", `${date}-round-trips.md`);
  const text = [
    `# Round trips of one run (${date})`,
    "",
    `Commit ${commit}. \`npm run bench -- round-trips\` (PostgreSQL on BENCH_POSTGRES_SERVER, a database made`,
    "for it): one web and one worker instance in one process, each on its own pool; one warm-up run, then",
    "one run counted. A round trip is one call of node-postgres's Client.query (BEGIN and COMMIT count).",
    "pg-boss's statements are apart: those that touched a row are the run's jobs, the rest idle polling.",
    "",
    table,
    "",
  ].join("\n");
  await writeFile(file, text);
  console.log(`\nwritten to ${path.relative(process.cwd(), file)}`);
}
