import type { Metadata } from "next";
import { AdminPage, Refused } from "@/components/admin/admin-page";
import { SignUpsPanel } from "@/components/admin/sign-ups-panel";
import { TenantsPanel } from "@/components/admin/tenants-panel";
import { getViewer } from "../../../viewer";

export const metadata: Metadata = { title: "Tenants" };

export default async function TenantsPage() {
  const { isOwner } = await getViewer("/admin/tenants");
  return (
    <AdminPage title="Tenants" intro="Who may sign up, and every tenant of this installation with its limits. Empty means no limit.">
      {isOwner ? (
        <>
          <SignUpsPanel />
          <TenantsPanel />
        </>
      ) : (
        <Refused message="Only the installation owner can see this page." />
      )}
    </AdminPage>
  );
}
