"use client";
// Tenant admins' embed secrets: what their backend mints embed tokens with (POST /api/embed/sessions).
// Create one (its full value is shown once: only its hash is stored), rotate (a new one, the old one
// revoked) and revoke.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { CopyOnceField } from "@/components/ui/copy-once-field";
import { FormError, TextField } from "@/components/ui/field";
import { fromTrpcError, noErrors, validate, type FormErrors } from "@/lib/form-errors";
import { createEmbedSecretInput } from "@inlay/core/schemas/embed";
import { useTRPC } from "@/components/trpc/react";
import { card, table, tableScroll, td, th } from "./admin-page";

const when = (value: Date | string | null) => (value ? new Date(value).toLocaleString() : "never");

export function EmbedSecretsPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const secrets = useQuery(trpc.embedSecrets.list.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.embedSecrets.list.queryKey() });
  const create = useMutation(trpc.embedSecrets.create.mutationOptions({ onSuccess: refresh }));
  const rotate = useMutation(trpc.embedSecrets.rotate.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(trpc.embedSecrets.revoke.mutationOptions({ onSuccess: refresh }));
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const [shown, setShown] = useState<{ name: string; secret: string }>();

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const checked = validate(createEmbedSecretInput, { name: String(new FormData(formElement).get("name") ?? "") });
    if (checked.errors) return setErrors(checked.errors);
    setErrors(noErrors);
    try {
      const created = await create.mutateAsync(checked.data);
      setShown({ name: created.name, secret: created.secret });
      formElement.reset();
    } catch (error) {
      setErrors(fromTrpcError(error));
    }
  }

  async function onRotate(id: string) {
    try {
      const { created } = await rotate.mutateAsync({ id });
      setShown({ name: created.name, secret: created.secret });
    } catch (error) {
      setErrors(fromTrpcError(error));
    }
  }

  const live = (secrets.data ?? []).filter((secret) => !secret.revokedAt);
  const revoked = (secrets.data ?? []).filter((secret) => secret.revokedAt);

  return (
    <div className={card}>
      <h2 className="text-lg font-semibold">Embed secrets</h2>
      <p className="mt-1 text-sm text-muted">
        Your backend sends one to <code>POST /api/embed/sessions</code> to get a chat token for a signed-in user of your site. Keep it on the server.
        To rotate without downtime, create a new secret, deploy it, then revoke the old one.
      </p>
      <form onSubmit={onSubmit} className="mt-4 grid gap-3 sm:grid-cols-[1fr_auto] sm:items-start" noValidate aria-label="Create an embed secret">
        <TextField label="Name" name="name" placeholder="Production backend" autoComplete="off" required error={errors.fields.name} />
        <Button type="submit" disabled={create.isPending} className="sm:mt-6">
          {create.isPending ? "Creating…" : "Create secret"}
        </Button>
        <div className="sm:col-span-2">
          <FormError message={errors.form} />
        </div>
      </form>

      {shown && (
        <div className="mt-4 rounded-lg border border-line bg-bg p-4" role="status">
          <p className="text-sm">
            The secret <strong>{shown.name}</strong>, shown only now (Inlay keeps only its hash):
          </p>
          <CopyOnceField value={shown.secret} label="New embed secret" />
        </div>
      )}

      {secrets.isLoading ? (
        <p className="mt-4 text-sm text-muted">Loading…</p>
      ) : live.length === 0 ? (
        <p className="mt-4 text-sm text-muted">No live secret: your backend cannot mint tokens yet.</p>
      ) : (
        <div className={`mt-4 ${tableScroll}`}>
          <table className={table} aria-label="Embed secrets">
            <thead>
              <tr>
                <th className={th}>Name</th>
                <th className={th}>Secret</th>
                <th className={th}>Created</th>
                <th className={th}>Last used</th>
                <th className={th}>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {live.map((secret) => (
                <tr key={secret.id}>
                  <td className={td}>{secret.name}</td>
                  <td className={`${td} font-mono text-xs`}>{secret.prefix}…</td>
                  <td className={td}>{when(secret.createdAt)}</td>
                  <td className={td}>{when(secret.lastUsedAt)}</td>
                  <td className={`${td} whitespace-nowrap text-right`}>
                    <Button type="button" variant="ghost" disabled={rotate.isPending} onClick={() => void onRotate(secret.id)} aria-label={`Rotate ${secret.name}`}>
                      Rotate
                    </Button>
                    <Button
                      type="button"
                      variant="ghost"
                      disabled={revoke.isPending}
                      onClick={() => revoke.mutate({ id: secret.id }, { onError: (error) => setErrors(fromTrpcError(error)) })}
                      aria-label={`Revoke ${secret.name}`}
                    >
                      Revoke
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {revoked.length > 0 && (
        <p className="mt-3 text-xs text-muted">
          Revoked: {revoked.map((secret) => `${secret.name} (${secret.prefix}…, ${when(secret.revokedAt)})`).join("; ")}
        </p>
      )}
    </div>
  );
}
