import type { Metadata } from "next";
import { AdminPage, Refused } from "@/components/admin/admin-page";
import { TenantUsage } from "@/components/quota/tenant-usage";
import { getAdminViewer } from "../../../viewer";

export const metadata: Metadata = { title: "Usage" };

export default async function UsagePage() {
  const { allowed, active } = await getAdminViewer("/admin/usage");
  return (
    <AdminPage title="Usage" intro="Each member's runs, cost and tokens this month, and tokens per day.">
      {allowed ? <TenantUsage /> : <Refused message={`Only admins of ${active?.tenant.name ?? "a workspace"} can see this page.`} />}
    </AdminPage>
  );
}
