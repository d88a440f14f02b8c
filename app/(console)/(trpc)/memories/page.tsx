import type { Metadata } from "next";
import { AdminPage } from "@/components/admin/admin-page";
import { MemoriesPanel } from "@/components/console/member-data-panels";

export const metadata: Metadata = { title: "Memories" };

export default function MemoriesPage() {
  return (
    <AdminPage title="Memories" intro="What your agents in this workspace remember about you. Forget anything you like.">
      <MemoriesPanel />
    </AdminPage>
  );
}
