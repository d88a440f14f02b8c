import type { Metadata } from "next";
import { AgentChat } from "@/components/console/agent-chat";
import { QuotaMeter } from "@/components/quota/quota-meter";
import { chatStorageScope } from "@/server/framework/chat/storage-scope";
import { getViewer } from "../../../../viewer";

export const metadata: Metadata = { title: "Chat" };

export default async function ChatPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const { session, active } = await getViewer(`/agents/${id}/chat`);
  // Outside a workspace the chat is refused by the bridge; nothing is kept in the browser then.
  const storageScope = active ? chatStorageScope(active.tenant.id, session.user.id) : "";
  return (
    <div className="grid gap-8 lg:grid-cols-[1fr_18rem]">
      <AgentChat agentId={id} storageScope={storageScope} />
      <aside aria-label="Quota" className="space-y-4">
        <QuotaMeter />
        {/* The full chat, a page of its own outside the app router (app/chat/route.ts): a plain link,
            since next/link would prefetch it as an app-router page and navigate to it client-side. */}
        <a href={`/chat?agent=${encodeURIComponent(id)}`} className="block text-sm font-medium text-accent underline-offset-4 hover:underline">
          Open the full chat
        </a>
      </aside>
    </div>
  );
}
