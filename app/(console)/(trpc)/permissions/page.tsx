import type { Metadata } from "next";
import { AdminPage } from "@/components/admin/admin-page";
import { GrantsPanel } from "@/components/console/member-data-panels";

export const metadata: Metadata = { title: "Permissions" };

export default function PermissionsPage() {
  return (
    <AdminPage title="Permissions" intro="Tools you told your agents they may always use without asking.">
      <GrantsPanel />
    </AdminPage>
  );
}
