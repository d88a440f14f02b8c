// One measurement of bench/pglite-tiers.ts's sandbox row, in a process of its own (V8's wasm flags are
// set at start): the script sandbox (Pyodide, WebAssembly in a worker thread) started, then 20 calls of
// a CPU-bound Python tool; this process's CPU (its worker threads included) for each part; one JSON line.
import { createScriptSandbox } from "@/server/platform/tool-servers/script-sandbox";

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
const SOURCE = `
def tool(n):
    total = 0
    for i in range(n):
        total += (i * i) % 7
    return {"total": total}
`;
let since = process.cpuUsage();
const sandbox = createScriptSandbox({ poolSize: 1, timeoutMs: 60_000, memoryMb: 128, maxQueue: 4, outbound: { timeoutMs: 1_000 } });
const first = await sandbox.call({ source: SOURCE, tool: "tool", args: { n: 10 }, allowedOrigins: [] });
if (!first.ok) throw new Error(`the sandbox failed: ${first.error}`);
const start = cpuMs(since);
since = process.cpuUsage();
for (let i = 0; i < 20; i++) {
  const outcome = await sandbox.call({ source: SOURCE, tool: "tool", args: { n: 200_000 }, allowedOrigins: [] });
  if (!outcome.ok) throw new Error(`the sandbox failed: ${outcome.error}`);
}
const calls = cpuMs(since);
await sandbox.close();
console.log(JSON.stringify({ start, calls }));
