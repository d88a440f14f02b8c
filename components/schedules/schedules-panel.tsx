"use client";
// The member's schedules: what runs when (in the schedule's own time zone), the next fire, the last
// runs with their status, and pause/resume, run now and delete; the form to add one below.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { card, tableScroll } from "@/components/admin/admin-page";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { FormError } from "@/components/ui/field";
import { isActiveStatus } from "@inlay/core/schemas/run-constants";
import { useTRPC } from "@/components/trpc/react";
import { ScheduleForm } from "./schedule-form";

/** A time as the schedule's zone reads it, e.g. "Mon 24 Nov, 09:00". */
export const inZone = (iso: string, timeZone: string) =>
  new Intl.DateTimeFormat("en-GB", { timeZone, weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" }).format(
    new Date(iso),
  );

export function SchedulesPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const schedules = useQuery({
    ...trpc.tasks.list.queryOptions(),
    // Poll fast while a last run is under way (running, or waiting on an approval or answer the member
    // may give elsewhere), slowly otherwise (a schedule may fire while the page is open).
    refetchInterval: (query) => (query.state.data?.some((s) => s.runs.some((run) => isActiveStatus(run.status))) ? 1500 : 30_000),
  });
  const agents = useQuery(trpc.agents.list.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.tasks.list.queryKey() });
  const create = useMutation(trpc.tasks.create.mutationOptions({ onSuccess: refresh }));
  const pause = useMutation(trpc.tasks.pause.mutationOptions({ onSuccess: refresh }));
  const resume = useMutation(trpc.tasks.resume.mutationOptions({ onSuccess: refresh }));
  const runNow = useMutation(trpc.tasks.runNow.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.tasks.delete.mutationOptions({ onSuccess: refresh }));
  const busy = pause.isPending || resume.isPending || runNow.isPending || remove.isPending;
  const actionError = pause.error ?? resume.error ?? runNow.error ?? remove.error;

  return (
    <>
      <div className={card}>
        {schedules.isPending ? <div className="h-24 animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading" /> : null}
        {schedules.isError ? <FormError message={`Could not load schedules: ${schedules.error.message}`} /> : null}
        {schedules.data?.length === 0 ? (
          <EmptyState title="No schedules yet.">Add one below: an agent, what to do, and when.</EmptyState>
        ) : null}
        <ul className="divide-y divide-line empty:hidden" aria-label="Schedules">
          {schedules.data?.map((schedule) => (
            <li key={schedule.taskId} className="py-4" data-testid="schedule" aria-label={schedule.name}>
              <div className="flex flex-wrap items-start justify-between gap-4">
                <div className="min-w-0">
                  <p className="font-medium">{schedule.name}</p>
                  <p className="text-sm text-muted">
                    {schedule.agentName ?? "A removed agent"} · {schedule.description} ({schedule.timezone})
                  </p>
                  <p className="mt-1 text-sm text-muted line-clamp-2">{schedule.instructions}</p>
                  <p className="mt-1 text-sm" data-testid="schedule-state">
                    {schedule.active
                      ? schedule.nextRunAt
                        ? `Next: ${inZone(schedule.nextRunAt, schedule.timezone)}`
                        : "Active"
                      : schedule.pausedReason === "caps"
                        ? "Paused: a monthly cap was reached"
                        : "Paused"}
                  </p>
                </div>
                <div className="flex flex-wrap gap-2">
                  <Button variant="ghost" disabled={busy} onClick={() => runNow.mutate({ taskId: schedule.taskId })}>
                    Run now
                  </Button>
                  {schedule.active ? (
                    <Button variant="ghost" disabled={busy} onClick={() => pause.mutate({ taskId: schedule.taskId })}>
                      Pause
                    </Button>
                  ) : (
                    <Button variant="ghost" disabled={busy} onClick={() => resume.mutate({ taskId: schedule.taskId })}>
                      Resume
                    </Button>
                  )}
                  <Button variant="ghost" disabled={busy} onClick={() => remove.mutate({ taskId: schedule.taskId })}>
                    Delete
                  </Button>
                </div>
              </div>
              {schedule.runs.length > 0 ? (
                <ul className="mt-3 space-y-1 text-sm" aria-label={`Runs of ${schedule.name}`}>
                  {schedule.runs.map((run) => (
                    <li key={run.id} data-testid="schedule-run" className="flex gap-3">
                      <span className="text-muted">{inZone(run.createdAt, schedule.timezone)}</span>
                      <Link href={`/runs/${run.id}`} className="font-medium text-accent underline-offset-4 hover:underline">
                        Run {run.id}
                      </Link>
                      <span data-testid="schedule-run-status" className="font-medium">
                        {run.status}
                      </span>
                    </li>
                  ))}
                </ul>
              ) : null}
            </li>
          ))}
        </ul>
        <FormError message={actionError?.message} />
      </div>

      <div className={card}>
        <h2 className="mb-4 text-lg font-semibold">New schedule</h2>
        {agents.data ? (
          <ScheduleForm agents={agents.data.agents} pending={create.isPending} onCreate={(input) => create.mutateAsync(input)} />
        ) : (
          <div className="h-24 animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading" />
        )}
      </div>
    </>
  );
}

export function TenantSchedulesPanel() {
  const trpc = useTRPC();
  const schedules = useQuery(trpc.tasks.tenantSchedules.queryOptions());
  if (schedules.isPending) return <div className="h-40 animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading" />;
  if (schedules.isError) return <FormError message={`Could not load schedules: ${schedules.error.message}`} />;
  return (
    <div className={card}>
      {schedules.data.length === 0 ? (
        <EmptyState title="No member has a schedule.">Members add schedules on their Schedules page.</EmptyState>
      ) : null}
      <div className={schedules.data.length === 0 ? "hidden" : tableScroll}>
        <table className="w-full text-left text-sm" aria-label="Members' schedules">
          <thead>
            <tr>
              {["Member", "Schedule", "Agent", "When", "Next"].map((label) => (
                <th key={label} className="border-b border-line py-2 pr-4 font-medium text-muted">
                  {label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {schedules.data.map((schedule) => (
              <tr key={schedule.taskId} data-testid="tenant-schedule">
                <td className="border-b border-line py-3 pr-4">{schedule.member.name ?? schedule.member.email}</td>
                <td className="border-b border-line py-3 pr-4">{schedule.name}</td>
                <td className="border-b border-line py-3 pr-4">{schedule.agentName ?? "—"}</td>
                <td className="border-b border-line py-3 pr-4">
                  {schedule.description} ({schedule.timezone})
                </td>
                <td className="border-b border-line py-3 pr-4">
                  {schedule.active
                    ? schedule.nextRunAt
                      ? inZone(schedule.nextRunAt, schedule.timezone)
                      : "—"
                    : schedule.pausedReason === "caps"
                      ? "Paused (cap reached)"
                      : "Paused"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
