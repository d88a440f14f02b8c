import type { Metadata } from "next";
import { AdminPage } from "@/components/admin/admin-page";
import { AgentEditor } from "@/components/agents/agent-editor";

export const metadata: Metadata = { title: "Edit agent" };

export default async function EditAgentPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return (
    <AdminPage title="Edit agent" intro="Members' copies pick up your changes the next time they use the agent.">
      <AgentEditor id={id} />
    </AdminPage>
  );
}
