// /chat: the signed-in member's chat with an agent (?agent=<name or id>, ?mode=approval|plan|autonomous).
import type { Metadata } from "next";
import { InlayChat, InlayProvider } from "@/components/chat";

export const metadata: Metadata = { title: "Chat" };

const MODES = ["autonomous", "approval", "plan"] as const;

export default async function ChatPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const query = await searchParams;
  const agent = typeof query.agent === "string" && query.agent.trim() ? query.agent.trim().slice(0, 255) : "Assistant";
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
