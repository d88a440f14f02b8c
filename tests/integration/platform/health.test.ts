// Readiness (server/platform/health.ts): what makes a process not ready, each named in the answer.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHealth } from "@/server/platform/health";
import { QUEUE_STATS_SQL, queueStats } from "@/server/platform/infrastructure/job-queue";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;

beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform.close());

const health = () => createHealth({ database: async () => platform.database, runtime: platform.runtime }, "all");

describe("metrics", () => {
  const scrapeWith = (access: { token?: string; open: boolean }, authorization?: string) =>
    createHealth({ database: async () => platform.database, runtime: platform.runtime }, "all", access).answer(
      new Request("http://platform.test/metrics", authorization ? { headers: { authorization } } : {}),
    );

  it("counts a run from its POST to its end, and answers only where it may", async () => {
    // The registry is the process's (test files share it): what this run adds is compared.
    const read = async () => {
      const text = await (await scrapeWith({ open: true }))!.text();
      return (series: string) => Number(new RegExp(`^${series.replace(/[{}"/.]/g, "\\$&")} (\\S+)$`, "m").exec(text)?.[1] ?? 0);
    };
    const before = await read();
    const account = await platform.signup({ require_end_user_id: false });
    const agent = (await platform.call("/agents", { key: account.key, body: { name: "Measured" } })).body;
    const created = await platform.call("/runs", {
      key: account.key,
      body: { teammate_id: agent.id, message: "::words 5", stream: false, permission_mode: "autonomous" },
    });
    expect(created.status).toBe(200);
    await expect.poll(async () => (await platform.call(`/runs/${created.body.id}`, { key: account.key })).body.status).toBe("completed");

    const answer = (await scrapeWith({ open: true }))!;
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await answer.text();
    const after = await read();
    const added = (series: string) => after(series) - before(series);
    expect(added('inlay_http_request_duration_seconds_count{method="POST",route="/api/v2/runs",status="200"}')).toBe(1);
    expect(added("inlay_runs_admitted_total")).toBe(1);
    expect(added('inlay_runs_claimed_total{how="leased_at_admission"}')).toBe(1);
    expect(added('inlay_runs_ended_total{outcome="completed"}')).toBe(1);
    expect(added("inlay_run_claim_latency_seconds_count")).toBe(1);
    expect(added("inlay_run_first_token_seconds_count")).toBe(1);
    expect(added('inlay_model_tokens_total{provider="inlay",model="inlay/sim",kind="output"}')).toBeGreaterThan(0);
    expect(added('inlay_model_cost_micro_usd_total{provider="inlay",model="inlay/sim"}')).toBeGreaterThan(0);
    expect(after("inlay_sse_streams_open")).toBe(0);
    // The queue's gauges are read when scraped.
    expect(text).toMatch(/^inlay_queue_jobs\{queue="[^"]+",state="[a-z]+"\} \d+$/m);
    expect(text).toMatch(/^inlay_process_resident_memory_bytes \d+/m);

    // A public port without a token: not found; with one, only its bearer.
    expect(await scrapeWith({ open: false })).toBeUndefined();
    const token = "a-metrics-token-of-some-length";
    expect((await scrapeWith({ token, open: false }))!.status).toBe(401);
    expect((await scrapeWith({ token, open: true }, "Bearer wrong-token-of-some-length"))!.status).toBe(401);
    expect((await scrapeWith({ token, open: false }, `Bearer ${token}`))!.status).toBe(200);
  });
});

describe("queue metrics", () => {
  it("read the unfinished jobs through an index, the week of completed jobs left out", async () => {
    await platform.runtime();
    const prisma = platform.database.prisma;
    const [queue] = await prisma.$queryRawUnsafe<{ name: string }[]>("SELECT name FROM pgboss.queue ORDER BY name LIMIT 1");
    await prisma.$executeRawUnsafe("INSERT INTO pgboss.job (name, state, data) VALUES ($1, 'completed', '{}'), ($1, 'failed', '{}')", queue!.name);
    const stats = await queueStats(platform.database);
    expect(stats.some((row) => row.state === "completed")).toBe(false);
    expect(stats).toContainEqual(expect.objectContaining({ name: queue!.name, state: "failed", count: 1 }));
    // Told not to scan a table, the planner reads every partition through the partial index.
    const plan = await prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("SET LOCAL enable_seqscan = off");
      return tx.$queryRawUnsafe<{ "QUERY PLAN": string }[]>(`EXPLAIN ${QUEUE_STATS_SQL}`);
    });
    const text = plan.map((row) => row["QUERY PLAN"]).join("\n");
    expect(text).not.toMatch(/Seq Scan|pkey/);
    expect(text).toMatch(/Index (Only )?Scan (using|on) \S*name_state_start_after_idx/);
  });
});

describe("readiness", () => {
  it("is ready when the database answers, every migration is applied, the runtime started and the worker claims", async () => {
    expect(await health().readiness()).toEqual({
      ready: true,
      role: "all",
      checks: { database: { ok: true }, migrations: { ok: true }, runtime: { ok: true }, worker: { ok: true } },
    });
  });

  it("is not ready, naming it, while a migration this code ships is not applied", async () => {
    const [latest] = await platform.database.prisma.$queryRawUnsafe<{ migration_name: string }[]>(
      `SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name DESC LIMIT 1`,
    );
    await platform.database.prisma.$executeRawUnsafe(`UPDATE "_prisma_migrations" SET rolled_back_at = now() WHERE migration_name = $1`, latest!.migration_name);
    try {
      const answer = await health().answer(new Request("http://platform.test/readyz"));
      expect(answer!.status).toBe(503);
      expect(await answer!.json()).toMatchObject({
        ready: false,
        checks: { database: { ok: true }, migrations: { ok: false, error: `not applied: ${latest!.migration_name}` } },
      });
    } finally {
      await platform.database.prisma.$executeRawUnsafe(`UPDATE "_prisma_migrations" SET rolled_back_at = NULL WHERE migration_name = $1`, latest!.migration_name);
    }
  });

  it("checks only the database and its migrations for a process without a runtime (the app on a remote platform)", async () => {
    const framework = createHealth({ database: async () => platform.database }, "framework");
    expect(await framework.readiness()).toEqual({ ready: true, role: "framework", checks: { database: { ok: true }, migrations: { ok: true } } });
  });

  it("is not ready once its worker was told to stop, and still alive", async () => {
    const { worker } = await platform.runtime();
    await worker!.stop(0);
    const probes = health();
    expect((await probes.readiness()).checks.worker).toEqual({ ok: false, error: "stopping: it claims no more runs" });
    const alive = await probes.answer(new Request("http://platform.test/healthz"));
    expect(alive!.status).toBe(200);
    expect(await probes.answer(new Request("http://platform.test/api/v2/agents"))).toBeUndefined();
  });
});
