"use client";
// Tenant admins: invite by email as member or admin, copy the new link (shown once: only its hash is
// stored), see open invites and revoke them.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { CopyOnceField } from "@/components/ui/copy-once-field";
import { FormError, SelectField, TextField } from "@/components/ui/field";
import { fromTrpcError, noErrors, validate, type FormErrors } from "@/lib/form-errors";
import { createInviteInput } from "@inlay/core/schemas/tenancy";
import { useTRPC } from "@/components/trpc/react";
import { card, table, tableScroll, td, th } from "./admin-page";

export function InvitesPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const invites = useQuery(trpc.invites.list.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.invites.list.queryKey() });
  const create = useMutation(trpc.invites.create.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(trpc.invites.revoke.mutationOptions({ onSuccess: refresh }));
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const [created, setCreated] = useState<{ email: string; link: string }>();

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const checked = validate(createInviteInput, { email: String(form.get("email") ?? ""), role: String(form.get("role") ?? "member") });
    if (checked.errors) return setErrors(checked.errors);
    setErrors(noErrors);
    try {
      const result = await create.mutateAsync(checked.data);
      setCreated({ email: result.invite.email, link: result.link });
      formElement.reset();
    } catch (error) {
      setErrors(fromTrpcError(error));
    }
  }

  return (
    <>
      <form onSubmit={onSubmit} className={`${card} grid gap-4 sm:grid-cols-[1fr_12rem_auto] sm:items-start`} noValidate aria-label="Invite someone">
        <TextField label="Email" name="email" type="email" autoComplete="off" required error={errors.fields.email} />
        <SelectField label="Role" name="role" defaultValue="member" error={errors.fields.role}>
          <option value="member">member</option>
          <option value="admin">admin</option>
        </SelectField>
        <Button type="submit" disabled={create.isPending} className="sm:mt-6">
          {create.isPending ? "Inviting…" : "Send invite"}
        </Button>
        <div className="sm:col-span-3">
          <FormError message={errors.form} />
        </div>
      </form>

      {created ? (
        <div className={card} role="status">
          <p className="text-sm">
            Invite sent to <strong>{created.email}</strong>. The link works once and is shown only now:
          </p>
          <CopyOnceField value={created.link} label="Invite link" copyLabel="Copy link" testId="invite-link" />
        </div>
      ) : null}

      <div className={card}>
        <h2 className="text-lg font-semibold">Open invites</h2>
        {invites.isPending ? (
          <div className="mt-4 h-20 animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading" />
        ) : invites.isError ? (
          <FormError message={`Could not load invites: ${invites.error.message}`} />
        ) : invites.data.length === 0 ? (
          <p className="mt-2 text-sm text-muted">No open invites.</p>
        ) : (
          <div className={`mt-4 ${tableScroll}`}>
            <table className={table}>
              <thead>
                <tr>
                  <th className={th}>Email</th>
                  <th className={th}>Role</th>
                  <th className={th}>Status</th>
                  <th className={th}>Expires</th>
                  <th className={th}>
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {invites.data.map((invite) => (
                  <tr key={invite.id} data-testid="invite-row">
                    <td className={td}>{invite.email}</td>
                    <td className={td}>{invite.role}</td>
                    <td className={td}>{invite.status}</td>
                    <td className={`${td} text-muted`}>{new Date(invite.expiresAt).toLocaleDateString("en")}</td>
                    <td className={`${td} text-right`}>
                      <Button
                        variant="danger"
                        aria-label={`Revoke the invite for ${invite.email}`}
                        disabled={revoke.isPending}
                        onClick={() => revoke.mutate({ id: invite.id })}
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
      </div>
    </>
  );
}
