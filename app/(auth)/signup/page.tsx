import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { Logo } from "@/components/ui/logo";
import { getSession } from "@/server/auth/session";
import { SignUpForm } from "./sign-up-form";

export const metadata: Metadata = { title: "Create your workspace" };

export default async function SignUpPage() {
  if (await getSession()) redirect("/");
  return (
    <main className="grid min-h-screen place-items-center px-4">
      <div className="w-full max-w-sm">
        <Logo className="mb-8 text-xl" />
        <div className="rounded-card border border-line bg-surface p-8 shadow-sm">
          <h1 className="text-xl font-semibold">Create your workspace</h1>
          <p className="mt-1 text-sm text-muted">You will be its admin and can invite your team.</p>
          <SignUpForm />
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
