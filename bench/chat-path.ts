// `npm run bench -- chat-burst [--streams 50,200] [--rounds 2]` and `chat-held [--streams 200]` (#51): the path
// end-users take, through a production build of the app (`next start`, bench/app-server.ts): a chat turn
// is POST /api/chat with an embed session's token (a vendor's backend minted it with the tenant's embed
// secret) or a signed-in member's cookie, the framework's session, tenancy, admission and ledger, the
// platform client, the platform, and the bridge's UI message stream. Beside it, in the same run and the
// same process: (a) the platform's own SSE (POST /api/v2/runs, stream: true, for the same answer) and
// (b) the floor, a plain Next.js + AI SDK route (app/api/bench-floor: streamText on the same sim model,
// toUIMessageStreamResponse, nothing persisted), and (c) the bridge floor, the chat bridge over the same
// platform with none of the framework (app/api/bench-floor/bridge: the caller's platform key, no session,
// tenancy, admission or ledger), which tells the framework's own cost from the platform's and the bridge's.
// `--platform separate` puts the platform in its own process (compiled, PostgreSQL) and the app on
// PLATFORM_BASE_URL; BENCH_DATABASE=postgres runs the app (and its embedded platform) on PostgreSQL
// instead of PGlite. Reported: first token p50/p99, frame delay, CPU per turn of the app process (and
// of the separate platform's), RSS and live heap per held stream, every stream checked whole (every
// word, once, in order), and the goals of #51 as ratios of this run.
import http from "node:http";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { setTimeout as delay } from "node:timers/promises";
import { cpuSeconds, rssMb } from "./platform-load";
import { flagValue, streamCounts } from "./relay";
import { median, percentile, withPostgresDatabase } from "./runs";
import {
  AGENT,
  EMBED_ORIGIN,
  embedToken,
  liveMemory,
  ledgerFigures,
  pgliteDir,
  platformAccount,
  prepareTenant,
  startApp,
  startPlatform,
  stopChild,
  verifyPlatformAccount,
  type AppServer,
} from "./app-server";

const BURST_MESSAGE = "::words 20";
const HELD_DELAY_MS = 100;
const HELD_WORDS = 30;
const MEMORY_DELAY_MS = 500;
const NATO = [
  "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett", "kilo", "lima",
  "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey",
  "xray", "yankee", "zulu",
];
/** The sim model's answer to `::words n` (docs/sim-model.md). */
const answer = (words: number) => Array.from({ length: words }, (_, index) => NATO[index % NATO.length]).join(" ");

// eslint-disable-next-line no-restricted-properties -- benchmark switch, not app configuration
const onPostgres = process.env.BENCH_DATABASE === "postgres";
const separate = (() => {
  const value = flagValue("platform") ?? "embedded";
  if (value !== "embedded" && value !== "separate") throw new Error(`--platform: embedded or separate, got "${value}"`);
  return value === "separate";
})();

const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

interface Turn {
  /** ms from sending the request to the first words. */
  firstToken: number;
  /** performance.now() at each frame that carried words. */
  deltas: number[];
  text: string;
  done: boolean;
}

/** What one SSE data line is: words, the end, or neither. */
type Parse = (data: string) => { text?: string; done?: boolean };

/** The AI SDK UI message stream (the app's /api/chat and the floor route), as useChat reads it. */
const uiMessageStream: Parse = (data) => {
  if (data === "[DONE]") return { done: true };
  const chunk = JSON.parse(data) as { type: string; delta?: string; errorText?: string };
  if (chunk.type === "error") throw new Error(`error chunk: ${chunk.errorText}`);
  return chunk.type === "text-delta" ? { text: chunk.delta } : {};
};

/** The platform's run SSE. */
const runStream: Parse = (data) => {
  const frame = JSON.parse(data) as { type: string; delta?: { text?: string } };
  return frame.type === "content_block_delta" ? { text: frame.delta?.text ?? "" } : frame.type === "done" ? { done: true } : {};
};

