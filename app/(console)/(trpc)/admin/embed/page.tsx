import type { Metadata } from "next";
import { headers } from "next/headers";
import { AdminPage, Refused } from "@/components/admin/admin-page";
import { EmbedSettings } from "@/components/chat/embed-settings";
import { env } from "@/lib/env";
import { getAdminViewer } from "../../../viewer";

export const metadata: Metadata = { title: "Embed" };

export default async function EmbedAdminPage() {
  const { allowed, active } = await getAdminViewer("/admin/embed");
  const requestHeaders = await headers();
  const host = requestHeaders.get("x-forwarded-host") ?? requestHeaders.get("host") ?? "localhost:3000";
  const appOrigin = env.NEXTAUTH_URL ? new URL(env.NEXTAUTH_URL).origin : `${requestHeaders.get("x-forwarded-proto") ?? "http"}://${host}`;
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
