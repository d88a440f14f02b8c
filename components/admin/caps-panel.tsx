"use client";
// Tenant admins: the workspace limits (set by the installation owner), the default member cap, and
// per-member overrides with this month's usage. Caps above the workspace limits are refused.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { FormError } from "@/components/ui/field";
import { useTRPC } from "@/components/trpc/react";
import { card } from "./admin-page";
import { CapForm } from "./cap-form";
import { Money } from "@/components/ui/money";
import { describeCostLimit, describeLimit } from "./limit-input";
import { ScheduleCapForm } from "./schedule-cap-form";

export function CapsPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const caps = useQuery(trpc.limits.get.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.limits.get.queryKey() });
  const setDefault = useMutation(trpc.limits.setDefaultCap.mutationOptions({ onSuccess: refresh }));
  const setMember = useMutation(trpc.limits.setMemberCap.mutationOptions({ onSuccess: refresh }));
  const setSchedules = useMutation(trpc.limits.setScheduleCap.mutationOptions({ onSuccess: refresh }));

  if (caps.isPending) return <div className="h-40 animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading" />;
  if (caps.isError) return <FormError message={`Could not load caps: ${caps.error.message}`} />;
  const { limits, defaultCap, members, period, schedules } = caps.data;
  return (
    <>
      <div className={card}>
        <h2 className="text-lg font-semibold">Workspace limits</h2>
        <p className="mt-1 text-sm text-muted">Set by the installation owner.</p>
        <dl className="mt-4 grid gap-4 text-sm sm:grid-cols-4">
          {[
            ["Runs per month", describeLimit(limits.runsPerMonth)],
            ["Cost per month", describeCostLimit(limits.costPerMonthCents)],
            ["Runs at once", describeLimit(limits.concurrentRuns)],
            ["Messages per minute per member", describeLimit(limits.turnsPerMinutePerMember)],
          ].map(([label, value]) => (
            <div key={label}>
              <dt className="text-muted">{label}</dt>
              <dd className="mt-1 text-lg font-medium">{value}</dd>
            </div>
          ))}
        </dl>
      </div>

      <div className={card}>
        <h2 className="text-lg font-semibold">Default member cap</h2>
        <p className="mb-4 mt-1 text-sm text-muted">Applies to every member without an override. Empty means no cap.</p>
        <CapForm
          label="Default member cap"
          initial={defaultCap}
          tenantLimits={limits}
          pending={setDefault.isPending}
          onSave={(cap) => setDefault.mutateAsync(cap)}
        />
      </div>

      <div className={card}>
        <h2 className="text-lg font-semibold">Schedules</h2>
        <p className="mb-4 mt-1 text-sm text-muted">
          Scheduled runs count against the caps above; a schedule is paused when its member&apos;s or the workspace&apos;s month is used up.
        </p>
        <ScheduleCapForm
          initial={schedules.maxActive}
          active={schedules.active}
          pending={setSchedules.isPending}
          onSave={(cap) => setSchedules.mutateAsync(cap)}
        />
      </div>

      <div className={card}>
        <h2 className="text-lg font-semibold">Members ({period})</h2>
        <ul className="mt-4 divide-y divide-line">
          {members.map((member) => (
            <li key={member.membershipId} className="py-4" data-testid="member-cap">
              <div className="mb-3 flex flex-wrap items-baseline justify-between gap-2">
                <div>
                  <span className="font-medium">{member.name ?? member.email}</span>{" "}
                  <span className="text-sm text-muted">{member.email}</span>
                </div>
                <div className="text-sm text-muted" data-testid="effective-cap">
                  {member.usage.runs} / {describeLimit(member.effective.runsPerMonth)} runs ·{" "}
                  <Money micros={member.usage.costMicros} /> / {describeCostLimit(member.effective.costPerMonthCents)}
                  {member.override ? " · override" : " · default"}
                </div>
              </div>
              <CapForm
                label={`Cap for ${member.email}`}
                emptyMeans="default"
                initial={member.override}
                tenantLimits={limits}
                pending={setMember.isPending}
                onSave={(cap) => setMember.mutateAsync({ membershipId: member.membershipId, cap })}
                onClear={member.override ? () => setMember.mutateAsync({ membershipId: member.membershipId, cap: null }) : undefined}
              />
            </li>
          ))}
        </ul>
      </div>
    </>
  );
}
