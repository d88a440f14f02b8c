import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyCredentials } from "@/server/framework/auth/credentials";
import { listMemberships } from "@/server/framework/tenancy/repository";
import { DEMO_PASSWORD, seedDemoData } from "@/prisma/seed";
import { createTestDatabase, type TestDatabase } from "../../helpers/database";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.dispose());

describe("seedDemoData", () => {
  it("creates the demo tenants, users and owner on an empty database", async () => {
    expect(await seedDemoData(database.prisma)).toEqual({ seeded: true });
    const { prisma } = database;

    const admin = await verifyCredentials(prisma, "admin@acme.test", DEMO_PASSWORD);
    expect(admin).toMatchObject({ email: "admin@acme.test", isOwner: false });
    expect(await listMemberships(prisma, admin!.id)).toEqual([
      { tenant: expect.objectContaining({ slug: "acme", name: "Acme" }), role: "admin" },
    ]);

    const member = await verifyCredentials(prisma, "member@acme.test", DEMO_PASSWORD);
    expect((await listMemberships(prisma, member!.id)).map((m) => [m.tenant.slug, m.role])).toEqual([
      ["acme", "member"],
    ]);

    const globex = await verifyCredentials(prisma, "admin@globex.test", DEMO_PASSWORD);
    expect((await listMemberships(prisma, globex!.id)).map((m) => [m.tenant.slug, m.role])).toEqual([
      ["globex", "admin"],
    ]);

    // The workspace agent asks before it uses a tool: the spec's default permission mode at creation.
    const assistant = await prisma.tenantAgent.findFirstOrThrow({ where: { tenant: { slug: "acme" }, name: "Acme assistant" } });
    expect(assistant.permissionMode).toBe("approval");

    const acmeLimits = await prisma.tenantLimits.findFirstOrThrow({ where: { tenant: { slug: "acme" } } });
    expect(acmeLimits).toMatchObject({ runsPerMonth: 1000, concurrentRuns: 5, memberRunsPerMonth: 200 });

    const owner = await verifyCredentials(prisma, "owner@inlay.test", DEMO_PASSWORD);
    expect(owner?.isOwner).toBe(true);
    expect(await listMemberships(prisma, owner!.id)).toEqual([]);
  });

  it("never runs twice: a database with users is left alone", async () => {
    expect(await seedDemoData(database.prisma)).toEqual({ seeded: false });
    expect(await database.prisma.user.count()).toBe(4);
    expect(await database.prisma.tenant.count()).toBe(2);
  });

  it("seeds once when app processes start together on one empty database, and fails none of them", async () => {
    const fresh = await createTestDatabase();
    try {
      // On PostgreSQL each call has a connection of its own: both find the database empty at first.
      const results = await Promise.all([seedDemoData(fresh.prisma), seedDemoData(fresh.prisma), seedDemoData(fresh.prisma)]);
      expect(results.filter((result) => result.seeded)).toHaveLength(1);
      expect(await fresh.prisma.user.count()).toBe(4);
      expect(await fresh.prisma.tenant.count()).toBe(2);
    } finally {
      await fresh.dispose();
    }
  });
});

describe("verifyCredentials", () => {
  it("refuses a wrong password and an unknown email alike", async () => {
    await expect(verifyCredentials(database.prisma, "admin@acme.test", "wrong-password")).resolves.toBeNull();
    await expect(verifyCredentials(database.prisma, "nobody@acme.test", DEMO_PASSWORD)).resolves.toBeNull();
  });

  it("matches the email without regard to case or surrounding space", async () => {
    await expect(verifyCredentials(database.prisma, "  Admin@ACME.test ", DEMO_PASSWORD)).resolves.toMatchObject({
      email: "admin@acme.test",
    });
  });
});
