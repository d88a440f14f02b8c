import type { ReactNode } from "react";
import { ConsoleNav } from "@/components/console/console-nav";
import { SignOutButton } from "@/components/console/sign-out-button";
import { TenantSwitcher } from "@/components/console/tenant-switcher";
import { Logo } from "@/components/ui/logo";
import { getViewer } from "./viewer";

// Every page in (console) needs a signed-in user.
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const { session, memberships, active, isOwner } = await getViewer("/");
  const links = [
    { href: "/", label: "Overview" },
    // Chat opens the full chat page (app/chat/route.ts) with the member's first agent.
    ...(active ? [{ href: "/chat", label: "Chat", document: true }, { href: "/agents", label: "Agents" }, { href: "/schedules", label: "Schedules" }, { href: "/runs", label: "Runs" }, { href: "/connections", label: "Connections" }, { href: "/memories", label: "Memories" }, { href: "/permissions", label: "Permissions" }] : []),
    ...(active?.role === "admin"
      ? [
          { href: "/admin/members", label: "Members" },
          { href: "/admin/invites", label: "Invites" },
          { href: "/admin/caps", label: "Caps" },
          { href: "/admin/usage", label: "Usage" },
          { href: "/admin/apps", label: "Apps" },
          { href: "/admin/tools", label: "Tools" },
          { href: "/admin/embed", label: "Embed" },
        ]
      : []),
    ...(isOwner
      ? [
          { href: "/admin/tenants", label: "Tenants" },
          { href: "/admin/billing", label: "Billing" },
          { href: "/admin/webhooks", label: "Webhooks" },
        ]
      : []),
  ];
  return (
    <div className="min-h-screen">
      {/* Two rows: who and where on top, the pages below. One row overflowed at 1280 px once an admin
          with several workspaces had every link and the switcher in it. On a phone the pages fold
          into a menu (ConsoleNav). */}
      <header className="border-b border-line bg-surface">
        <div className="mx-auto flex h-14 max-w-6xl items-center justify-between gap-3 px-4 sm:gap-6 sm:px-6">
          <Logo />
          <div className="flex min-w-0 items-center gap-3 text-sm">
            <TenantSwitcher
              tenants={memberships.map((membership) => membership.tenant)}
              activeSlug={active?.tenant.slug ?? null}
            />
            <span className="truncate text-muted" data-testid="signed-in-as">
              {session.user.email}
            </span>
            <SignOutButton />
          </div>
        </div>
        <ConsoleNav links={links} />
      </header>
      <main className="mx-auto max-w-6xl px-4 py-8 sm:px-6 sm:py-10">{children}</main>
    </div>
  );
}
