import type { Metadata } from "next";
import { Logo } from "@/components/ui/logo";
import { enabledOAuthProviders } from "@/server/framework/auth/options";
import { getSession } from "@/server/framework/auth/session";
import { AcceptInvite } from "./accept-invite";

export const metadata: Metadata = { title: "Join a workspace" };

export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const session = await getSession();
  return (
    <main className="grid min-h-screen place-items-center px-4">
      <div className="w-full max-w-sm">
        <Logo className="mb-8 text-xl" />
        <div className="rounded-card border border-line bg-surface p-8 shadow-sm">
          <AcceptInvite token={token} signedInAs={session?.user.email ?? null} oauthProviders={enabledOAuthProviders} />
        </div>
      </div>
    </main>
  );
}
