import Link from "next/link";
import type { ReactNode } from "react";
import { SignOutButton } from "@/components/console/sign-out-button";
import { TenantSwitcher } from "@/components/console/tenant-switcher";
import { Logo } from "@/components/ui/logo";
import { getViewer } from "./viewer";

// Every page in (console) needs a signed-in user.
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const { session, memberships, active, isOwner } = await getViewer("/");
  const links = [
    { href: "/", label: "Overview" },
    ...(active ? [{ href: "/agents", label: "Agents" }, { href: "/schedules", label: "Schedules" }, { href: "/connections", label: "Connections" }, { href: "/memories", label: "Memories" }, { href: "/permissions", label: "Permissions" }] : []),
    ...(active?.role === "admin"
      ? [
          { href: "/admin/members", label: "Members" },
          { href: "/admin/invites", label: "Invites" },
          { href: "/admin/caps", label: "Caps" },
          { href: "/admin/usage", label: "Usage" },
          { href: "/admin/schedules", label: "Schedules (all)" },
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
          with several workspaces had every link and the switcher in it. */}
      <header className="border-b border-line bg-surface">
        <div className="mx-auto flex h-14 max-w-6xl items-center justify-between gap-6 px-6">
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
        <nav aria-label="Console" className="mx-auto max-w-6xl overflow-x-auto px-3">
          <ul className="flex items-center gap-1 pb-2 text-sm">
            {links.map((link) => (
              <li key={link.href} className="shrink-0">
                <Link href={link.href} className="block rounded-lg px-3 py-2 text-muted hover:bg-black/5 hover:text-fg">
                  {link.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main className="mx-auto max-w-6xl px-6 py-10">{children}</main>
    </div>
  );
}
