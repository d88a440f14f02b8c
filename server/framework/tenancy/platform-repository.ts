// Prisma access for the framework's side of the platform: the provisioned account, the (tenant,
// user) → platform user_id mapping, tenant agents and their per-member copies, and framework runs.
// Every read and write names the tenant (and the user where one owns the row): no query without a scope.
import { Prisma, type PrismaClient } from "@/server/generated/prisma/client";
import { agentNameKey } from "@inlay/core/schemas/console";

// --- The framework's own platform account (embedded mode) ----------------------------------------

export interface FrameworkAccountRecord {
  claimToken: string;
  claimedAt: Date;
  accountId: number | null;
  apiKeyCipher: string | null;
}

const ACCOUNT_ROW = "embedded";

export async function findFrameworkAccount(prisma: PrismaClient): Promise<FrameworkAccountRecord | null> {
  return prisma.frameworkPlatformAccount.findUnique({
    where: { id: ACCOUNT_ROW },
    select: { claimToken: true, claimedAt: true, accountId: true, apiKeyCipher: true },
  });
}

/** INSERT … ON CONFLICT DO NOTHING: true for the one instance whose row went in. */
export async function insertFrameworkAccountClaim(prisma: PrismaClient, claimToken: string, at: Date): Promise<boolean> {
  const { count } = await prisma.frameworkPlatformAccount.createMany({
    data: [{ id: ACCOUNT_ROW, claimToken, claimedAt: at }],
    skipDuplicates: true,
  });
  return count === 1;
}

/** Takes over a claim nobody finished (its holder died): only if it is still the stale one. */
export async function takeOverFrameworkAccountClaim(
  prisma: PrismaClient,
  staleToken: string,
  claimToken: string,
  at: Date,
): Promise<boolean> {
  const { count } = await prisma.frameworkPlatformAccount.updateMany({
    where: { id: ACCOUNT_ROW, claimToken: staleToken, apiKeyCipher: null },
    data: { claimToken, claimedAt: at },
  });
  return count === 1;
}

export async function completeFrameworkAccount(
  prisma: PrismaClient,
  claimToken: string,
  account: { accountId: number; email: string; apiKeyCipher: string },
): Promise<boolean> {
  const { count } = await prisma.frameworkPlatformAccount.updateMany({
    where: { id: ACCOUNT_ROW, claimToken, apiKeyCipher: null },
    data: { ...account, readyAt: new Date() },
  });
  return count === 1;
}

// --- (tenant, user) → platform user_id -------------------------------------------------------------

/** The framework's run.* webhook on its embedded account (run-ledger-webhook.ts), its secret sealed. */
export async function findFrameworkWebhook(prisma: PrismaClient): Promise<{ webhookId: number; secretCipher: string } | null> {
  const row = await prisma.frameworkPlatformAccount.findUnique({
    where: { id: ACCOUNT_ROW },
    select: { webhookId: true, webhookSecretCipher: true },
  });
  return row?.webhookId && row.webhookSecretCipher ? { webhookId: row.webhookId, secretCipher: row.webhookSecretCipher } : null;
}

/** Records the webhook unless another instance recorded one first (false: drop ours). */
export async function setFrameworkWebhookIfAbsent(prisma: PrismaClient, webhookId: number, secretCipher: string): Promise<boolean> {
  const { count } = await prisma.frameworkPlatformAccount.updateMany({
    where: { id: ACCOUNT_ROW, webhookId: null, apiKeyCipher: { not: null } },
    data: { webhookId, webhookSecretCipher: secretCipher },
  });
  return count === 1;
}

/** Forgets the framework's webhook (the platform no longer has it), so it is registered again. */
export async function clearFrameworkWebhook(prisma: PrismaClient, webhookId: number): Promise<void> {
  await prisma.frameworkPlatformAccount.updateMany({ where: { id: ACCOUNT_ROW, webhookId }, data: { webhookId: null, webhookSecretCipher: null } });
}

export interface PlatformUserRecord {
  platformUserId: string;
  profileCreatedAt: Date | null;
}

export async function findPlatformUser(prisma: PrismaClient, tenantId: string, userId: string): Promise<PlatformUserRecord | null> {
  return prisma.tenantPlatformUser.findUnique({
    where: { tenantId_userId: { tenantId, userId } },
    select: { platformUserId: true, profileCreatedAt: true },
  });
}

