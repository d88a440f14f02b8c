"use client";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";

export function SignInForm({
  callbackUrl,
  initialError,
  oauthProviders = [],
}: {
  callbackUrl: string;
  initialError?: string;
  oauthProviders?: { id: string; name: string }[];
}) {
  const router = useRouter();
  const [error, setError] = useState(initialError);
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(undefined);
    const result = await signIn("credentials", {
      email: String(form.get("email") ?? ""),
      password: String(form.get("password") ?? ""),
      redirect: false,
    });
    setPending(false);
    if (!result || result.error) {
      setError("That email and password do not match.");
      return;
    }
    router.replace(callbackUrl);
    router.refresh();
  }

  const field =
    "mt-1 block h-10 w-full rounded-lg border border-line bg-surface px-3 text-sm outline-none focus:border-accent focus:ring-2 focus:ring-accent/20";
  return (
    <form onSubmit={onSubmit} className="mt-6 space-y-4" noValidate>
      <label className="block text-sm font-medium">
        Email
        <input name="email" type="email" autoComplete="email" required className={field} />
      </label>
      <label className="block text-sm font-medium">
        Password
        <input name="password" type="password" autoComplete="current-password" required className={field} />
      </label>
      {error ? (
        <p role="alert" className="text-sm text-danger">
          {error}
        </p>
      ) : null}
      <Button type="submit" disabled={pending} className="w-full">
        {pending ? "Signing in…" : "Sign in"}
      </Button>
      {oauthProviders.map((provider) => (
        <Button
          key={provider.id}
          type="button"
          variant="ghost"
          className="w-full border border-line"
          onClick={() => void signIn(provider.id, { callbackUrl })}
        >
          Continue with {provider.name}
        </Button>
      ))}
    </form>
  );
}
