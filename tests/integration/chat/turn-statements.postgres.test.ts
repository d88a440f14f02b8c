// The statements the framework sends to PostgreSQL for one chat turn before it answers (the embed
// token's checks, the member, the agent's copy, the admission, the member's tool copies, the offered
// apps; the ledger's start is written while the answer streams), held to a ceiling: each is a round
// trip every chat turn pays before its first token, so a change that adds one fails here
// (bench/results/2026-12-06-chat-path.md). The platform's own statements (its tables, pg-boss) are
// counted by round-trips.postgres.test.ts.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProcessDatabase } from "@/server/shared/db";
import { EMBED_ORIGIN_HEADER, EMBED_TOKEN_HEADER, setPlatformClientBinding } from "@/server/framework/chat/framework-context";
import { chatHandlers } from "@/server/framework/chat/handlers";
import { setAllowedOrigins } from "@/server/framework/embed/origins";
import { signEmbedToken } from "@/server/framework/embed/tokens";
import { lazyPlatformClient } from "@/server/framework/tenancy/platform-users";
import { startFramework, type FrameworkHarness } from "../../helpers/framework";

// Lower it when you cut one.
const CEILING = 4;
/** A statement on the framework's tables (the platform's are platform_*, pg-boss's pgboss.*). */
const FRAMEWORK_TABLE = /"?\b(users|memberships|member_caps|member_usage|member_turn_windows|tenants|tenant_[a-z_]+|run_admissions|framework_[a-z_]+)\b"?/;

let fw: FrameworkHarness;
let headers: Record<string, string>;
const ORIGIN = "http://127.0.0.1:4000";
let recording: string[] | undefined;
const original = pg.Client.prototype.query;

beforeAll(async () => {
  (pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text?: string } | undefined;
    const sql = typeof first === "string" ? first : first?.text;
    if (recording && sql !== undefined) recording.push(sql.replace(/\s+/g, " ").trim());
    return (original as (...args: unknown[]) => unknown).apply(this, args);
  };
  fw = await startFramework();
  setProcessDatabase(fw.database);
  setPlatformClientBinding((prisma, member) => lazyPlatformClient(prisma, () => fw.connect(), member.tenant, member.userId)());
  const acme = await fw.database.prisma.tenant.findUniqueOrThrow({ where: { slug: "acme" } });
  await setAllowedOrigins(fw.database.prisma, acme.id, [ORIGIN]);
  const member = await fw.database.prisma.user.findUniqueOrThrow({ where: { email: "member@acme.test" } });
  const { token } = await signEmbedToken({ tenantId: acme.id, userId: member.id, origin: ORIGIN });
  headers = { "content-type": "application/json", [EMBED_TOKEN_HEADER]: token, [EMBED_ORIGIN_HEADER]: ORIGIN };
}, 120_000);
afterAll(async () => {
  // Test files share a worker's modules: the driver goes back as it was.
  pg.Client.prototype.query = original;
  await fw?.close();
});

let counter = 0;
async function turn(): Promise<Response> {
  const body = { agent: "Acme assistant", message: { id: `m${++counter}`, role: "user", parts: [{ type: "text", text: "::words 3" }] } };
  const response = await chatHandlers.send(new Request("http://127.0.0.1/api/chat", { method: "POST", headers, body: JSON.stringify(body) }));
  expect(response.status).toBe(200);
  return response;
}

describe("a chat turn's statements before its answer", () => {
  it(`are at most ${CEILING} on the framework's tables, none in a transaction, once the member's first turn made their copies`, async () => {
    // The first turn makes the member's platform user and agent copy; the second is the usual one.
    await (await turn()).text();
    recording = [];
    const response = await turn();
    const beforeAnswer = [...recording];
    await response.text();
    const whole = recording;
    recording = undefined;
    const framework = beforeAnswer.filter((sql) => FRAMEWORK_TABLE.test(sql) && !sql.includes("pgboss."));
    const listed = framework.map((sql, index) => `${index + 1}. ${sql.slice(0, 160)}`).join("\n");
    expect(framework.length, listed).toBeLessThanOrEqual(CEILING);
    // The counter sees the turn before its answer: its admission.
    expect(framework.some((sql) => /INSERT INTO "?(public"?\."?)?run_admissions/.test(sql))).toBe(true);
    // The ledger's start (the turn's run) is written while the answer streams.
    expect(whole.some((sql) => sql.startsWith('UPDATE "public"."run_admissions" SET "platform_run_id"'))).toBe(true);
    // No transaction held open across round trips: on PGlite's one connection every other turn would wait for it.
    expect(whole.filter((sql) => /^(BEGIN|START TRANSACTION)\b/i.test(sql))).toEqual([]);
  });
});
