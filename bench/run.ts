// `npm run bench`: every benchmark reports a ratio against a baseline measured in the same run, since
// the machine is shared and absolute numbers drift. Add a benchmark by adding an entry to `suites`.
import { Bench } from "tinybench";
import { httpAgents } from "./http-agents";
import { platformOverhead } from "./platform-overhead";

export interface Suite {
  name: string;
  /** What the ratio should stay under, when the work sets a target; reported, never enforced by tests. */
  target?: number;
  baseline: { name: string; fn: () => Promise<unknown> };
  subject: { name: string; fn: () => Promise<unknown> };
  setup?: () => Promise<void>;
  teardown?: () => Promise<void>;
}

const suites: Suite[] = [platformOverhead];

for (const suite of suites) {
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

await httpAgents();
