"use client";
// One run as its owner or a tenant admin reads it: what started it, the model, tokens, exact cost and
// times, then its timeline (the person's messages, the agent's text, tool calls with their input and
// result, approvals, questions, connection pauses, status changes) in the order they happened, each
// with its start and duration and a bar on the run's time axis, as a trace's waterfall. Re-read while
// the run is going.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import type { ReactNode } from "react";
import { card } from "@/components/admin/admin-page";
import { Money } from "@/components/ui/money";
import type { inferRouterOutputs } from "@trpc/server";
import type { RunTrigger } from "@inlay/core/schemas/run-view";
import { useTRPC } from "@/components/trpc/react";
import type { AppRouter } from "@/server/framework/api/root";

// As the client receives it (JSON: the unknown inputs and results may be absent).
type RunDetail = inferRouterOutputs<AppRouter>["runs"]["detail"];
type TimelineEntry = RunDetail["timeline"][number];

const time = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : "–");

/** "850 ms", "12.4 s", "3 min 5 s". */
export function formatDuration(ms: number | null): string {
  if (ms === null) return "–";
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

function triggerText(trigger: RunTrigger): string {
  switch (trigger.kind) {
    case "schedule":
      return `Schedule${trigger.scheduleName ? ` “${trigger.scheduleName}”` : ""}`;
    case "task":
      return `Task ${trigger.taskId} (a trigger or API call)`;
    case "console":
      return "Console";
    case "chat":
      return "Chat";
  }
}

const json = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value, null, 2));

function Code({ label, value }: { label: string; value: unknown }) {
  return (
    <div className="mt-2 min-w-0">
      <p className="text-xs font-medium text-muted">{label}</p>
      <pre className="mt-1 max-h-64 overflow-auto whitespace-pre-wrap break-all rounded-lg bg-fg/5 p-2 text-xs">{json(value)}</pre>
    </div>
  );
}

const REQUEST_TITLE: Record<string, string> = { tool: "Approval", question: "Question", plan: "Plan approval", connection: "Connection pause" };

function Entry({ entry }: { entry: TimelineEntry }): ReactNode {
  switch (entry.type) {
    case "message":
      return (
        <>
          <p className="text-xs font-medium text-muted">{entry.role === "user" ? "Message from the member" : "Agent"}</p>
          <p className="mt-1 whitespace-pre-wrap break-words">{entry.text}</p>
        </>
      );
    case "tool_call":
      return (
        <>
          <p className="text-xs font-medium text-muted">Tool call</p>
          <p className="mt-1 font-medium break-words">{entry.name}</p>
          <Code label="Input" value={entry.input} />
          {entry.done ? null : <p className="mt-2 text-xs text-muted">No result.</p>}
        </>
      );
    case "tool_result":
      return (
        <>
          <p className="text-xs font-medium text-muted">Tool result</p>
          <p className="mt-1 font-medium break-words">{entry.name}</p>
          <Code label="Result" value={entry.result} />
        </>
      );
    case "request":
      return (
        <>
          <p className="text-xs font-medium text-muted">{REQUEST_TITLE[entry.kind] ?? entry.kind}</p>
          <p className="mt-1 break-words">
            <span className="font-medium">{entry.kind === "connection" ? (entry.app ?? entry.toolName) : entry.toolName}</span>
            {" · "}
            <span data-testid="request-status">{entry.status}</span>
            {entry.resolvedAt ? <span className="text-muted"> · {time(entry.resolvedAt)}</span> : null}
          </p>
          {entry.kind !== "connection" ? <Code label="Input" value={entry.input} /> : null}
          {entry.answer !== null && entry.answer !== undefined ? <Code label="Answer" value={entry.answer} /> : null}
        </>
      );
    case "status":
      return (
        <p className={entry.status === "failed" ? "text-danger" : "text-muted"}>
          Status: <span className="font-medium">{entry.status}</span>
          {entry.resumed ? " (resumed)" : ""}
          {entry.error ? ` · ${entry.error}` : ""}
        </p>
      );
  }
}

/** The run's time axis: from its creation to its end (or the last step known, while it goes). */
function axisOf(run: RunDetail): { start: number; length: number } | null {
  const start = Date.parse(run.createdAt);
  const ends = run.timeline.map((entry) => (entry.at ? Date.parse(entry.at) + (entry.durationMs ?? 0) : start));
  if (run.finishedAt) ends.push(Date.parse(run.finishedAt));
  const end = Math.max(start, ...ends);
  return Number.isFinite(start) ? { start, length: Math.max(1, end - start) } : null;
}

