import type { Metadata } from "next";
import { AdminPage, Refused } from "@/components/admin/admin-page";
import { ToolsPanel } from "@/components/admin/tools-panel";
import { getAdminViewer } from "../../../viewer";

export const metadata: Metadata = { title: "Tools and skills" };

export default async function AdminToolsPage() {
  const { allowed, active } = await getAdminViewer("/admin/tools");
  return (
    <AdminPage
      title="Tools and skills"
      intro="Give your members' agents your own tools (a REST API or a remote MCP server) and playbooks they can force with /name in the chat. Members get them with their next run."
    >
      {allowed ? <ToolsPanel /> : <Refused message={`Only admins of ${active?.tenant.name ?? "a workspace"} can see this page.`} />}
    </AdminPage>
  );
}
