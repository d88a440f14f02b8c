import type { ReactNode } from "react";
import { TRPCReactProvider } from "@/components/trpc/react";
import { getViewer } from "../viewer";

// The console pages that read through tRPC and TanStack Query (the chat, outside this group, uses
// neither). Keyed by the active tenant: switching tenants (the header's switcher refreshes the
// route) starts a fresh query cache, so nothing of the previous tenant is shown.
export default async function TrpcPagesLayout({ children }: { children: ReactNode }) {
  const { active } = await getViewer("/");
  return <TRPCReactProvider key={active?.tenant.slug ?? ""}>{children}</TRPCReactProvider>;
}
