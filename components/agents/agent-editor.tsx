"use client";
// Edit one agent (admins: the workspace's; members: their personal ones). Saving bumps its version;
// members' copies catch up on their next use.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { card } from "@/components/admin/admin-page";
import { FormError } from "@/components/ui/field";
import { useTRPC } from "@/components/trpc/react";
import type { TenantAgentInput } from "@inlay/core/schemas/console";
import { AgentForm } from "./agent-form";

export function AgentEditor({ id }: { id: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const agent = useQuery(trpc.agents.get.queryOptions({ id }));
  const update = useMutation(
    trpc.agents.update.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.agents.pathKey() }) }),
  );
  if (agent.isPending) return <div className="h-40 animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading" />;
  if (agent.isError) return <FormError message={agent.error.message === "no such agent" ? "No such agent." : agent.error.message} />;
  const { name, instructions, model, permissionMode, tools, canEdit, version } = agent.data;
  if (!canEdit) return <FormError message="Only the workspace's admins change this agent." />;
  return (
    <div className={card}>
      <p className="mb-4 text-sm text-muted">Version {version}</p>
      <AgentForm
        key={version}
        initial={{ name, instructions, model, permissionMode, tools: tools as TenantAgentInput["tools"] }}
        submitLabel="Save agent"
        pending={update.isPending}
        onSave={(fields) => update.mutateAsync({ id, agent: fields })}
      />
    </div>
  );
}
