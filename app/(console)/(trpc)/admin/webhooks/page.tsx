import type { Metadata } from "next";
import { AdminPage, Refused } from "@/components/admin/admin-page";
import { WebhooksPanel } from "@/components/admin/webhooks-panel";
import { getViewer } from "../../../viewer";

export const metadata: Metadata = { title: "Webhooks" };

export default async function WebhooksPage() {
  const { isOwner } = await getViewer("/admin/webhooks");
  return (
    <AdminPage
      title="Webhooks"
      intro="Endpoints that receive this installation's run events, signed with their secret (Standard Webhooks), and every delivery attempt."
    >
      {isOwner ? <WebhooksPanel /> : <Refused message="Only the installation owner can see this page." />}
    </AdminPage>
  );
}
