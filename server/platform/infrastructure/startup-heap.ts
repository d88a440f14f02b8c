// Starting a process allocates far more than it keeps (modules, the API's schemas, Prisma's client), and
// V8 grows the young generation for it: 32 MB of semi-spaces on Node 20 and 22, 64 MB on 24, kept
// resident until its memory reducer runs, which an idle process may never trigger. One collection
// of the "last resort" kind once startup is done gives that back (about 30 MB per process on Node 22
// and 24). Node 20's V8 has no such kind: a forced collection there keeps the young generation and
// delays the reducer, which otherwise gives it back some 16 s after startup, so Node 20 is left to it.
// bench/results/2026-11-29-idle-memory.md.
import v8 from "node:v8";
import vm from "node:vm";

type Collect = (options: { type: "major"; execution: "sync"; flavor: "last-resort" }) => void;

export function compactHeapAfterStartup(): void {
  if (Number(process.versions.node.split(".")[0]) < 22) return;
  let collect = (globalThis as { gc?: Collect }).gc;
  if (!collect) {
    // `gc` exists only in contexts made while --expose-gc is set: one is made to fetch it, and the
    // flag is cleared again so no context or worker thread made later (the script sandbox's) has it.
    v8.setFlagsFromString("--expose-gc");
    try {
      collect = vm.runInNewContext("gc") as Collect;
    } finally {
      v8.setFlagsFromString("--no-expose-gc");
    }
  }
  collect({ type: "major", execution: "sync", flavor: "last-resort" });
}
