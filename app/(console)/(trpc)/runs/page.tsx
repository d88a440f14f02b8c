import type { Metadata } from "next";
import { AdminPage } from "@/components/admin/admin-page";
import { RunsList } from "@/components/runs/runs-list";

export const metadata: Metadata = { title: "Runs" };

export default async function RunsPage({ searchParams }: { searchParams: Promise<{ member?: string | string[] }> }) {
  const { member } = await searchParams;
  return (
    <AdminPage title="Runs" intro="Every run with its status and cost; open one to see what it did.">
      <RunsList memberId={typeof member === "string" && member ? member : undefined} />
    </AdminPage>
  );
}
