// /chat: the signed-in member's chat with an agent (?agent=<tenant agent id or name>, ?mode=approval|plan|autonomous).
import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { InlayChat, InlayProvider } from "@/components/chat";

export const metadata: Metadata = { title: "Chat" };

const MODES = ["autonomous", "approval", "plan"] as const;

export default async function ChatPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const query = await searchParams;
  // Without an agent there is nothing to chat with: the agents page lists the member's.
  if (typeof query.agent !== "string" || !query.agent.trim()) redirect("/agents");
  const agent = query.agent.trim().slice(0, 255);
  const mode = MODES.find((each) => each === query.mode);
  return (
    <InlayProvider>
      <div className="h-[calc(100vh-12rem)] min-h-[28rem]">
        <InlayChat
          agent={agent}
          chatId={`console-${agent}-${mode ?? "default"}`}
          permissionMode={mode}
          subtitle="Your AI teammate"
          suggestions={["What can you do for me?", "Summarise my open tasks", "Draft a reply to a customer"]}
        />
      </div>
    </InlayProvider>
  );
}