/** POSTs `body` and reads the stream to its end, timing the frames that carry words. */
function turn(url: string, headers: Record<string, string>, body: object, parse: Parse, onFirst?: () => void): Promise<Turn> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const result: Turn = { firstToken: NaN, deltas: [], text: "", done: false };
    const request = http.request(url, { method: "POST", agent, headers: { "content-type": "application/json", ...headers } }, (response) => {
      if (response.statusCode !== 200) {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => reject(new Error(`POST ${new URL(url).pathname}: ${response.statusCode} ${text.slice(0, 200)}`)));
        return;
      }
      response.setEncoding("utf8");
      let buffer = "";
      response.on("data", (chunk: string) => {
        const now = performance.now();
        buffer += chunk;
        let end: number;
        try {
          while ((end = buffer.indexOf("\n\n")) !== -1) {
            const data = buffer.slice(0, end).split("\n").find((line) => line.startsWith("data: "));
            buffer = buffer.slice(end + 2);
            if (!data) continue;
            const { text, done } = parse(data.slice(6));
            if (text !== undefined) {
              if (result.deltas.length === 0) {
                result.firstToken = now - started;
                onFirst?.();
              }
              result.deltas.push(now);
              result.text += text;
            }
            if (done) result.done = true;
          }
        } catch (error) {
          request.destroy();
          reject(error as Error);
        }
      });
      response.on("end", () => resolve(result));
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(JSON.stringify(body));
  });
}

interface Subject {
  app: AppServer;
  /** The platform's API base (the app's /api/v2, or the separate platform's). */
  platformBase: string;
  platformKey: string;
  platformAgentId: number;
  /** The separate platform's process, when there is one. */
  platformPid?: number;
  tokens: string[];
  memberCookie: string;
  label: string;
}

/** One turn of each path, for user `index` (an embed user of the pool, an end-user id on the platform). */
type Path = (index: number, message: string, onFirst?: () => void) => Promise<Turn>;

function paths(subject: Subject): Record<"floor route" | "platform SSE" | "bridge floor" | "app, embed" | "app, member", Path> {
  let counter = 0;
  const chatBody = (message: string) => ({ agent: AGENT, message: { id: `bench-${++counter}`, role: "user", parts: [{ type: "text", text: message }] } });
  return {
    "floor route": (_index, message, onFirst) => turn(`${subject.app.base}/api/bench-floor`, {}, { message }, uiMessageStream, onFirst),
    "platform SSE": (_index, message, onFirst) =>
      turn(
        `${subject.platformBase}/runs`,
        { authorization: `Bearer ${subject.platformKey}` },
        // Account-level, as the agent is (an end-user's run sees only that end-user's agents).
        { teammate_id: subject.platformAgentId, message, stream: true },
        runStream,
        onFirst,
      ),
    "bridge floor": (_index, message, onFirst) =>
      turn(
        `${subject.app.base}/api/bench-floor/bridge`,
        { authorization: `Bearer ${subject.platformKey}` },
        { ...chatBody(message), agent: String(subject.platformAgentId) },
        uiMessageStream,
        onFirst,
      ),
    "app, embed": (index, message, onFirst) =>
      turn(
        `${subject.app.base}/api/chat`,
        { "x-inlay-embed-token": subject.tokens[index % subject.tokens.length]!, "x-inlay-embed-origin": EMBED_ORIGIN },
        chatBody(message),
        uiMessageStream,
        onFirst,
      ),
    "app, member": (_index, message, onFirst) => turn(`${subject.app.base}/api/chat`, { cookie: subject.memberCookie }, chatBody(message), uiMessageStream, onFirst),
  };
}

interface Burst {
  turns: Turn[];
  failed: number;
  firstFailure?: string;
  /** Turns whose text was not the answer, every word once and in order, or that had no end. */
  broken: number;
  appCpuMs: number;
  /** The app's main thread alone (its event loop: requests, streams; not PGlite's or the worker's thread). */
  mainCpuMs: number;
  /** The app's CPU until the run ledger had settled every turn of the burst (its tail included). */
  settledCpuMs: number;
  /** From the last stream's end until every turn was settled (capped at SETTLE_WAIT_MS). */
  settleTailMs: number;
  /** The run ledger's settle lag (a run's end → its settlement) summed over the burst's turns, and their count. */
  lagSeconds: number;
  lagCount: number;
  platformCpuMs: number;
  elapsedMs: number;
}

const SETTLE_WAIT_MS = 15_000;