/** Concurrent-safe: ON CONFLICT DO NOTHING, then whichever row won is read back. */
export async function insertPlatformUser(prisma: PrismaClient, tenantId: string, userId: string, platformUserId: string) {
  await prisma.tenantPlatformUser.createMany({ data: [{ tenantId, userId, platformUserId }], skipDuplicates: true });
  return prisma.tenantPlatformUser.findUniqueOrThrow({
    where: { tenantId_userId: { tenantId, userId } },
    select: { platformUserId: true, profileCreatedAt: true },
  });
}

export async function markProfileCreated(prisma: PrismaClient, tenantId: string, userId: string): Promise<void> {
  await prisma.tenantPlatformUser.updateMany({ where: { tenantId, userId, profileCreatedAt: null }, data: { profileCreatedAt: new Date() } });
}

/** The platform user_ids of a tenant's current members (removed members are not listed). */
export async function listTenantPlatformUsers(prisma: PrismaClient, tenantId: string) {
  const rows = await prisma.tenantPlatformUser.findMany({
    where: { tenantId, user: { memberships: { some: { tenantId } } } },
    select: { userId: true, platformUserId: true, user: { select: { email: true, name: true } } },
    orderBy: { createdAt: "asc" },
  });
  return rows.map((row) => ({ userId: row.userId, platformUserId: row.platformUserId, email: row.user.email, name: row.user.name }));
}

// --- Tenant agents and copies ------------------------------------------------------------------------

