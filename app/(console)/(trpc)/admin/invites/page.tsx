import type { Metadata } from "next";
import { AdminPage, Refused } from "@/components/admin/admin-page";
import { InvitesPanel } from "@/components/admin/invites-panel";
import { getAdminViewer } from "../../../viewer";

export const metadata: Metadata = { title: "Invites" };

export default async function InvitesPage() {
  const { allowed, active } = await getAdminViewer("/admin/invites");
  return (
    <AdminPage title="Invites" intro="Invite people by email as member or admin.">
      {allowed ? <InvitesPanel /> : <Refused message={`Only admins of ${active?.tenant.name ?? "a workspace"} can see this page.`} />}
    </AdminPage>
  );
}
