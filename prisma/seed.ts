// Demo data for a fresh installation: created on the first start of an empty database (when
// SEED_DEMO_DATA is on, the default), never again. The README lists these accounts.
import type { PrismaClient } from "@/server/generated/prisma/client";
import { hashPassword } from "@/server/shared/passwords";
import { agentNameKey } from "@inlay/core/schemas/console";

export const DEMO_PASSWORD = "inlay-demo";

// Demo limits (the owner changes them on the Tenants page): null means no limit.
export const demoTenants = [
  {
    slug: "acme",
    name: "Acme",
    limits: {
      runsPerMonth: 1000,
      costPerMonthCents: 50_000,
      concurrentRuns: 5,
      turnsPerMinutePerMember: 20,
      memberRunsPerMonth: 200,
      memberCostPerMonthCents: 10_000,
    },
    members: [
      { email: "admin@acme.test", name: "Ada Admin", role: "admin" },
      { email: "member@acme.test", name: "Max Member", role: "member" },
    ],
    // A workspace agent every member can chat with (each gets their own copy on the platform).
    agents: [{ name: "Acme assistant", instructions: "Answer Acme's staff briefly and politely.", tools: ["memory", "calculator", "AskUserQuestion"] }],
  },
  {
    slug: "globex",
    name: "Globex",
    limits: {
      runsPerMonth: 300,
      costPerMonthCents: 10_000,
      concurrentRuns: 2,
      turnsPerMinutePerMember: 10,
      memberRunsPerMonth: null,
      memberCostPerMonthCents: null,
    },
    members: [{ email: "admin@globex.test", name: "Gus Admin", role: "admin" }],
    agents: [],
  },
] as const;

export const demoOwner = { email: "owner@inlay.test", name: "Olive Owner" } as const;

export interface SeedResult {
  seeded: boolean;
}

// Any constant works; it only has to be the same for every instance of the app (server/shared/migrate.ts has its own).
const SEED_LOCK_KEY = 7_240_002;

export async function seedDemoData(prisma: PrismaClient): Promise<SeedResult> {
  // "Empty" means no user at all: a database someone already uses is never touched.
  if ((await prisma.user.count()) > 0) return { seeded: false };
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  const seeded = await prisma.$transaction(async (tx) => {
    // App processes starting together on an empty database: one seeds, the others wait for its
    // transaction here and then find users (without the lock the second failed on users_email_key).
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${SEED_LOCK_KEY})`;
    if ((await tx.user.count()) > 0) return false;
    await tx.user.create({ data: { email: demoOwner.email, name: demoOwner.name, isOwner: true, passwordHash } });
    for (const tenant of demoTenants) {
      await tx.tenant.create({
        data: {
          slug: tenant.slug,
          name: tenant.name,
          limits: { create: tenant.limits },
          agents: { create: tenant.agents.map((agent) => ({ ...agent, nameKey: agentNameKey(agent.name), tools: [...agent.tools] })) },
          memberships: {
            create: tenant.members.map((member) => ({
              role: member.role,
              user: { create: { email: member.email, name: member.name, passwordHash } },
            })),
          },
        },
      });
    }
    return true;
  });
  return { seeded };
}

/**
 * Development: the demo tenants offer the development demo app (server/framework/demo-app) to their members, so
 * connections can be tried at once. Run at every development start, it only adds a missing row: an
 * admin who turned the app off keeps it off. Never called in production.
 */
export async function offerDemoAppToDemoTenants(prisma: PrismaClient, app: string): Promise<number> {
  const tenants = await prisma.tenant.findMany({ where: { slug: { in: demoTenants.map((tenant) => tenant.slug) } }, select: { id: true } });
  const { count } = await prisma.tenantApp.createMany({ data: tenants.map((tenant) => ({ tenantId: tenant.id, app, enabled: true })), skipDuplicates: true });
  return count;
}
