// Usage for tenant admins: each member's runs and cost this month (the framework's counters, against
// their caps) beside what the platform metered for their end-user (tokens, cost), and tokens and cost
// per day. The platform account is shared by every tenant, so the platform is only ever asked about
// this tenant's own user_ids, one at a time, and any answer about another id is dropped.
import { usdToMicros } from "@inlay/core/money";
import type { Db } from "@/server/shared/db";
import { getTenantCaps } from "./limits";
import type { PlatformConnection } from "./platform-connection";
import { listTenantPlatformUsers } from "./platform-repository";

export interface MemberUsageRow {
  userId: string;
  email: string;
  name: string | null;
  role: "member" | "admin";
  runs: number;
  /** Micro-USD; the cap's cost is whole cents, as set. */
  costMicros: number;
  cap: { runsPerMonth: number | null; costPerMonthCents: number | null };
  platform: { runs: number; inputTokens: number; outputTokens: number; costUsd: string } | null;
}

export interface UsageDay {
  date: string;
  totalTokens: number;
  /** Micro-USD, summed exactly. */
  costMicros: number;
  /** Tokens per member (by email) that day. */
  members: Record<string, number>;
}

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

export async function getTenantUsage(
  prisma: Db,
  connection: PlatformConnection,
  tenantId: string,
  { days = 30, now = new Date() }: { days?: number; now?: Date } = {},
): Promise<{ period: string; members: MemberUsageRow[]; days: UsageDay[] }> {
  const [caps, links] = await Promise.all([getTenantCaps(prisma, tenantId, now), listTenantPlatformUsers(prisma, tenantId)]);
  const range = { start_date: isoDay(new Date(now.getTime() - (days - 1) * 86_400_000)), end_date: isoDay(now) };
  const platform = new Map(
    await Promise.all(
      links.map(async (link) => {
        const member = connection.client.forUser(link.platformUserId);
        const [page, series] = await Promise.all([member.usage.endUsers.list({ limit: 1 }), member.usage.timeseries(range)]);
        const usage = page.data.find((row) => row.user_id === link.platformUserId) ?? null;
        return [link.userId, { usage, series }] as const;
      }),
    ),
  );

  const byDay = new Map<string, UsageDay>();
  for (let day = 0; day < days; day++) {
    const date = isoDay(new Date(now.getTime() - (days - 1 - day) * 86_400_000));
    byDay.set(date, { date, totalTokens: 0, costMicros: 0, members: {} });
  }
  const members: MemberUsageRow[] = caps.members.map((member) => {
    const userId = links.find((link) => link.email === member.email)?.userId;
    const fromPlatform = userId ? platform.get(userId) : undefined;
    for (const bucket of fromPlatform?.series.buckets ?? []) {
      const day = byDay.get(bucket.date);
      if (!day) continue;
      day.totalTokens += bucket.total_tokens;
      day.costMicros += Number(usdToMicros(bucket.cost_usd) ?? 0n);
      day.members[member.email] = (day.members[member.email] ?? 0) + bucket.total_tokens;
    }
    const usage = fromPlatform?.usage;
    return {
      userId: userId ?? member.membershipId,
      email: member.email,
      name: member.name,
      role: member.role,
      runs: member.usage.runs,
      costMicros: member.usage.costMicros,
      cap: member.effective,
      platform: usage
        ? { runs: usage.runs_used, inputTokens: usage.input_tokens, outputTokens: usage.output_tokens, costUsd: usage.cost_used }
        : null,
    };
  });
  return { period: caps.period, members, days: [...byDay.values()] };
}
