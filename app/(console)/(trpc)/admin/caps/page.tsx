import type { Metadata } from "next";
import { AdminPage, Refused } from "@/components/admin/admin-page";
import { CapsPanel } from "@/components/admin/caps-panel";
import { getAdminViewer } from "../../../viewer";

export const metadata: Metadata = { title: "Caps" };

export default async function CapsPage() {
  const { allowed, active } = await getAdminViewer("/admin/caps");
  return (
    <AdminPage title="Caps" intro="Monthly caps per member, within the workspace's limits.">
      {allowed ? <CapsPanel /> : <Refused message={`Only admins of ${active?.tenant.name ?? "a workspace"} can see this page.`} />}
    </AdminPage>
  );
}
