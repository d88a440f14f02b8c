import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { AdminPage } from "@/components/admin/admin-page";
import { RunView } from "@/components/runs/run-view";

export const metadata: Metadata = { title: "Run" };

export default async function RunPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  if (!/^[1-9]\d{0,14}$/.test(id)) notFound();
  return (
    <AdminPage title={`Run ${id}`} intro="What started the run, what it cost, and everything it did, in order.">
      <RunView runId={Number(id)} />
    </AdminPage>
  );
}
