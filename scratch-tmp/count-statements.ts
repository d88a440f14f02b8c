// Scratch: which SQL statements one POST /runs stream=false makes on PostgreSQL.
import pg from "pg";
const log: string[] = [];
let on = false;
const original = pg.Client.prototype.query;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
(pg.Client.prototype as any).query = function (this: unknown, config: any, ...rest: unknown[]) {
  if (on) log.push(String(typeof config === "string" ? config : config?.text ?? config?.name ?? "?").replace(/\s+/g, " ").slice(0, 140));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return (original as any).call(this, config, ...rest);
};
const admin = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5432/postgres" });
await admin.connect();
const name = `inlay_count_${Date.now()}`;
await admin.query(`CREATE DATABASE "${name}"`);
process.env.BENCH_DATABASE_URL = `postgres://postgres@127.0.0.1:5432/${name}`;
const { serve } = await import("@hono/node-server");
const { openDatabase } = await import("@/server/db");
const { createPlatformApp } = await import("@/server/platform/app");
const { platformConfigFromEnv } = await import("@/server/platform/config");
const { createPlatformDeps } = await import("@/server/platform/deps");
const { createSimModel } = await import("@/server/platform/runtime/models/sim");
const { createLimiters } = await import("@/server/platform/middleware/rate-limit");
const { addBalanceEntry } = await import("@/server/platform/services/billing");
const { recordingMailer } = await import("@/server/platform/services/mailer");
const database = await openDatabase({ url: process.env.BENCH_DATABASE_URL });
const deps = createPlatformDeps({
  database: async () => database,
  config: platformConfigFromEnv(),
  limiters: createLimiters({ accountPerMinute: 1e9, ipPerMinute: 1e9, signupPerMinute: 1e9, store: "memory" }),
  mailer: recordingMailer,
  languageModel: () => createSimModel(),
});
const app = createPlatformApp(deps);
await deps.runtime();
const base = "http://x/api/v2";
const call = (path: string, body: unknown, key?: string) =>
  app.fetch(new Request(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) }, body: JSON.stringify(body) }));
const email = `count-${Date.now()}@example.test`;
const signup = (await (await call("/signup", { email, first_name: "C", require_end_user_id: false })).json()) as { api_key: string };
const account = await database.prisma.platformAccount.update({ where: { email }, data: { emailVerifiedAt: new Date() } });
await addBalanceEntry(database.prisma, account.id, { type: "adjustment", amountMicros: 1_000_000_000n, description: "x" });
const agent = (await (await call("/agents", { name: "A", default_permission_mode: "autonomous" }, signup.api_key)).json()) as { id: number };
for (let i = 0; i < 3; i++) await call("/runs", { teammate_id: agent.id, message: "hello", stream: false }, signup.api_key);
await new Promise((r) => setTimeout(r, 1500));
on = true;
const response = await call("/runs", { teammate_id: agent.id, message: "hello", stream: false }, signup.api_key);
console.log("status", response.status, "(response at statement", log.length, ")");
await new Promise((r) => setTimeout(r, 1500));
on = false;
log.forEach((line, i) => console.log(i + 1, line));
void serve;
await deps.close();
await database.close();
await admin.query(`DROP DATABASE "${name}" WITH (FORCE)`);
await admin.end();
process.exit(0);
