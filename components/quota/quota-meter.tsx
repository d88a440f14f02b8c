"use client";
// The signed-in member's quota: runs and cost this month against their cap and the workspace's
// limit, and when it resets. A run is a conversation: its replies are not runs of their own. Chat
// invalidates usage.mine after each run, so it moves at once.
import { useQuery } from "@tanstack/react-query";
import { exactTitle, formatMicros } from "@inlay/core/money";
import { useTRPC } from "@/components/trpc/react";

interface Meter {
  used: number;
  max: number | null;
}

const showRuns = (runs: number) => String(runs);

/** `show` writes an amount (runs as a number, costs in micro-USD as dollars); `unit` follows the pair. */
/** `exact`: the used amount's exact figure, on hover (a cost, rounded in the text). */
function Bar({
  label,
  meter,
  show,
  unit = "",
  exact,
  testId,
}: {
  label: string;
  meter: Meter;
  show: (value: number) => string;
  unit?: string;
  exact?: (value: number) => string;
  testId: string;
}) {
  const share = meter.max ? Math.min(1, meter.used / meter.max) : 0;
  const text = `${show(meter.used)} of ${meter.max === null ? "unlimited" : show(meter.max)}${unit ? ` ${unit}` : ""}`;
  return (
    <div>
      <div className="flex justify-between text-xs">
        <span className="text-muted">{label}</span>
        <span data-testid={testId} title={exact?.(meter.used)}>
          {text}
        </span>
      </div>
      {meter.max !== null ? (
        <div
          role="meter"
          aria-label={label}
          aria-valuemin={0}
          aria-valuemax={meter.max}
          aria-valuenow={meter.used}
          aria-valuetext={text}
          className="mt-1 h-2 overflow-hidden rounded-full bg-fg/10"
        >
          <div className={`h-full ${share >= 1 ? "bg-danger" : "bg-accent"}`} style={{ width: `${share * 100}%` }} />
        </div>
      ) : null}
    </div>
  );
}

export function QuotaMeter() {
  const trpc = useTRPC();
  const usage = useQuery(trpc.usage.mine.queryOptions());
  if (usage.isPending) return <div className="h-32 animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading your quota" />;
  if (usage.isError) return <p role="alert" className="text-sm text-danger">Could not load your quota: {usage.error.message}</p>;
  const { member, tenant, resetsAt } = usage.data;
  return (
    <section aria-labelledby="quota-title" className="space-y-3 rounded-card border border-line bg-surface p-4 shadow-sm" data-testid="quota-meter">
      <h2 id="quota-title" className="text-sm font-semibold">
        Your quota this month
      </h2>
      <Bar label="Your runs" meter={member.runs} show={showRuns} unit="runs" testId="quota-member-runs" />
      <Bar label="Your cost" meter={member.costMicros} show={formatMicros} exact={exactTitle} testId="quota-member-cost" />
      <Bar label="Workspace runs" meter={tenant.runs} show={showRuns} unit="runs" testId="quota-tenant-runs" />
      <Bar label="Workspace cost" meter={tenant.costMicros} show={formatMicros} exact={exactTitle} testId="quota-tenant-cost" />
      <p className="text-xs text-muted">Resets {new Date(resetsAt).toLocaleDateString(undefined, { dateStyle: "medium", timeZone: "UTC" })} (UTC).</p>
    </section>
  );
}
