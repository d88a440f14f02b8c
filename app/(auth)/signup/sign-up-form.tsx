"use client";
import { useMutation } from "@tanstack/react-query";
import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { FormError, TextField } from "@/components/ui/field";
import { fromTrpcError, noErrors, validate, type FormErrors } from "@/lib/form-errors";
import { signUpInput } from "@inlay/core/schemas/tenancy";
import { useTRPC } from "@/components/trpc/react";

export function SignUpForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const [pendingApproval, setPendingApproval] = useState(false);
  const signUp = useMutation(trpc.accounts.create.mutationOptions());

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const checked = validate(signUpInput, {
      name: String(form.get("name") ?? ""),
      email: String(form.get("email") ?? ""),
      password: String(form.get("password") ?? ""),
      tenantName: String(form.get("tenantName") ?? ""),
    });
    if (checked.errors) return setErrors(checked.errors);
    setErrors(noErrors);
    try {
      // Held for the owner's approval: nothing to sign in to yet.
      if ((await signUp.mutateAsync(checked.data)).status === "pending") return setPendingApproval(true);
    } catch (error) {
      return setErrors(fromTrpcError(error));
    }
    const result = await signIn("credentials", { email: checked.data.email, password: checked.data.password, redirect: false });
    if (!result || result.error) return setErrors({ fields: {}, form: "Your account was created, but signing in failed. Sign in again." });
    router.replace("/");
    router.refresh();
  }

  if (pendingApproval) {
    return (
      <p role="status" className="mt-6 text-sm">
        Thanks! Your sign-up is waiting for the owner&apos;s approval. You can sign in once it is approved.
      </p>
    );
  }

  return (
    <form onSubmit={onSubmit} className="mt-6 space-y-4" noValidate>
      <TextField label="Your name" name="name" autoComplete="name" required error={errors.fields.name} />
      <TextField label="Work email" name="email" type="email" autoComplete="email" required error={errors.fields.email} />
      <TextField
        label="Password"
        name="password"
        type="password"
        autoComplete="new-password"
        required
        hint="At least 10 characters."
        error={errors.fields.password}
      />
      <TextField label="Workspace name" name="tenantName" autoComplete="organization" required error={errors.fields.tenantName} />
      <FormError message={errors.form} />
      <Button type="submit" disabled={signUp.isPending} className="w-full">
        {signUp.isPending ? "Creating…" : "Create workspace"}
      </Button>
    </form>
  );
}
