import type { Metadata } from "next";
import { AdminPage } from "@/components/admin/admin-page";
import { AgentsPanel } from "@/components/agents/agents-panel";
import { QuotaMeter } from "@/components/quota/quota-meter";

export const metadata: Metadata = { title: "Agents" };

export default function AgentsPage() {
  return (
    <AdminPage title="Agents" intro="Your workspace's agents. Each member chats with their own copy.">
      <QuotaMeter />
      <AgentsPanel />
    </AdminPage>
  );
}
