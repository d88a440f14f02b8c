"use client";
// The invite link's page: who invited the visitor where; then either join as the signed-in user, sign
// in first (the email has an account), or create the account with the invited email.
import { useMutation, useQuery } from "@tanstack/react-query";
import { signIn, signOut } from "next-auth/react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { z } from "zod";
import { Button } from "@/components/ui/button";
import { FormError, TextField } from "@/components/ui/field";
import { fromTrpcError, noErrors, validate, type FormErrors } from "@/lib/form-errors";
import { passwordSchema, personNameSchema } from "@inlay/core/schemas/tenancy";
import { useTRPC } from "@/components/trpc/react";

const accountForm = z.object({ name: personNameSchema, password: passwordSchema });

export function AcceptInvite({
  token,
  signedInAs,
  oauthProviders,
}: {
  token: string;
  signedInAs: string | null;
  oauthProviders: { id: string; name: string }[];
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const invite = useQuery({ ...trpc.invites.get.queryOptions({ token }), retry: false });
  const accept = useMutation(trpc.invites.accept.mutationOptions());
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const here = `/invite/${token}`;

  if (invite.isPending) return <div className="h-40 animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading" />;
  if (invite.isError) {
    return (
      <>
        <h1 className="text-xl font-semibold">Invite not found</h1>
        <p role="alert" className="mt-2 text-sm text-danger">
          This invite link is not valid. Ask your workspace admin for a new one.
        </p>
      </>
    );
  }

  const { tenant, email, role, status, accountExists } = invite.data;
  const heading = (
    <>
      <h1 className="text-xl font-semibold">Join {tenant.name}</h1>
      <p className="mt-1 text-sm text-muted">
        You are invited as <strong>{role}</strong> with <strong>{email}</strong>.
      </p>
    </>
  );

  if (status !== "open") {
    const why = { accepted: "has already been used", revoked: "was revoked", expired: "has expired" }[status];
    return (
      <>
        {heading}
        <p role="alert" className="mt-4 text-sm text-danger">
          This invite {why}. Ask your workspace admin for a new one.
        </p>
      </>
    );
  }

  async function join() {
    setErrors(noErrors);
    try {
      await accept.mutateAsync({ token });
    } catch (error) {
      return setErrors(fromTrpcError(error));
    }
    router.replace("/");
    router.refresh();
  }

  async function createAccount(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const checked = validate(accountForm, { name: String(form.get("name") ?? ""), password: String(form.get("password") ?? "") });
    if (checked.errors) return setErrors(checked.errors);
    setErrors(noErrors);
    try {
      await accept.mutateAsync({ token, account: checked.data });
    } catch (error) {
      return setErrors(fromTrpcError(error));
    }
    const result = await signIn("credentials", { email, password: checked.data.password, redirect: false });
    if (!result || result.error) return router.replace("/signin");
    router.replace("/");
    router.refresh();
  }

  if (signedInAs) {
    if (signedInAs.toLowerCase() !== email) {
      return (
        <>
          {heading}
          <p className="mt-4 text-sm">
            You are signed in as {signedInAs}. Sign out, then open this link again and sign in as {email}.
          </p>
          <Button variant="ghost" className="mt-4" onClick={() => void signOut({ callbackUrl: here })}>
            Sign out
          </Button>
        </>
      );
    }
    return (
      <>
        {heading}
        <div className="mt-6 space-y-4">
          <FormError message={errors.form} />
          <Button onClick={() => void join()} disabled={accept.isPending} className="w-full">
            {accept.isPending ? "Joining…" : `Join ${tenant.name}`}
          </Button>
        </div>
      </>
    );
  }

  if (accountExists) {
    return (
      <>
        {heading}
        <p className="mt-4 text-sm">An account for {email} exists. Sign in to accept.</p>
        <Link
          href={`/signin?callbackUrl=${encodeURIComponent(here)}`}
          className="mt-4 inline-flex h-10 w-full items-center justify-center rounded-lg bg-accent px-4 text-sm font-medium text-accent-fg shadow-sm hover:opacity-90"
        >
          Sign in to accept
        </Link>
      </>
    );
  }

  return (
    <>
      {heading}
      <form onSubmit={createAccount} className="mt-6 space-y-4" noValidate>
        <TextField label="Your name" name="name" autoComplete="name" required error={errors.fields.name} />
        <TextField
          label="Choose a password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          hint="At least 10 characters."
          error={errors.fields.password}
        />
        <FormError message={errors.form} />
        <Button type="submit" disabled={accept.isPending} className="w-full">
          {accept.isPending ? "Joining…" : "Create account and join"}
        </Button>
      </form>
      {oauthProviders.length > 0 ? (
        <div className="mt-4 space-y-2">
          {oauthProviders.map((provider) => (
            <Button key={provider.id} variant="ghost" className="w-full border border-line" onClick={() => void signIn(provider.id, { callbackUrl: here })}>
              Continue with {provider.name}
            </Button>
          ))}
        </div>
      ) : null}
    </>
  );
}
