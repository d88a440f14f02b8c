"use client";
// The console's chat with one of the member's agents: <InlayChat> on React inside an app-router page,
// the way a vendor puts it in their own Next pages (docs/embedding.md). The agent's name heads it, or
// the page says there is no such agent (another tenant's, or none). After each turn the quota meter
// beside it is refreshed (usage.mine invalidated), so it moves at once.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { InlayChat, InlayProvider } from "@inlay/react";
import "@inlay/react/styles.css";
import { FormError } from "@/components/ui/field";
import { useTRPC } from "@/components/trpc/react";

export function AgentChat({ agentId, storageScope }: { agentId: string; storageScope: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const agent = useQuery(trpc.agents.get.queryOptions({ id: agentId }));
  const refreshQuota = useCallback(() => void queryClient.invalidateQueries({ queryKey: trpc.usage.mine.queryKey() }), [queryClient, trpc]);

  return (
    <section aria-labelledby="chat-title" className="space-y-4">
      <h1 id="chat-title" className="text-3xl font-semibold tracking-tight">
        {agent.data ? `Chat with ${agent.data.name}` : "Chat"}
      </h1>
      {agent.isError ? <FormError message="No such agent." /> : null}
      {agent.isPending ? <div className="h-[36rem] animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading the chat" /> : null}
      {agent.data ? (
        <div className="h-[36rem]">
          <InlayProvider storageScope={storageScope}>
            <InlayChat agent={agentId} chatId={`agent-page-${agentId}`} title={agent.data.name} onTurnEnd={refreshQuota} />
          </InlayProvider>
        </div>
      ) : null}
    </section>
  );
}
