import type { Metadata } from "next";
import { WorkspaceOverview } from "@/components/console/workspace-overview";

export const metadata: Metadata = { title: "Console" };

export default function ConsoleHome() {
  return <WorkspaceOverview />;
}
