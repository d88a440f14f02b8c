import type { Metadata } from "next";
import { AdminPage } from "@/components/admin/admin-page";
import { SchedulesPanel } from "@/components/schedules/schedules-panel";

export const metadata: Metadata = { title: "Schedules" };

export default function SchedulesPage() {
  return (
    <AdminPage title="Schedules" intro="Have your agents do a job on a schedule, in your time zone. Scheduled runs count against your monthly cap.">
      <SchedulesPanel />
    </AdminPage>
  );
}