export interface TenantAgentRecord {
  id: string;
  tenantId: string;
  ownerUserId: string | null;
  name: string;
  instructions: string;
  model: string | null;
  permissionMode: string;
  tools: string[];
  version: number;
  archivedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface TenantAgentFields {
  name: string;
  instructions: string;
  model: string | null;
  permissionMode: string;
  tools: string[];
}

/** The agents a user may see in a tenant: the tenant's, and their own personal ones. */
export async function listVisibleAgents(prisma: PrismaClient, tenantId: string, userId: string): Promise<TenantAgentRecord[]> {
  return prisma.tenantAgent.findMany({
    where: { tenantId, archivedAt: null, OR: [{ ownerUserId: null }, { ownerUserId: userId }] },
    orderBy: { createdAt: "asc" },
  });
}

export async function findVisibleAgent(prisma: PrismaClient, tenantId: string, userId: string, id: string): Promise<TenantAgentRecord | null> {
  return prisma.tenantAgent.findFirst({
    where: { id, tenantId, archivedAt: null, OR: [{ ownerUserId: null }, { ownerUserId: userId }] },
  });
}

/** Thrown when a live agent of the tenant already has the name (case-insensitively). */
export class AgentNameTaken extends Error {
  override name = "AgentNameTaken";
}

const nameTaken = (error: unknown) =>
  error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002" ? new AgentNameTaken() : error;

export async function createTenantAgent(
  prisma: PrismaClient,
  tenantId: string,
  ownerUserId: string | null,
  fields: TenantAgentFields,
): Promise<TenantAgentRecord> {
  try {
    return await prisma.tenantAgent.create({ data: { tenantId, ownerUserId, ...fields, nameKey: agentNameKey(fields.name) } });
  } catch (error) {
    throw nameTaken(error);
  }
}

/** Bumps the version so every copy catches up on its next use. */
export async function updateTenantAgent(prisma: PrismaClient, tenantId: string, id: string, fields: TenantAgentFields) {
  try {
    const { count } = await prisma.tenantAgent.updateMany({
      where: { id, tenantId, archivedAt: null },
      data: { ...fields, nameKey: agentNameKey(fields.name), version: { increment: 1 } },
    });
    return count === 1;
  } catch (error) {
    throw nameTaken(error);
  }
}

/** Archived agents give their name back (name_key null), so a new agent may take it. */
export async function archiveTenantAgent(prisma: PrismaClient, tenantId: string, id: string) {
  const { count } = await prisma.tenantAgent.updateMany({
    where: { id, tenantId, archivedAt: null },
    data: { archivedAt: new Date(), nameKey: null },
  });
  return count === 1;
}

export interface AgentCopyRecord {
  platformAgentId: number;
  syncedVersion: number;
}

export const findAgentCopy = (prisma: PrismaClient, tenantAgentId: string, userId: string): Promise<AgentCopyRecord | null> =>
  prisma.tenantAgentCopy.findUnique({
    where: { tenantAgentId_userId: { tenantAgentId, userId } },
    select: { platformAgentId: true, syncedVersion: true },
  });

/** ON CONFLICT DO NOTHING: false when another request's copy went in first. */
export async function insertAgentCopy(prisma: PrismaClient, tenantAgentId: string, userId: string, copy: AgentCopyRecord) {
  const { count } = await prisma.tenantAgentCopy.createMany({ data: [{ tenantAgentId, userId, ...copy }], skipDuplicates: true });
  return count === 1;
}

/** Only moves forward, so a slow sync never writes an older version over a newer one. */
export async function markAgentCopySynced(prisma: PrismaClient, tenantAgentId: string, userId: string, version: number) {
  await prisma.tenantAgentCopy.updateMany({
    where: { tenantAgentId, userId, syncedVersion: { lt: version } },
    data: { syncedVersion: version },
  });
}

// --- Tenant settings -----------------------------------------------------------------------------------

export async function findAllowPersonalAgents(prisma: PrismaClient, tenantId: string): Promise<boolean> {
  const row = await prisma.tenant.findUnique({ where: { id: tenantId }, select: { allowPersonalAgents: true } });
  return row?.allowPersonalAgents ?? false;
}

export async function setAllowPersonalAgents(prisma: PrismaClient, tenantId: string, allow: boolean): Promise<void> {
  await prisma.tenant.update({ where: { id: tenantId }, data: { allowPersonalAgents: allow } });
}

// --- Framework runs ------------------------------------------------------------------------------------

export interface TenantRunRecord {
  platformRunId: number;
  userId: string;
  tenantAgentId: string | null;
  admissionId: string | null;
  /** Micro-USD charged to the run's admissions so far. */
  costMicros: number;
}

const runSelect = { platformRunId: true, userId: true, tenantAgentId: true, admissionId: true, costMicros: true } as const;

/** A row's BIGINT cost as the Number the framework counts in (exact up to about $9 billion). */
const withCostNumber = <Row extends { costMicros: bigint }>(row: Row): Omit<Row, "costMicros"> & { costMicros: number } => ({
  ...row,
  costMicros: Number(row.costMicros),
});

/** Records a run the tenant admitted (or adopted): true for the one caller whose row went in. */
export async function insertTenantRunIfAbsent(
  prisma: PrismaClient,
  run: { tenantId: string; userId: string; platformRunId: number; tenantAgentId: string | null; admissionId: string },
): Promise<boolean> {
  const { count } = await prisma.tenantRun.createMany({ data: [run], skipDuplicates: true });
  return count === 1;
}

export async function findTenantRun(prisma: PrismaClient, tenantId: string, userId: string, platformRunId: number): Promise<TenantRunRecord | null> {
  const row = await prisma.tenantRun.findFirst({ where: { tenantId, userId, platformRunId }, select: runSelect });
  return row ? withCostNumber(row) : null;
}

/** Who a framework-recorded run belongs to in a tenant (any member): null when the framework did not record it. */
export async function findTenantRunOwner(prisma: PrismaClient, tenantId: string, platformRunId: number): Promise<string | null> {
  const row = await prisma.tenantRun.findUnique({ where: { tenantId_platformRunId: { tenantId, platformRunId } }, select: { userId: true } });
  return row?.userId ?? null;
}

export async function listTenantRunIds(prisma: PrismaClient, tenantId: string, userId: string, platformRunIds: number[]) {
  const rows = await prisma.tenantRun.findMany({
    where: { tenantId, userId, platformRunId: { in: platformRunIds } },
    select: runSelect,
  });
  return new Map(rows.map((row) => [row.platformRunId, withCostNumber(row)]));
}

/** Detaches the admission from the run; true for the one caller that did (and so releases it). */
export async function detachRunAdmission(prisma: PrismaClient, tenantId: string, platformRunId: number, admissionId: string) {
  const { count } = await prisma.tenantRun.updateMany({ where: { tenantId, platformRunId, admissionId }, data: { admissionId: null } });
  return count === 1;
}

/** A reply's new admission, only when the run holds none (a live run cannot be replied to). */
export async function attachRunAdmission(prisma: PrismaClient, tenantId: string, platformRunId: number, admissionId: string) {
  const { count } = await prisma.tenantRun.updateMany({ where: { tenantId, platformRunId, admissionId: null }, data: { admissionId } });
  return count === 1;
}

/** Every tenant's limits (a tenant without a row has none), for the platform's account-wide backstops. */
export async function listAllTenantLimits(prisma: PrismaClient) {
  const tenants = await prisma.tenant.findMany({
    select: { limits: { select: { runsPerMonth: true, costPerMonthCents: true, turnsPerMinutePerMember: true } } },
  });
  return tenants.map((tenant) => tenant.limits ?? { runsPerMonth: null, costPerMonthCents: null, turnsPerMinutePerMember: null });
}
