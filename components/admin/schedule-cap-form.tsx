"use client";
// Tenant admins: how many schedules the workspace's members may have active at once (empty: no cap).
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { FormError, TextField } from "@/components/ui/field";
import { fromTrpcError, noErrors, validate, type FormErrors } from "@/lib/form-errors";
import { scheduleCapSchema, type ScheduleCapInput } from "@inlay/core/schemas/tenancy";
import { readLimit, showLimit } from "./limit-input";

export function ScheduleCapForm({
  initial,
  active,
  pending,
  onSave,
}: {
  initial: number | null;
  active: number;
  pending: boolean;
  onSave(cap: ScheduleCapInput): Promise<unknown>;
}) {
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const [saved, setSaved] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const checked = validate(scheduleCapSchema, { maxActiveSchedules: readLimit(new FormData(event.currentTarget), "maxActiveSchedules") });
    setSaved(false);
    if (checked.errors) return setErrors(checked.errors);
    setErrors(noErrors);
    try {
      await onSave(checked.data);
      setSaved(true);
    } catch (error) {
      setErrors(fromTrpcError(error));
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Active schedules cap" className="grid gap-4 sm:grid-cols-[1fr_auto] sm:items-start">
      <TextField
        label="Active schedules (whole workspace)"
        name="maxActiveSchedules"
        inputMode="numeric"
        defaultValue={showLimit(initial)}
        placeholder="no cap"
        hint={`${active} active now. Creating or resuming a schedule beyond it is refused; lowering it pauses none.`}
        error={errors.fields.maxActiveSchedules}
      />
      <div className="sm:mt-6">
        <Button type="submit" disabled={pending}>
          Save
        </Button>
      </div>
      <div className="sm:col-span-2">
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
