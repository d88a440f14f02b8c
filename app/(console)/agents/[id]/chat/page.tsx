import type { Metadata } from "next";
import { AgentChat } from "@/components/console/agent-chat";
import { QuotaMeter } from "@/components/quota/quota-meter";

export const metadata: Metadata = { title: "Chat" };

export default async function ChatPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <div className="grid gap-8 lg:grid-cols-[1fr_18rem]">
      <AgentChat agentId={id} />
      <aside aria-label="Quota">
        <QuotaMeter />
      </aside>
    </div>
  );
}
