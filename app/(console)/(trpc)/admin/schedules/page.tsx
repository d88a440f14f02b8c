import type { Metadata } from "next";
import { AdminPage, Refused } from "@/components/admin/admin-page";
import { TenantSchedulesPanel } from "@/components/schedules/schedules-panel";
import { getAdminViewer } from "../../../viewer";

export const metadata: Metadata = { title: "Members' schedules" };

export default async function AdminSchedulesPage() {
  const { allowed, active } = await getAdminViewer("/admin/schedules");
  return (
    <AdminPage title="Members' schedules" intro="Every member's schedules, read-only. The cap on active schedules is on the Caps page.">
      {allowed ? <TenantSchedulesPanel /> : <Refused message={`Only admins of ${active?.tenant.name ?? "a workspace"} can see this page.`} />}
    </AdminPage>
  );
}
