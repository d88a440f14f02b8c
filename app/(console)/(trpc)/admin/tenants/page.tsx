import type { Metadata } from "next";
import { AdminPage, Refused } from "@/components/admin/admin-page";
import { TenantsPanel } from "@/components/admin/tenants-panel";
import { getViewer } from "../../../viewer";

export const metadata: Metadata = { title: "Tenants" };

export default async function TenantsPage() {
  const { isOwner } = await getViewer("/admin/tenants");
  return (
    <AdminPage title="Tenants" intro="Every tenant of this installation and its limits. Empty means no limit.">
      {isOwner ? <TenantsPanel /> : <Refused message="Only the installation owner can see this page." />}
    </AdminPage>
  );
}
