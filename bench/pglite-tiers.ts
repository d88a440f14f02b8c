// `npm run bench -- pglite-tiers` (#51, the default install's memory): what V8's optimising tier for
// WebAssembly costs and gives. The same work in fresh processes, with V8's defaults and with
// `--liftoff-only` (baseline compiler only), alternately: PGlite's CPU for 8,000 small statements and
// for 200 heavy queries and the process's RSS after them (pglite-tiers-child.mjs), and the script
// sandbox's start and 20 CPU-bound Python calls (sandbox-tiers-child.ts): the flag is process-wide. The
// optimised code of pglite.wasm is two resident mappings of about 33 MB each in an idle `next start`
// (bench/app-memory.ts; BENCH_NODE_FLAGS passes flags to that app).
import { execFileSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { median } from "./runs";

const ROUNDS = 3;
const pgliteChild = path.join(import.meta.dirname, "pglite-tiers-child.mjs");
const sandboxChild = path.join(import.meta.dirname, "sandbox-tiers-child.ts");

interface Sample {
  small: number;
  heavy: number;
  rssMb: number;
  sandboxStart: number;
  sandboxCalls: number;
}

const lastLine = (args: string[]) => JSON.parse(execFileSync(process.execPath, args, { encoding: "utf8" }).trim().split("\n").at(-1)!) as Record<string, number>;

function measure(flags: string[]): Sample {
  const pglite = lastLine([...flags, pgliteChild]);
  const sandbox = lastLine([...flags, "--import", "tsx", sandboxChild]);
  return { small: pglite.small!, heavy: pglite.heavy!, rssMb: pglite.rssMb!, sandboxStart: sandbox.start!, sandboxCalls: sandbox.calls! };
}

export async function pgliteTiers(): Promise<void> {
  const runs: Record<string, Sample[]> = { "V8 defaults": [], "--liftoff-only": [] };
  for (let round = 0; round < ROUNDS; round++) {
    runs["V8 defaults"]!.push(measure([]));
    runs["--liftoff-only"]!.push(measure(["--liftoff-only"]));
  }
  const rows = Object.fromEntries(
    Object.entries(runs).map(([name, samples]) => [
      name,
      {
        "small statements CPU ms": median(samples.map((sample) => sample.small)).toFixed(0),
        "heavy queries CPU ms": median(samples.map((sample) => sample.heavy)).toFixed(0),
        "RSS MB": median(samples.map((sample) => sample.rssMb)).toFixed(0),
        "sandbox start CPU ms": median(samples.map((sample) => sample.sandboxStart)).toFixed(0),
        "20 Python calls CPU ms": median(samples.map((sample) => sample.sandboxCalls)).toFixed(0),
      },
    ]),
  );
  const [defaults, liftoff] = [runs["V8 defaults"]!, runs["--liftoff-only"]!];
  const ratio = (key: keyof Sample) => (median(liftoff.map((sample) => sample[key])) / median(defaults.map((sample) => sample[key]))).toFixed(2);
  console.log(`\npglite-tiers: medians of ${ROUNDS} alternate runs; node ${process.version}; load average ${os.loadavg().map((load) => load.toFixed(1)).join(" ")}`);
  console.table(rows);
  console.log(
    `--liftoff-only against the defaults: small statements ${ratio("small")}x CPU, heavy queries ${ratio("heavy")}x CPU, RSS ${ratio("rssMb")}x; ` +
      `the sandbox's start ${ratio("sandboxStart")}x CPU, its Python calls ${ratio("sandboxCalls")}x CPU`,
  );
}
