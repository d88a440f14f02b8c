"use client";
// The installation owner: every tenant with its members, this month's usage and its limits (editable),
// and creating a tenant (optionally inviting its first admin).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { FormError, TextField } from "@/components/ui/field";
import { fromTrpcError, noErrors, validate, type FormErrors } from "@/lib/form-errors";
import { createTenantInput, tenantLimitsSchema, type TenantLimitsInput } from "@inlay/core/schemas/tenancy";
import { formatMicros } from "@inlay/core/money";
import { useTRPC } from "@/components/trpc/react";
import { card } from "./admin-page";
import { costFormatErrors, readCostLimit, readLimit, showCostLimit, showLimit } from "./limit-input";

// Money fields hold cents but are typed in dollars.
const limitFields: { name: keyof TenantLimitsInput; label: string; dollars?: boolean }[] = [
  { name: "runsPerMonth", label: "Runs per month" },
  { name: "costPerMonthCents", label: "Cost per month ($)", dollars: true },
  { name: "concurrentRuns", label: "Runs at once" },
  { name: "turnsPerMinutePerMember", label: "Messages per minute per member" },
];
const dollarFields = limitFields.filter((field) => field.dollars).map((field) => field.name);

function LimitsForm({ tenantId, name, initial }: { tenantId: string; name: string; initial: TenantLimitsInput }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const setLimits = useMutation(
    trpc.tenants.setLimits.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.tenants.listAll.queryKey() }),
    }),
  );
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const [saved, setSaved] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const values = Object.fromEntries(
      limitFields.map((field) => [field.name, field.dollars ? readCostLimit(form, field.name) : readLimit(form, field.name)]),
    );
    const checked = validate(tenantLimitsSchema, values);
    setSaved(false);
    if (checked.errors) return setErrors({ ...checked.errors, fields: { ...checked.errors.fields, ...costFormatErrors(values, dollarFields) } });
    setErrors(noErrors);
    try {
      await setLimits.mutateAsync({ tenantId, limits: checked.data });
      setSaved(true);
    } catch (error) {
      setErrors(fromTrpcError(error));
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-label={`Limits of ${name}`} className="mt-4 grid gap-4 sm:grid-cols-4">
      {limitFields.map((field) => (
        <TextField
          key={field.name}
          label={field.label}
          name={field.name}
          inputMode={field.dollars ? "decimal" : "numeric"}
          placeholder="no limit"
          defaultValue={field.dollars ? showCostLimit(initial[field.name]) : showLimit(initial[field.name])}
          error={errors.fields[field.name]}
        />
      ))}
      <div className="flex items-center gap-3 sm:col-span-4">
        <Button type="submit" disabled={setLimits.isPending}>
          Save limits
        </Button>
        {saved ? (
          <span role="status" className="text-sm text-muted">
            Saved.
          </span>
        ) : null}
        <FormError message={errors.form} />
      </div>
    </form>
  );
}

function CreateTenantForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const create = useMutation(
    trpc.tenants.create.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.tenants.listAll.queryKey() }),
    }),
  );
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const [link, setLink] = useState<string | null>();

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const adminEmail = String(form.get("adminEmail") ?? "").trim();
    const checked = validate(createTenantInput, { name: String(form.get("name") ?? ""), adminEmail: adminEmail || undefined });
    if (checked.errors) return setErrors(checked.errors);
    setErrors(noErrors);
    try {
      const result = await create.mutateAsync(checked.data);
      setLink(result.inviteLink);
      formElement.reset();
    } catch (error) {
      setErrors(fromTrpcError(error));
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Create a tenant" className={`${card} grid gap-4 sm:grid-cols-[1fr_1fr_auto] sm:items-start`}>
      <TextField label="Tenant name" name="name" required error={errors.fields.name} />
      <TextField label="First admin's email (optional)" name="adminEmail" type="email" error={errors.fields.adminEmail} />
      <Button type="submit" disabled={create.isPending} className="sm:mt-6">
        Create tenant
      </Button>
      <div className="sm:col-span-3">
        <FormError message={errors.form} />
        {link ? (
          <p role="status" className="text-sm">
            Created. Admin invite link (shown once): <code className="break-all">{link}</code>
          </p>
        ) : link === null ? (
          <p role="status" className="text-sm text-muted">
            Created.
          </p>
        ) : null}
      </div>
    </form>
  );
}

export function TenantsPanel() {
  const trpc = useTRPC();
  const tenants = useQuery(trpc.tenants.listAll.queryOptions());
  return (
    <>
      <CreateTenantForm />
      {tenants.isPending ? (
        <div className="h-40 animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading" />
      ) : tenants.isError ? (
        <FormError message={`Could not load tenants: ${tenants.error.message}`} />
      ) : (
        tenants.data.map((tenant) => (
          <div key={tenant.id} className={card} data-testid="tenant">
            <div className="flex flex-wrap items-baseline justify-between gap-2">
              <h2 className="text-lg font-semibold">
                {tenant.name} <span className="text-sm font-normal text-muted">{tenant.slug}</span>
              </h2>
              <p className="text-sm text-muted">
                {tenant.memberCount} {tenant.memberCount === 1 ? "member" : "members"} · this month {tenant.usage.runs} runs, {formatMicros(tenant.usage.costMicros)}
              </p>
            </div>
            <LimitsForm tenantId={tenant.id} name={tenant.name} initial={tenant.limits} />
          </div>
        ))
      )}
    </>
  );
}
