import type { Metadata } from "next";
import { Suspense } from "react";
import { AdminPage } from "@/components/admin/admin-page";
import { ConnectionsPanel } from "@/components/connections/connections-panel";

export const metadata: Metadata = { title: "Connections" };

export default function ConnectionsPage() {
  return (
    <AdminPage
      title="Connections"
      intro="Connect your own accounts of the apps your workspace offers, so your agents can use them on your behalf. You can disconnect at any time."
    >
      {/* The panel reads the redirect fallback's outcome from the query string. */}
      <Suspense>
        <ConnectionsPanel />
      </Suspense>
    </AdminPage>
  );
}
