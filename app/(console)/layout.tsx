import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { SignOutButton } from "@/components/console/sign-out-button";
import { Logo } from "@/components/ui/logo";
import { getSession } from "@/server/auth/session";

// Every page in (console) needs a signed-in user.
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const session = await getSession();
  if (!session) redirect("/signin?callbackUrl=/");
  return (
    <div className="min-h-screen">
      <header className="border-b border-line bg-surface">
        <div className="mx-auto flex h-16 max-w-6xl items-center justify-between px-6">
          <Logo />
          <div className="flex items-center gap-3 text-sm">
            <span className="text-muted" data-testid="signed-in-as">
              {session.user.email}
            </span>
            <SignOutButton />
          </div>
        </div>
      </header>
      <main className="mx-auto max-w-6xl px-6 py-10">{children}</main>
    </div>
  );
}
