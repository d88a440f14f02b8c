// Readiness (server/platform/health.ts): what makes a process not ready, each named in the answer.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHealth } from "@/server/platform/health";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;

beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform.close());

const health = () => createHealth({ database: async () => platform.database, runtime: platform.runtime }, "all");

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
