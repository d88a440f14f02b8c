import type { Metadata } from "next";
import { AdminPage, Refused } from "@/components/admin/admin-page";
import { MembersPanel } from "@/components/admin/members-panel";
import { getAdminViewer } from "../../../viewer";

export const metadata: Metadata = { title: "Members" };

export default async function MembersPage() {
  const { allowed, active } = await getAdminViewer("/admin/members");
  return (
    <AdminPage title="Members" intro="Who belongs to this workspace, and their role.">
      {allowed ? <MembersPanel /> : <Refused message={`Only admins of ${active?.tenant.name ?? "a workspace"} can see this page.`} />}
    </AdminPage>
  );
}
