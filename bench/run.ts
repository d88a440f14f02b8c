// `npm run bench`: every benchmark reports a ratio against a baseline measured in the same run, since
// the machine is shared and absolute numbers drift. Add a benchmark by adding an entry to `suites` or
// `scripted`. `npm run bench -- NAME…` runs only those (names below); no name runs them all. CI never
// runs benchmarks.
import { Bench } from "tinybench";
import { burstBench } from "./burst";
import { chatBridgeTtft, embedSize } from "./chat";
import { appMemory } from "./app-memory";
import { pgliteTiers } from "./pglite-tiers";
import { chatBurst, chatHeld } from "./chat-path";
import { chatBundle } from "./chat-bundle";
import { chatBundleBrowser } from "./chat-bundle-browser";
import { vendorBundle } from "./vendor-bundle";
import { heldMemory } from "./held-memory";
import { httpAgents } from "./http-agents";
import { peerRuns } from "./peer-runs";
import { platformOverhead } from "./platform-overhead";
import { platformLoad } from "./platform-load";
import { platformStartup } from "./platform-startup";
import { recovery } from "./recovery";
import { relay } from "./relay";
import { roundTrips } from "./round-trips";
import { runsCreation, runsHeldStreams, runsTimeToFirstToken, scaleOut, withPostgresDatabase } from "./runs";

export interface Suite {
  name: string;
  /** What the ratio should stay under, when the work sets a target; reported, never enforced by tests. */
  target?: number;
  baseline: { name: string; fn: () => Promise<unknown> };
  subject: { name: string; fn: () => Promise<unknown> };
  setup?: () => Promise<void>;
  teardown?: () => Promise<void>;
}

const suites: Record<string, Suite> = { overhead: platformOverhead };

// Benchmarks that drive their own load (servers in a child process) and print their own verdicts.
// BENCH_DATABASE=postgres runs http-agents, runs-ttft, runs-held and peers (Inlay's side) on
// PostgreSQL: a database made for the run on BENCH_POSTGRES_SERVER (default the machine's
// 127.0.0.1:5432) and dropped after; PGlite in memory otherwise. runs-create and scale-out are always
// on PostgreSQL. BENCH_ROLES=split (with BENCH_DATABASE=postgres) runs the platform of the run
// benchmarks as one web and one worker process.
// eslint-disable-next-line no-restricted-properties -- benchmark switch, not app configuration
const onPostgres = process.env.BENCH_DATABASE === "postgres";
const maybeOnPostgres = (work: (url?: string) => Promise<void>) => () => (onPostgres ? withPostgresDatabase(work) : work());
const scripted: Record<string, () => Promise<void>> = {
  "http-agents": maybeOnPostgres(httpAgents),
  "runs-ttft": maybeOnPostgres(runsTimeToFirstToken),
  "runs-held": maybeOnPostgres((url) => runsHeldStreams(url)),
  "runs-create": runsCreation,
  "scale-out": () => scaleOut(),
  // Inlay beside LangGraph's API server and Mastra's (installed by hand in bench/peers) and the bare floor.
  peers: maybeOnPostgres(peerRuns),
  "embed-size": embedSize,
  "chat-bundle": chatBundle,
  "chat-bundle-browser": chatBundleBrowser,
  // The vendor app (tests/vendor-app) with @inlay/react, with nothing, with the iframe widget and with
  // @assistant-ui/react or @openai/chatkit-react on the same page: a next build each (about 5 min; 10 with BENCH_BUNDLER=webpack).
  "vendor-bundle": vendorBundle,
  "chat-bridge-ttft": () => chatBridgeTtft(),
  // Through the production build (`npm run build` first): chat turns started at once and chat streams
  // held, beside the platform's own SSE and a plain AI SDK floor route (--streams, --platform separate).
  "chat-burst": chatBurst,
  "chat-held": chatHeld,
  // Through the production build: an idle `npm start`'s memory on PGlite and on PostgreSQL, and what a full GC gives back.
  "app-memory": appMemory,
  // PGlite's statements and memory with V8's optimising wasm tier and with --liftoff-only, in fresh processes.
  "pglite-tiers": pgliteTiers,
  // Always on PostgreSQL: a killed process's runs taken over by a new one (bench/recovery.ts).
  recovery,
  // Always on PostgreSQL: each role's start and idle memory, from the sources (tsx) and compiled.
  "platform-startup": platformStartup,
  // Always on PostgreSQL: 1 web + 1 worker's memory and CPU under 200 streams, tsx and compiled.
  "platform-load": platformLoad,
  // Always on PostgreSQL: the round trips of one run, per role (bench/round-trips.ts).
  "round-trips": () => withPostgresDatabase(roundTrips),
  // Always on PostgreSQL: 1 web + 1 worker relaying 100, 500 and 1,000 paced conversations beside a floor (--streams N,M to choose).
  relay,
  // Always on PostgreSQL: a burst of 50 and 200 new streams, where a run waits before its first token, with 1 web + 1 worker and
  // then one process (role all) (--streams N,M to choose; --roles split or all for one of them).
  burst: burstBench,
  // Always on PostgreSQL: a compiled web process's heap and RSS per held stream, by heap snapshot (--streams N).
  "held-memory": heldMemory,
};

const known = [...Object.keys(suites), ...Object.keys(scripted)];
// Names; a benchmark's own options (--streams N) are left to it.
const asked = process.argv.slice(2).filter((arg, index, args) => !arg.startsWith("--") && !(args[index - 1]?.startsWith("--") && !args[index - 1]!.includes("=")));
const unknown = asked.filter((name) => !known.includes(name));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(", ")}; choose from: ${known.join(", ")}`);
  process.exit(2);
}
const selected = (name: string) => asked.length === 0 || asked.includes(name);

for (const [name, suite] of Object.entries(suites)) {
  if (!selected(name)) continue;
  await suite.setup?.();
  const bench = new Bench({ time: 1_000, warmupTime: 200 });
  bench.add(suite.baseline.name, suite.baseline.fn).add(suite.subject.name, suite.subject.fn);
  await bench.run();
  await suite.teardown?.();
  const [base, subject] = bench.tasks.map((task) => task.result);
  const baseMean = base && "latency" in base ? base.latency.mean : NaN;
  const subjectMean = subject && "latency" in subject ? subject.latency.mean : NaN;
  const ratio = subjectMean / baseMean;
  console.log(`\n${suite.name}`);
  console.table(
    bench.tasks.map((task) => ({
      task: task.name,
      "mean (µs)": task.result && "latency" in task.result ? (task.result.latency.mean * 1000).toFixed(1) : "n/a",
    })),
  );
  const verdict =
    suite.target === undefined ? "" : ` (target under ${suite.target}x: ${ratio < suite.target ? "ok" : "OVER TARGET"})`;
  console.log(`ratio ${ratio.toFixed(2)}x the baseline${verdict}`);
}

for (const [name, run] of Object.entries(scripted)) if (selected(name)) await run();
