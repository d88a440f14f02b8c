import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { Logo } from "@/components/ui/logo";
import { getSession } from "@/server/framework/auth/session";
import { getDb } from "@/server/shared/db";
import { SIGN_UP_CLOSED, getSignUpMode } from "@/server/framework/tenancy/sign-ups";
import { SignUpForm } from "./sign-up-form";

export const metadata: Metadata = { title: "Create your workspace" };

export default async function SignUpPage({ searchParams }: { searchParams: Promise<{ status?: string }> }) {
  if (await getSession()) redirect("/");
  const [{ status }, { prisma }] = await Promise.all([searchParams, getDb()]);
  const mode = await getSignUpMode(prisma);
  return (
    <main className="grid min-h-screen place-items-center px-4">
      <div className="w-full max-w-sm">
        <Logo className="mb-8 text-xl" />
        <div className="rounded-card border border-line bg-surface p-8 shadow-sm">
          <h1 className="text-xl font-semibold">Create your workspace</h1>
          {status === "pending" ? (
            // A first OAuth sign-in held for approval lands here (server/framework/auth/options.ts).
            <p role="status" className="mt-4 text-sm">
              Your sign-up is waiting for the owner&apos;s approval. You can sign in once it is approved.
            </p>
          ) : mode === "closed" || status === "closed" ? (
            <p role="alert" className="mt-4 text-sm">
              {SIGN_UP_CLOSED}
            </p>
          ) : (
            <>
              <p className="mt-1 text-sm text-muted">
                {mode === "approval"
                  ? "The installation's owner approves new workspaces; you can sign in once yours is approved."
                  : "You will be its admin and can invite your team."}
              </p>
              <SignUpForm />
            </>
          )}
        </div>
        <p className="mt-6 text-center text-sm text-muted">
          Already have an account?{" "}
          <Link href="/signin" className="font-medium text-accent hover:underline">
            Sign in
          </Link>
        </p>
      </div>
    </main>
  );
}
