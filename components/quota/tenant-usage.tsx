"use client";
// Tenant admins: each member's usage this month (runs and cost against their cap, tokens the platform
// metered) and tokens per day over the last 30 days, per member, as a stacked bar chart.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { card, table, tableScroll, td, th } from "@/components/admin/admin-page";
import { EmptyState } from "@/components/ui/empty-state";
import { Money } from "@/components/ui/money";
import { formatCents } from "@inlay/core/money";
import { useTRPC } from "@/components/trpc/react";

// The series' colours are theme tokens (app/theme.css), so the bars stay bright in dark mode.
const SERIES_COLOURS = 7;
const seriesColour = (index: number) => `var(--inlay-chart-${(index % SERIES_COLOURS) + 1})`;

export function TenantUsage() {
  const trpc = useTRPC();
  const usage = useQuery(trpc.usage.tenant.queryOptions({ days: 30 }));
  if (usage.isPending) return <div className="h-40 animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading" />;
  if (usage.isError) return <p role="alert" className="text-danger">Could not load usage: {usage.error.message}</p>;
  const { members, days, period } = usage.data;
  const emails = members.map((member) => member.email);
  const data = days.map((day) => ({ date: day.date.slice(5), ...day.members }));
  const anyTokens = days.some((day) => Object.values(day.members).some((tokens) => tokens > 0));
  return (
    <>
      <div className={card}>
        <h2 className="text-lg font-semibold">Members ({period})</h2>
        <div className={`mt-4 ${tableScroll}`}>
          <table className={table} data-testid="usage-table">
            <thead>
              <tr>
                <th className={th}>Member</th>
                <th className={th}>Runs</th>
                <th className={th}>Cost</th>
                <th className={th}>Tokens in / out</th>
              </tr>
            </thead>
            <tbody>
              {members.map((member) => (
                <tr key={member.userId} data-testid="usage-row">
                  <td className={td}>
                    <span className="font-medium">{member.name ?? member.email}</span> <span className="text-muted">{member.email}</span>
                    {/* A member with platform usage has a platform user, so runs to list. */}
                    {member.platform ? (
                      <>
                        {" "}
                        <Link href={`/runs?member=${encodeURIComponent(member.userId)}`} className="text-accent underline-offset-4 hover:underline">
                          Runs
                        </Link>
                      </>
                    ) : null}
                  </td>
                  <td className={td}>
                    {member.runs} / {member.cap.runsPerMonth ?? "∞"}
                  </td>
                  <td className={td}>
                    <Money micros={member.costMicros} /> / {member.cap.costPerMonthCents === null ? "∞" : formatCents(member.cap.costPerMonthCents)}
                  </td>
                  <td className={td}>
                    {member.platform ? `${member.platform.inputTokens} / ${member.platform.outputTokens}` : "none yet"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
      <div className={card}>
        <h2 className="text-lg font-semibold" id="usage-chart-title">
          Tokens per day, last 30 days
        </h2>
        {anyTokens ? (
          // The axes and grid in currentColor (the muted token), so they follow dark mode.
          <figure className="mt-4 h-72 text-muted" aria-labelledby="usage-chart-title" data-testid="usage-chart">
            <ResponsiveContainer width="100%" height="100%">
              <BarChart data={data}>
                <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="currentColor" strokeOpacity={0.25} />
                <XAxis dataKey="date" fontSize={12} stroke="currentColor" tick={{ fill: "currentColor" }} />
                <YAxis fontSize={12} allowDecimals={false} stroke="currentColor" tick={{ fill: "currentColor" }} />
                <Tooltip
                  cursor={{ fill: "currentColor", fillOpacity: 0.08 }}
                  contentStyle={{ background: "var(--inlay-surface)", borderColor: "var(--inlay-border)", color: "var(--inlay-text)" }}
                />
                {/* The members' names in the text colour: the series colours are for bars, not text. */}
                <Legend formatter={(value: string) => <span className="text-fg">{value}</span>} />
                {emails.map((email, index) => (
                  <Bar key={email} dataKey={email} stackId="tokens" fill={seriesColour(index)} />
                ))}
              </BarChart>
            </ResponsiveContainer>
          </figure>
        ) : (
          <EmptyState title="No tokens used in the last 30 days." className="mt-4">
            The chart fills in as members chat with their agents.
          </EmptyState>
        )}
      </div>
    </>
  );
}
