import type { Metadata } from "next";
import { AdminPage, Refused } from "@/components/admin/admin-page";
import { EmbedSettings } from "@/components/chat/embed-settings";
import { publicOrigin } from "@/server/shared/public-origin";
import { getAdminViewer } from "../../../viewer";

export const metadata: Metadata = { title: "Embed" };

export default async function EmbedAdminPage() {
  const { allowed, active } = await getAdminViewer("/admin/embed");
  const appOrigin = new URL(publicOrigin()).origin;
  return (
    <AdminPage title="Embed" intro="Put the chat on your own sites.">
      {allowed && active ? (
        <EmbedSettings appOrigin={appOrigin} tenantSlug={active.tenant.slug} />
      ) : (
        <Refused message={`Only admins of ${active?.tenant.name ?? "a workspace"} can see this page.`} />
      )}
    </AdminPage>
  );
}
