"use client";
// The member's own data on the platform: what their agents remember, and the tools they always allow.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { card } from "@/components/admin/admin-page";
import { Button } from "@/components/ui/button";
import { EmptyState } from "@/components/ui/empty-state";
import { FormError } from "@/components/ui/field";
import { useTRPC } from "@/components/trpc/react";

export function MemoriesPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const memories = useQuery(trpc.memories.list.queryOptions());
  const remove = useMutation(
    trpc.memories.delete.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.memories.list.queryKey() }) }),
  );
  if (memories.isPending) return <div className="h-40 animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading" />;
  if (memories.isError) return <FormError message={`Could not load memories: ${memories.error.message}`} />;
  return (
    <div className={card}>
      {memories.data.length === 0 ? (
        <EmptyState title="Your agents remember nothing about you yet.">
          Tell an agent to remember something in a chat (your time zone, how you like answers) and it shows up here.
        </EmptyState>
      ) : null}
      <ul className="divide-y divide-line empty:hidden" aria-label="Memories">
        {memories.data.map((memory) => (
          <li key={memory.id} className="flex items-center justify-between gap-4 py-3 text-sm">
            <span>{memory.content}</span>
            <Button variant="ghost" disabled={remove.isPending} onClick={() => remove.mutate({ id: memory.id })} aria-label={`Forget "${memory.content}"`}>
              Forget
            </Button>
          </li>
        ))}
      </ul>
      <FormError message={remove.error?.message} />
    </div>
  );
}

export function GrantsPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const grants = useQuery(trpc.permissions.list.queryOptions());
  const revoke = useMutation(
    trpc.permissions.revoke.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.permissions.list.queryKey() }) }),
  );
  if (grants.isPending) return <div className="h-40 animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading" />;
  if (grants.isError) return <FormError message={`Could not load permissions: ${grants.error.message}`} />;
  return (
    <div className={card}>
      {grants.data.length === 0 ? (
        <EmptyState title="You have not always-allowed any tool.">
          When an agent asks before using a tool, choose “Always allow” and the tool is listed here, where you can revoke it.
        </EmptyState>
      ) : null}
      <ul className="divide-y divide-line empty:hidden" aria-label="Always allowed tools">
        {grants.data.map((grant) => (
          <li key={grant.id} className="flex items-center justify-between gap-4 py-3 text-sm">
            <span className="font-mono">{grant.tool}</span>
            <Button variant="ghost" disabled={revoke.isPending} onClick={() => revoke.mutate({ id: grant.id })} aria-label={`Revoke ${grant.tool}`}>
              Revoke
            </Button>
          </li>
        ))}
      </ul>
      <FormError message={revoke.error?.message} />
    </div>
  );
}
