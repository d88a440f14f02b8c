"use client";
// The agents a member can use: the workspace's (admins define them) and their personal ones (where
// the workspace allows). Admins also define new ones here and set whether members may.
import Link from "next/link";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { card } from "@/components/admin/admin-page";
import { EmptyState } from "@/components/ui/empty-state";
import { FormError } from "@/components/ui/field";
import { useTRPC } from "@/components/trpc/react";
import { AgentForm, emptyAgent } from "./agent-form";

export function AgentsPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const agents = useQuery(trpc.agents.list.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.agents.list.queryKey() });
  const create = useMutation(trpc.agents.create.mutationOptions({ onSuccess: refresh }));
  const allow = useMutation(trpc.agents.setPersonalAllowed.mutationOptions({ onSuccess: refresh }));

  if (agents.isPending) return <div className="h-40 animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading" />;
  if (agents.isError) return <FormError message={`Could not load agents: ${agents.error.message}`} />;
  const { agents: list, canCreateTenant, canCreatePersonal, allowPersonalAgents } = agents.data;
  return (
    <>
      <div className={card}>
        <h2 className="text-lg font-semibold">Agents</h2>
        {list.length === 0 ? (
          <EmptyState title="No agents yet." className="mt-4">
            {canCreateTenant || canCreatePersonal ? "Define one below: a name and what it should do." : "An admin of your workspace defines them."}
          </EmptyState>
        ) : null}
        <ul className="mt-4 divide-y divide-line empty:hidden" aria-label="Agents">
          {list.map((agent) => (
            <li key={agent.id} className="flex flex-wrap items-center justify-between gap-3 py-3" data-testid="agent-row">
              <div>
                <span className="font-medium">{agent.name}</span>{" "}
                <span className="text-xs text-muted">{agent.scope === "tenant" ? "workspace agent" : "personal"}</span>
              </div>
              <div className="flex gap-2 text-sm">
                <Link href={`/agents/${agent.id}/chat`} className="rounded-lg bg-accent px-3 py-2 text-accent-fg">
                  Chat with {agent.name}
                </Link>
                {agent.canEdit ? (
                  <Link href={`/agents/${agent.id}`} className="rounded-lg px-3 py-2 hover:bg-fg/5">
                    Edit {agent.name}
                  </Link>
                ) : null}
              </div>
            </li>
          ))}
        </ul>
      </div>
      {canCreateTenant || canCreatePersonal ? (
        <div className={card}>
          <h2 className="text-lg font-semibold">{canCreateTenant ? "Define a workspace agent" : "Create a personal agent"}</h2>
          <p className="mb-4 mt-1 text-sm text-muted">
            {canCreateTenant
              ? "Every member gets their own copy, with their own memory and history, kept in step with your edits."
              : "Only you can see and use it."}
          </p>
          <AgentForm
            initial={emptyAgent}
            submitLabel="Create agent"
            pending={create.isPending}
            resetOnSave
            onSave={(agent) => create.mutateAsync({ scope: canCreateTenant ? "tenant" : "personal", agent })}
          />
        </div>
      ) : null}
      {canCreateTenant ? (
        <div className={card}>
          <label className="flex items-center gap-2 text-sm">
            <input
              type="checkbox"
              checked={allowPersonalAgents}
              disabled={allow.isPending}
              onChange={(event) => allow.mutate({ allow: event.target.checked })}
            />
            Members may create personal agents
          </label>
        </div>
      ) : null}
    </>
  );
}
