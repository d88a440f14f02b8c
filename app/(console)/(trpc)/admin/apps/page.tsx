import type { Metadata } from "next";
import { AdminPage, Refused } from "@/components/admin/admin-page";
import { TenantAppsPanel } from "@/components/connections/tenant-apps-panel";
import { getAdminViewer } from "../../../viewer";

export const metadata: Metadata = { title: "Apps" };

export default async function AdminAppsPage() {
  const { allowed, active } = await getAdminViewer("/admin/apps");
  return (
    <AdminPage title="Apps" intro="Choose the apps your members may connect their accounts of, and see who is connected. Tokens stay on the platform.">
      {allowed ? <TenantAppsPanel /> : <Refused message={`Only admins of ${active?.tenant.name ?? "a workspace"} can see this page.`} />}
    </AdminPage>
  );
}
