"use client";
// One cap form (runs and cost a month), used for the tenant default and for each member's override.
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { FormError, TextField } from "@/components/ui/field";
import { fromTrpcError, noErrors, validate, type FormErrors } from "@/lib/form-errors";
import { memberCapSchema, type MemberCapInput } from "@inlay/core/schemas/tenancy";
import { costFormatErrors, describeCostLimit, describeLimit, readCostLimit, readLimit, showCostLimit, showLimit } from "./limit-input";

export function CapForm({
  label,
  initial,
  tenantLimits,
  onSave,
  onClear,
  pending,
  emptyMeans = "no cap",
}: {
  /** What an empty box means: "no cap" for the default, "default" for an override. */
  emptyMeans?: string;
  label: string;
  initial: MemberCapInput | null;
  tenantLimits: { runsPerMonth: number | null; costPerMonthCents: number | null };
  onSave(cap: MemberCapInput): Promise<unknown>;
  onClear?: () => Promise<unknown>;
  pending: boolean;
}) {
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const [saved, setSaved] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const values = { runsPerMonth: readLimit(form, "runsPerMonth"), costPerMonthCents: readCostLimit(form, "costPerMonthCents") };
    const checked = validate(memberCapSchema, values);
    setSaved(false);
    if (checked.errors) return setErrors({ ...checked.errors, fields: { ...checked.errors.fields, ...costFormatErrors(values, ["costPerMonthCents"]) } });
    setErrors(noErrors);
    try {
      await onSave(checked.data);
      setSaved(true);
    } catch (error) {
      setErrors(fromTrpcError(error));
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-label={label} className="grid gap-4 sm:grid-cols-[1fr_1fr_auto] sm:items-start">
      <TextField
        label="Runs per month"
        name="runsPerMonth"
        inputMode="numeric"
        defaultValue={showLimit(initial?.runsPerMonth ?? null)}
        placeholder={emptyMeans}
        hint={`Workspace limit: ${describeLimit(tenantLimits.runsPerMonth)}`}
        error={errors.fields.runsPerMonth}
      />
      <TextField
        label="Cost per month ($)"
        name="costPerMonthCents"
        inputMode="decimal"
        defaultValue={showCostLimit(initial?.costPerMonthCents ?? null)}
        placeholder={emptyMeans}
        hint={`Workspace limit: ${describeCostLimit(tenantLimits.costPerMonthCents)}`}
        error={errors.fields.costPerMonthCents}
      />
      <div className="flex gap-2 sm:mt-6">
        <Button type="submit" disabled={pending}>
          Save
        </Button>
        {onClear ? (
          <Button
            type="button"
            variant="ghost"
            disabled={pending}
            onClick={async () => {
              setErrors(noErrors);
              await onClear().catch((error: unknown) => setErrors(fromTrpcError(error)));
            }}
          >
            Use default
          </Button>
        ) : null}
      </div>
      <div className="sm:col-span-3">
        <FormError message={errors.form} />
        {saved ? (
          <p role="status" className="text-sm text-muted">
            Saved.
          </p>
        ) : null}
      </div>
    </form>
  );
}