async function burst(subject: Subject, path: Path, count: number, message: string, expected: string): Promise<Burst> {
  const ledgerBefore = await ledgerFigures(subject.app.base);
  const appCpu = await cpuSeconds(subject.app.pid);
  const mainCpu = await cpuSeconds(subject.app.pid, true);
  const platformCpu = subject.platformPid ? await cpuSeconds(subject.platformPid) : 0;
  const started = performance.now();
  const results = await Promise.allSettled(Array.from({ length: count }, (_, index) => path(index, message)));
  const elapsedMs = performance.now() - started;
  const turns = results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const rejected = results.find((result) => result.status === "rejected");
  const appCpuMs = ((await cpuSeconds(subject.app.pid)) - appCpu) * 1000;
  const mainCpuMs = ((await cpuSeconds(subject.app.pid, true)) - mainCpu) * 1000;
  // Settlement may come after the streams (the platform's webhook): its CPU is the turns' too.
  const ended = performance.now();
  let ledger = await ledgerFigures(subject.app.base);
  while (ledger.open > 0 && performance.now() - ended < SETTLE_WAIT_MS) {
    await delay(100);
    ledger = await ledgerFigures(subject.app.base);
  }
  const settleTailMs = performance.now() - ended;
  return {
    settleTailMs,
    lagSeconds: ledger.lagSeconds - ledgerBefore.lagSeconds,
    lagCount: ledger.settled - ledgerBefore.settled,
    turns,
    failed: count - turns.length,
    firstFailure: rejected ? String(rejected.reason) : undefined,
    broken: turns.filter((each) => !each.done || each.text !== expected).length,
    appCpuMs,
    mainCpuMs,
    settledCpuMs: ((await cpuSeconds(subject.app.pid)) - appCpu) * 1000,
    platformCpuMs: subject.platformPid ? ((await cpuSeconds(subject.platformPid)) - platformCpu) * 1000 : 0,
    elapsedMs,
  };
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : "n/a");
const load = () => os.loadavg().map((value) => value.toFixed(1)).join(" ");

/** In small groups: `count` calls of `work`, `width` at a time. */
async function inGroups(count: number, width: number, work: (index: number) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < count; start += width) {
    await Promise.all(Array.from({ length: Math.min(width, count - start) }, (_, offset) => work(start + offset)));
  }
}

/**
 * Starts the app (and the separate platform) on fresh databases, sets it up over HTTP, mints `users`
 * embed tokens and warms every path and every user (a user's first turn makes their member row, platform
 * user and agent copy: a cold path of its own, not what these benchmarks measure), then runs `work`.
 */
async function withSubject(users: number, work: (subject: Subject) => Promise<void>): Promise<void> {
  const withDatabase = <T>(work: (url?: string) => Promise<T>) => (onPostgres ? withPostgresDatabase(work) : work());
  const pglite = await pgliteDir();
  try {
    await withDatabase(async (appDatabaseUrl) => {
      const database: Record<string, string> = appDatabaseUrl ? { DATABASE_URL: appDatabaseUrl } : { PGLITE_DATA_DIR: pglite.dir };
      const run = async (remote?: { base: string; pid: number; url: string }) => {
        let frameworkEnv: Record<string, string> = {};
        if (remote) {
          const framework = await platformAccount(remote.base);
          await verifyPlatformAccount(framework.email, { DATABASE_URL: remote.url });
          frameworkEnv = { PLATFORM_BASE_URL: remote.base, PLATFORM_API_KEY: framework.key };
        }
        let app = await startApp({ ...database, ...frameworkEnv });
        try {
          const setup = await prepareTenant(app.base);
          const account = await platformAccount(remote?.base ?? `${app.base}/api/v2`);
          if (remote) await verifyPlatformAccount(account.email, { DATABASE_URL: remote.url });
          else if (appDatabaseUrl) await verifyPlatformAccount(account.email, database);
          else {
            // PGlite is one process's: the app stops while the operator CLI verifies the account.
            await stopChild(app.child);
            await verifyPlatformAccount(account.email, database);
            app = await startApp({ ...database, ...frameworkEnv });
          }
          // After the restart: its port is new.
          const platformBase = remote?.base ?? `${app.base}/api/v2`;
          const tokens: string[] = [];
          await inGroups(users, 20, async (index) => (tokens[index] = await embedToken(app.base, setup.secret, `bench-user-${index}`)));
          const subject: Subject = {
            app,
            platformBase,
            platformKey: account.key,
            platformAgentId: account.agentId,
            platformPid: remote?.pid,
            tokens,
            memberCookie: setup.memberCookie,
            label: `${remote ? "separate platform (compiled, PostgreSQL)" : "embedded platform"}, app on ${appDatabaseUrl ? "PostgreSQL" : "PGlite"}`,
          };
          const each = paths(subject);
          // Every user's first turn, then a few of every path.
          await inGroups(users, 20, (index) => each["app, embed"](index, "::words 1"));
          for (const path of Object.values(each)) await inGroups(20, 10, (index) => path(index, "::words 5"));
          await work(subject);
        } finally {
          await stopChild(app.child);
        }
      };
      if (!separate) return run();
      await withPostgresDatabase(async (platformUrl) => {
        const platform = await startPlatform(platformUrl);
        try {
          await run({ base: platform.base, pid: platform.pid, url: platformUrl });
        } finally {
          await stopChild(platform.child);
        }
      });
    });
  } finally {
    await pglite.remove();
  }
}