const clock = (iso: string) =>
  new Date(iso).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit", fractionalSecondDigits: 3 });

/** A step's start (its clock time and offset from the run's start), its duration, and its bar. */
function Timing({ entry, axis }: { entry: TimelineEntry; axis: { start: number; length: number } | null }) {
  if (!entry.at || !axis) return <p className="text-xs text-muted sm:text-right">No time recorded</p>;
  const offset = Math.max(0, Date.parse(entry.at) - axis.start);
  const left = Math.min(100, (offset / axis.length) * 100);
  const width = entry.durationMs === null ? 0 : Math.min(100 - left, (entry.durationMs / axis.length) * 100);
  return (
    <div className="min-w-0 text-xs text-muted sm:text-right">
      <p>
        <time data-testid="entry-start" dateTime={entry.at} title={new Date(entry.at).toLocaleString()}>
          {clock(entry.at)} · +{formatDuration(offset)}
        </time>
      </p>
      <p data-testid="entry-duration">{entry.durationMs === null ? "instant" : formatDuration(entry.durationMs)}</p>
      <div className="relative mt-1 h-1.5 rounded-full bg-fg/5" aria-hidden="true">
        <div
          data-testid="entry-bar"
          className="absolute inset-y-0 rounded-full bg-accent"
          style={{ left: `${left}%`, width: width > 0 ? `${width}%` : "2px" }}
        />
      </div>
    </div>
  );
}

function Facts({ run }: { run: RunDetail }) {
  const facts: [string, ReactNode][] = [
    ["Status", <span key="status" data-testid="run-status">{run.status}</span>],
    ["Member", run.owner.name ? `${run.owner.name} (${run.owner.email})` : run.owner.email],
    ["Agent", run.agent.name ?? `Agent ${run.agent.id}`],
    ["Started by", triggerText(run.trigger)],
    ["Model", run.model],
    ["Tokens in / out", `${run.inputTokens} / ${run.outputTokens}`],
    ["Cost", <Money key="cost" micros={run.costMicros} data-testid="run-cost" />],
    ["Created", time(run.createdAt)],
    ["Finished", time(run.finishedAt)],
    ["Duration", formatDuration(run.durationMs)],
  ];
  return (
    <dl className="grid grid-cols-1 gap-x-6 gap-y-3 text-sm sm:grid-cols-2 lg:grid-cols-3" aria-label="Run facts">
      {facts.map(([term, value]) => (
        <div key={term} className="min-w-0">
          <dt className="text-muted">{term}</dt>
          <dd className="font-medium break-words">{value}</dd>
        </div>
      ))}
      {run.error ? (
        <div className="min-w-0 sm:col-span-2 lg:col-span-3">
          <dt className="text-muted">Error</dt>
          <dd className="break-words text-danger">{run.error}</dd>
        </div>
      ) : null}
    </dl>
  );
}

export function RunView({ runId }: { runId: number }) {
  const trpc = useTRPC();
  const run = useQuery({
    ...trpc.runs.detail.queryOptions({ runId }),
    retry: false,
    refetchInterval: (query) => (query.state.data && !query.state.data.complete ? 2000 : false),
  });
  if (run.isPending) return <div className="h-40 animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading" />;
  if (run.isError) {
    return (
      <p role="alert" className="text-danger">
        {run.error.data?.code === "NOT_FOUND" ? "There is no such run here." : `Could not load the run: ${run.error.message}`}
      </p>
    );
  }
  const detail = run.data;
  const axis = axisOf(detail);
  return (
    <>
      <div className={card}>
        <Facts run={detail} />
      </div>
      <div className={card}>
        <h2 className="text-lg font-semibold">Timeline</h2>
        {detail.complete ? null : <p className="mt-1 text-sm text-muted">The run is still going: its current step shows once it ends.</p>}
        <ol className="mt-4 space-y-3" aria-label="Timeline">
          {detail.timeline.map((entry, index) => (
            <li
              key={index}
              data-testid="timeline-entry"
              data-type={entry.type}
              data-at={entry.at ?? undefined}
              className="grid min-w-0 gap-2 border-l-2 border-line pl-3 text-sm sm:grid-cols-[minmax(0,1fr)_12rem] sm:gap-4"
            >
              <div className="min-w-0">
                <Entry entry={entry} />
              </div>
              <Timing entry={entry} axis={axis} />
            </li>
          ))}
        </ol>
      </div>
      <Link href="/runs" className="text-sm font-medium text-accent underline-offset-4 hover:underline">
        All your runs
      </Link>
    </>
  );
}
