import type { Metadata } from "next";
import Link from "next/link";
import { AdminPage } from "@/components/admin/admin-page";
import { SchedulesPanel } from "@/components/schedules/schedules-panel";
import { getViewer } from "../../viewer";

export const metadata: Metadata = { title: "Schedules" };

export default async function SchedulesPage() {
  const { active } = await getViewer("/schedules");
  return (
    <AdminPage title="Schedules" intro="Have your agents do a job on a schedule, in your time zone. Scheduled runs count against your monthly cap.">
      {/* The nav has one Schedules entry; an admin reaches everyone's from here. */}
      {active?.role === "admin" ? (
        <p className="text-sm">
          <Link href="/admin/schedules" className="font-medium text-accent underline-offset-4 hover:underline">
            Every member&apos;s schedules
          </Link>
        </p>
      ) : null}
      <SchedulesPanel />
    </AdminPage>
  );
}