const MEMBER_MAX = 50; // the signed-in path is one member's turns: measured at 50 only, the embed path's 200 users at both

/** `--rounds N` (default 2): how many bursts of every path, the order rotated each round. */
function roundCount(): number {
  const value = flagValue("rounds");
  if (value === undefined) return 2;
  const rounds = Number(value);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds: "${value}" is not a count`);
  return rounds;
}

export async function chatBurst(): Promise<void> {
  const counts = streamCounts([50, 200]);
  const roundsEach = roundCount();
  await withSubject(Math.max(...counts), async (subject) => {
    const each = paths(subject);
    const expected = answer(20);
    const rows: Record<string, Record<string, string | number>> = {};
    const goals: string[] = [];
    const loadBefore = load();
    for (const count of counts) {
      const names = (Object.keys(each) as (keyof typeof each)[]).filter((name) => name !== "app, member" || count <= MEMBER_MAX);
      const measured = new Map<string, Burst[]>(names.map((name) => [name, []]));
      // Rounds with the order rotated, so the shared machine's drift and each burst's tail (settlement,
      // ledger webhooks) fall on every path.
      for (let round = 0; round < roundsEach; round++) {
        for (let index = 0; index < names.length; index++) {
          const name = names[(round + index) % names.length]!;
          measured.get(name)!.push(await burst(subject, each[name], count, BURST_MESSAGE, expected));
          await delay(1_000);
        }
      }
      const firstTokens: Record<string, number[]> = {};
      for (const [name, bursts] of measured) {
        const times = bursts.flatMap((each) => each.turns.map((turn) => turn.firstToken));
        firstTokens[name] = times;
        const turns = count * bursts.length;
        const failed = bursts.reduce((sum, each) => sum + each.failed, 0);
        const broken = bursts.reduce((sum, each) => sum + each.broken, 0);
        rows[`${count} at once, ${name}`] = {
          "first token p50": ms(percentile(times, 50)),
          "first token p99": ms(percentile(times, 99)),
          "last stream ended": ms(Math.max(...bursts.map((each) => each.elapsedMs))),
          "app CPU ms/turn": (bursts.reduce((sum, each) => sum + each.appCpuMs, 0) / turns).toFixed(2),
          "main thread": (bursts.reduce((sum, each) => sum + each.mainCpuMs, 0) / turns).toFixed(2),
          "app CPU ms/turn, settled": (bursts.reduce((sum, each) => sum + each.settledCpuMs, 0) / turns).toFixed(2),
          "all settled after streams, ms": bursts.map((each) => (each.settleTailMs >= SETTLE_WAIT_MS ? `>${SETTLE_WAIT_MS}` : ms(each.settleTailMs))).join(", "),
          "settle lag mean, ms": ms((1000 * bursts.reduce((sum, each) => sum + each.lagSeconds, 0)) / Math.max(1, bursts.reduce((sum, each) => sum + each.lagCount, 0))),
          ...(subject.platformPid ? { "platform CPU ms/turn": (bursts.reduce((sum, each) => sum + each.platformCpuMs, 0) / turns).toFixed(2) } : {}),
          "failed/broken": `${failed}/${broken}`,
        };
        const failure = bursts.find((each) => each.firstFailure)?.firstFailure;
        if (failure) console.log(`${count} at once, ${name}: first failure: ${failure}`);
      }
      if (count === 50) {
        const app50 = percentile(firstTokens["app, embed"]!, 50);
        const floor50 = percentile(firstTokens["floor route"]!, 50);
        const platform50 = percentile(firstTokens["platform SSE"]!, 50);
        const bridge50 = percentile(firstTokens["bridge floor"]!, 50);
        goals.push(`first token p50 at 50 turns (embed): app ${ms(app50)} ms vs floor route ${ms(floor50)} ms + 100 ms: ${app50 <= floor50 + 100 ? "met" : "NOT MET"} (gap ${ms(app50 - floor50)} ms)`);
        goals.push(`first token p50 at 50 turns (embed): app ${ms(app50)} ms vs 1.2 x platform SSE ${ms(platform50)} ms: ${(app50 / platform50).toFixed(2)}x, ${app50 <= 1.2 * platform50 ? "met" : "NOT MET"}`);
        // The floor of any app that embeds this platform behind AI SDK's stream: where it misses a goal,
        // that goal is below these cores for such an app, and app ÷ bridge floor is the framework's own cost.
        goals.push(`  the bridge floor (platform + bridge, no framework) ${ms(bridge50)} ms: floor route + ${ms(bridge50 - floor50)} ms, ${(bridge50 / platform50).toFixed(2)}x the platform SSE; the app ${(app50 / bridge50).toFixed(2)}x the bridge floor`);
        // The goal is judged on the pooled p50s above (every round's turns; the rotation spreads drift
        // over the paths). Each round's own ratios show how far one burst of 50 moves on these cores.
        const roundP50 = new Map([...measured].map(([name, bursts]) => [name, bursts.map((each) => percentile(each.turns.map((turn) => turn.firstToken), 50))]));
        const paired = (of: string, to: string) => roundP50.get(of)!.map((value, round) => value / roundP50.get(to)![round]!);
        const list = (ratios: number[]) => ratios.map((ratio) => ratio.toFixed(2)).join(", ");
        const p50s = (name: string) => roundP50.get(name)!.map(ms).join(", ");
        goals.push(`  p50 per round: platform SSE ${p50s("platform SSE")}; bridge floor ${p50s("bridge floor")}; app ${p50s("app, embed")}`);
        const appToSse = paired("app, embed", "platform SSE");
        const bridgeToSse = paired("bridge floor", "platform SSE");
        const appToBridge = paired("app, embed", "bridge floor");
        goals.push(
          `  per round: app ÷ platform SSE ${list(appToSse)}, median ${median(appToSse).toFixed(2)}x; ` +
            `bridge floor ÷ SSE ${list(bridgeToSse)}, median ${median(bridgeToSse).toFixed(2)}x; app ÷ bridge floor ${list(appToBridge)}, median ${median(appToBridge).toFixed(2)}x`,
        );
      }
    }
    const appRows = Object.entries(rows).filter(([name]) => name.includes("app,"));
    const lost = appRows.reduce((sum, [, row]) => sum + String(row["failed/broken"]).split("/").map(Number).reduce((a, b) => a + b, 0), 0);
    goals.push(`chat streams lost or repeated (failed or not exactly the answer): ${lost}: ${lost === 0 ? "met" : "NOT MET"}`);
    console.log(`\nchat-burst: chat turns started at once, "${BURST_MESSAGE}" (${subject.label}); ms; ${roundsEach} rounds each`);
    console.log(`load average before ${loadBefore}, after ${load()} (${os.cpus().length} cores), node ${process.version}`);
    console.table(rows);
    for (const line of goals) console.log(line);
  });
}

interface Held {
  lateness: number[];
  firstTokens: number[];
  complete: number;
  failed: number;
  firstFailure?: string;
  appCpuMs: number;
}

export async function chatHeld(): Promise<void> {
  const [streams] = streamCounts([200]) as [number];
  await withSubject(streams, async (subject) => {
    const each = paths(subject);
    const names = ["floor route", "platform SSE", "bridge floor", "app, embed"] as const;
    const loadBefore = load();
    const message = `::delay ${HELD_DELAY_MS}\n::words ${HELD_WORDS}`;
    const expected = answer(HELD_WORDS);
    // Frame delay: how late word i arrives against the first word's arrival + i × the pace.
    const held: Record<string, Held> = {};
    for (const name of names) {
      const measured = await burst(subject, each[name], streams, message, expected);
      held[name] = {
        lateness: measured.turns.flatMap((turn) => turn.deltas.map((at, index) => at - (turn.deltas[0]! + index * HELD_DELAY_MS))),
        firstTokens: measured.turns.map((turn) => turn.firstToken),
        complete: measured.turns.length - measured.broken,
        failed: measured.failed,
        firstFailure: measured.firstFailure,
        appCpuMs: measured.appCpuMs,
      };
      await delay(2_000);
    }
    // Memory: the live heap (after a full GC) and RSS with `streams` held open, against the same process
    // idle just before; a slower pace so every stream is still open when they are read.
    const memory: Record<string, { heapKb: number; rssKb: number; idleHeapMb: number; idleRssMb: number; isolates: number }> = {};
    for (const name of names) {
      const idle = await liveMemory(subject.app.inspector);
      const idleRss = await rssMb(subject.app.pid);
      let started = 0;
      let allStarted: () => void = () => {};
      const opened = new Promise<void>((resolve) => (allStarted = resolve));
      const holding = Promise.allSettled(
        Array.from({ length: streams }, (_, index) => each[name](index, `::delay ${MEMORY_DELAY_MS}\n::words ${HELD_WORDS}`, () => ++started === streams && allStarted())),
      );
      await Promise.race([opened, delay(30_000)]);
      await delay(2_000);
      const during = await liveMemory(subject.app.inspector);
      const duringRss = await rssMb(subject.app.pid);
      memory[name] = {
        heapKb: (during.heapUsed - idle.heapUsed) / streams / 1024,
        rssKb: ((duringRss - idleRss) * 1024) / streams,
        idleHeapMb: idle.heapUsed / 2 ** 20,
        idleRssMb: idleRss,
        isolates: during.isolates,
      };
      if (started < streams) console.log(`${name}: only ${started} of ${streams} streams had started when memory was read`);
      await holding;
      await delay(2_000);
    }
    const spread = (values: number[]) => `${ms(percentile(values, 50))} / ${ms(percentile(values, 99))}`;
    console.log(`\nchat-held: ${streams} chat streams held at once, "::delay ${HELD_DELAY_MS}" x ${HELD_WORDS} words (${subject.label})`);
    console.log(`load average before ${loadBefore}, after ${load()} (${os.cpus().length} cores), node ${process.version}`);
    console.table(
      Object.fromEntries(
        names.map((name) => [
          name,
          {
            "frame delay p50 / p99 ms": spread(held[name]!.lateness),
            "first token p50 / p99 ms": spread(held[name]!.firstTokens),
            "app CPU ms/stream": (held[name]!.appCpuMs / streams).toFixed(2),
            "complete/failed": `${held[name]!.complete}/${held[name]!.failed}`,
            // Every isolate's: the main thread's and a worker thread's (the platform's, on PostgreSQL).
            "live heap KB/stream": `${memory[name]!.heapKb.toFixed(1)}${memory[name]!.isolates > 1 ? ` (${memory[name]!.isolates} threads)` : ""}`,
            "RSS KB/stream": memory[name]!.rssKb.toFixed(1),
            "idle heap / RSS MB": `${memory[name]!.idleHeapMb.toFixed(0)} / ${memory[name]!.idleRssMb.toFixed(0)}`,
          },
        ]),
      ),
    );
    for (const name of names) if (held[name]!.firstFailure) console.log(`${name}: first failure: ${held[name]!.firstFailure}`);
    const app99 = percentile(held["app, embed"]!.lateness, 99);
    const platform99 = percentile(held["platform SSE"]!.lateness, 99);
    const floor99 = percentile(held["floor route"]!.lateness, 99);
    const bridge99 = percentile(held["bridge floor"]!.lateness, 99);
    console.log(`frame delay p99 (${streams} held): app ${ms(app99)} ms vs 1.5 x platform SSE ${ms(platform99)} ms (floor route ${ms(floor99)} ms, bridge floor ${ms(bridge99)} ms): ${(app99 / platform99).toFixed(2)}x, ${app99 <= 1.5 * platform99 ? "met" : "NOT MET"}`);
    const heap = memory["app, embed"]!.heapKb;
    console.log(`live heap per held chat stream: ${heap.toFixed(1)} KB (goal <= 64 KB; the platform's own SSE ${memory["platform SSE"]!.heapKb.toFixed(1)} KB, the floor route's ${memory["floor route"]!.heapKb.toFixed(1)} KB, the bridge floor's ${memory["bridge floor"]!.heapKb.toFixed(1)} KB): ${heap <= 64 ? "met" : "NOT MET"}`);
    const app = held["app, embed"]!;
    console.log(`chat streams lost or repeated: ${streams - app.complete} of ${streams}: ${app.complete === streams && app.failed === 0 ? "met" : "NOT MET"}`);
  });
}
