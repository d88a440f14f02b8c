"use client";
// A member's runs, however they started (chat, console, schedule), newest first, each linking to its
// run view. A tenant admin reaches another member's from the usage page (?member=).
import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { card, table, tableScroll, td, th } from "@/components/admin/admin-page";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { Money } from "@/components/ui/money";
import { formatMicros } from "@inlay/core/money";
import { useTRPC } from "@/components/trpc/react";

export function RunsList({ memberId }: { memberId?: string }) {
  const trpc = useTRPC();
  const runs = useInfiniteQuery(
    trpc.runs.history.infiniteQueryOptions(
      { memberId, limit: 25 },
      {
        getNextPageParam: (page) => (page.hasMore ? page.runs.at(-1)?.id : undefined),
        retry: false,
      },
    ),
  );
  if (runs.isPending) return <div className="h-40 animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading" />;
  if (runs.isError) {
    return (
      <p role="alert" className="text-danger">
        {runs.error.data?.code === "NOT_FOUND" ? "There is no such member here." : `Could not load runs: ${runs.error.message}`}
      </p>
    );
  }
  const owner = runs.data.pages[0]?.owner;
  const rows = runs.data.pages.flatMap((page) => page.runs);
  // Summed exactly, then rounded once: the rows are each rounded, so the note below says so.
  const totalMicros = rows.reduce((sum, run) => sum + BigInt(run.costMicros), 0n);
  return (
    <div className={card}>
      <h2 className="text-lg font-semibold break-words">{owner ? `Runs of ${owner.name ?? owner.email}` : "Runs"}</h2>
      {rows.length === 0 ? (
        <EmptyState className="mt-4" title="No runs yet">
          Chat with an agent or run a schedule: its runs show here.
        </EmptyState>
      ) : (
        <div className={`mt-4 ${tableScroll}`}>
          <table className={table} data-testid="runs-table">
            <thead>
              <tr>
                <th className={th}>Run</th>
                <th className={th}>Status</th>
                <th className={th}>About</th>
                <th className={th}>Cost</th>
                <th className={th}>Created</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((run) => (
                <tr key={run.id} data-testid="run-row">
                  <td className={td}>
                    <Link href={`/runs/${run.id}`} className="font-medium text-accent underline-offset-4 hover:underline">
                      Run {run.id}
                    </Link>
                  </td>
                  <td className={td}>{run.status}</td>
                  <td className={`${td} max-w-64 truncate`} title={run.preview ?? undefined}>
                    {run.preview ?? "–"}
                  </td>
                  <td className={td}>
                    <Money micros={run.costMicros} />
                  </td>
                  <td className={`${td} whitespace-nowrap`}>{new Date(run.createdAt).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr data-testid="runs-total">
                <td className={`${td} font-medium`} colSpan={3}>
                  Total of the {rows.length === 1 ? "run" : `${rows.length} runs`} shown
                </td>
                <td className={`${td} font-medium`}>
                  <Money micros={totalMicros} />
                </td>
                <td className={td} />
              </tr>
            </tfoot>
          </table>
          <p className="mt-2 text-xs text-muted" data-testid="runs-rounding">
            Costs are rounded to {formatMicros(100)}; the total is the exact sum, rounded once. Hover an amount for the exact figure.
          </p>
        </div>
      )}
      {runs.hasNextPage ? (
        <Button variant="ghost" className="mt-4" disabled={runs.isFetchingNextPage} onClick={() => runs.fetchNextPage()}>
          More
        </Button>
      ) : null}
    </div>
  );
}
