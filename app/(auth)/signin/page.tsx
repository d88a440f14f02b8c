import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { Logo } from "@/components/ui/logo";
import { demoAccountsToShow } from "@/server/framework/auth/demo-accounts";
import { enabledOAuthProviders } from "@/server/framework/auth/options";
import { getSession } from "@/server/framework/auth/session";
import { getDb } from "@/server/shared/db";
import { getSignUpMode } from "@/server/framework/tenancy/sign-ups";
import { SignInForm } from "./sign-in-form";

export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{ callbackUrl?: string; error?: string }>;
}) {
  const { callbackUrl, error } = await searchParams;
  // Only same-site paths: a callback URL to another origin would be an open redirect (browsers read
  // "/\host" as "//host").
  const target = callbackUrl && /^\/(?![/\\])/.test(callbackUrl) ? callbackUrl : "/";
  if (await getSession()) redirect(target);
  const signUpMode = await getSignUpMode((await getDb()).prisma);
  const demo = demoAccountsToShow();
  return (
    <main className="grid min-h-screen place-items-center px-4">
      <div className="w-full max-w-sm">
        <Logo className="mb-8 text-xl" />
        <div className="rounded-card border border-line bg-surface p-8 shadow-sm">
          <h1 className="text-xl font-semibold">Sign in</h1>
          <p className="mt-1 text-sm text-muted">Welcome back. Use your work email.</p>
          <SignInForm
            callbackUrl={target}
            initialError={error ? "That email and password do not match." : undefined}
            oauthProviders={enabledOAuthProviders}
          />
        </div>
        {demo ? (
          <section aria-labelledby="demo-accounts" className="mt-6 rounded-card border border-dashed border-line p-4 text-sm" data-testid="demo-accounts">
            <h2 id="demo-accounts" className="font-medium">
              Demo accounts (development)
            </h2>
            <p className="mt-1 text-muted">
              Each has the password <code>{demo.password}</code>.
            </p>
            <ul className="mt-2 space-y-1">
              {demo.accounts.map((account) => (
                <li key={account.email}>
                  <code>{account.email}</code> <span className="text-muted">{account.role}</span>
                </li>
              ))}
            </ul>
          </section>
        ) : null}
        {signUpMode === "closed" ? null : (
          <p className="mt-6 text-center text-sm text-muted">
            New here?{" "}
            <Link href="/signup" className="font-medium text-accent hover:underline">
              Create a workspace
            </Link>
          </p>
        )}
      </div>
    </main>
  );
}
