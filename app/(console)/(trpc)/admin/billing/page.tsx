import type { Metadata } from "next";
import { AdminPage, Refused } from "@/components/admin/admin-page";
import { BillingPanel } from "@/components/admin/billing-panel";
import { getViewer } from "../../../viewer";

export const metadata: Metadata = { title: "Billing" };

export default async function BillingPage() {
  const { isOwner } = await getViewer("/admin/billing");
  return (
    <AdminPage title="Billing" intro="The installation's platform account: its balance, top-ups, plan and receipts, and what each tenant spends.">
      {isOwner ? <BillingPanel /> : <Refused message="Only the installation owner can see this page." />}
    </AdminPage>
  );
}
