// Tenants: creation (with a first admin, or by the owner with an admin invite), the active tenant a
// user works in, and the owner's overview of every tenant with its limits and usage this month.
import { randomBytes } from "node:crypto";
import type { TenantLimitsInput } from "@inlay/core/schemas/tenancy";
import type { Db } from "@/server/shared/db";
import { TenancyError } from "./errors";
import { NO_LIMITS, listTenantLimits, listTenantUsage, type UsageRecord } from "./limits-repository";
import { periodOf } from "./limits";
import {
  addMembership,
  createTenant,
  findUserById,
  listAllTenants,
  listMemberships,
  slugTaken,
  type MembershipRecord,
  type TenantRecord,
  type Tx,
} from "./repository";

function slugify(name: string): string {
  const base = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
  return base.length >= 2 ? base : "workspace";
}

/** A free slug for the name: the name itself, else with a short random suffix. */
export async function freeSlug(prisma: Db | Tx, name: string): Promise<string> {
  const base = slugify(name);
  if (!(await slugTaken(prisma, base))) return base;
  for (;;) {
    const candidate = `${base}-${randomBytes(3).toString("hex")}`;
    if (!(await slugTaken(prisma, candidate))) return candidate;
  }
}

/** Creates a tenant whose first admin is `userId` (inside the caller's transaction). */
export async function createTenantWithAdmin(
  tx: Tx,
  name: string,
  userId: string,
): Promise<TenantRecord> {
  const tenant = await createTenant(tx, { slug: await freeSlug(tx, name), name });
  await addMembership(tx, tenant.id, userId, "admin");
  return tenant;
}

/**
 * The tenant a user works in: the one the `inlay_tenant` cookie names if they still belong to it,
 * else their first. Memberships come from the database on every call, so a removed member loses
 * the tenant at once, whatever their cookie or session says.
 */
export function pickActiveMembership(
  memberships: MembershipRecord[],
  activeSlug: string | undefined,
): MembershipRecord | undefined {
  return memberships.find((membership) => membership.tenant.slug === activeSlug) ?? memberships[0];
}

export async function resolveActiveMembership(prisma: Db, userId: string, activeSlug: string | undefined) {
  const memberships = await listMemberships(prisma, userId);
  return { memberships, active: pickActiveMembership(memberships, activeSlug) ?? null };
}

/** The tenant to switch to, if the user belongs to it; NOT_FOUND otherwise (never says it exists). */
export async function findSwitchTarget(prisma: Db, userId: string, slug: string): Promise<MembershipRecord> {
  const membership = (await listMemberships(prisma, userId)).find((entry) => entry.tenant.slug === slug);
  if (!membership) throw new TenancyError("NOT_FOUND", "no such tenant");
  return membership;
}

/** The owner flag from the database, not the session: revoking ownership takes effect at once. */
export async function isOwner(prisma: Db, userId: string): Promise<boolean> {
  return (await findUserById(prisma, userId))?.isOwner ?? false;
}

export interface TenantOverview extends TenantRecord {
  memberCount: number;
  createdAt: Date;
  limits: TenantLimitsInput;
  usage: UsageRecord;
}

export async function listTenantsForOwner(prisma: Db, now = new Date()): Promise<TenantOverview[]> {
  const [tenants, limits, usage] = await Promise.all([
    listAllTenants(prisma),
    listTenantLimits(prisma),
    listTenantUsage(prisma, periodOf(now)),
  ]);
  return tenants.map((tenant) => {
    const tenantLimits = limits.get(tenant.id) ?? NO_LIMITS;
    return {
      ...tenant,
      limits: {
        runsPerMonth: tenantLimits.runsPerMonth,
        costPerMonthCents: tenantLimits.costPerMonthCents,
        concurrentRuns: tenantLimits.concurrentRuns,
        turnsPerMinutePerMember: tenantLimits.turnsPerMinutePerMember,
      },
      usage: usage.get(tenant.id) ?? { runs: 0, costMicros: 0 },
    };
  });
}

export async function createTenantForOwner(prisma: Db, name: string): Promise<TenantRecord> {
  return prisma.$transaction(async (tx) => createTenant(tx, { slug: await freeSlug(tx, name), name }));
}
