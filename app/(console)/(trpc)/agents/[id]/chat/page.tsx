import type { Metadata } from "next";
import Link from "next/link";
import { AgentChat } from "@/components/console/agent-chat";
import { QuotaMeter } from "@/components/quota/quota-meter";

export const metadata: Metadata = { title: "Chat" };

export default async function ChatPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <div className="grid gap-8 lg:grid-cols-[1fr_18rem]">
      <AgentChat agentId={id} />
      <aside aria-label="Quota" className="space-y-4">
        <QuotaMeter />
        {/* The full chat: streamed text, tool cards, approvals, questions, attachments. */}
        <Link href={`/chat?agent=${encodeURIComponent(id)}`} className="block text-sm font-medium text-accent underline-offset-4 hover:underline">
          Open the full chat
        </Link>
      </aside>
    </div>
  );
}
