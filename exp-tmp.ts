import { createScriptSandbox } from "./server/platform/tool-servers/script-sandbox";
const sb = createScriptSandbox({ poolSize: 2, timeoutMs: 40, interruptGraceMs: 5000, outbound: { allowLoopback: true, allowHttp: true } });
let escapes = 0;
const results = new Map<string, number>();
for (let i = 0; i < 300; i++) {
  const n = Math.floor(Math.random() * 400000);
  const r = await sb.call({ source: `def tool():\n    s = 0\n    for i in range(${n}):\n        s += i\n    return s`, tool: "tool", args: {}, allowedOrigins: [] });
  const key = r.ok ? "ok" : String((r as any).error);
  results.set(key, (results.get(key) ?? 0) + 1);
}
console.log(results, sb.stats());
await sb.close();
