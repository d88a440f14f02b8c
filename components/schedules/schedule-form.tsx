"use client";
// A member schedules one of their agents: on chosen days at a time, every N minutes, or a raw cron,
// in a time zone that defaults to the browser's. Validated with the procedure's own contract.
import { useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { fieldClass, FormError, SelectField, TextField } from "@/components/ui/field";
import { fromTrpcError, noErrors, validate, type FormErrors } from "@/lib/form-errors";
import { INTERVAL_MINUTES, WEEKDAYS, scheduleCreateInput, type ScheduleCreateInput } from "@inlay/core/schemas/schedules";

type Repeat = "weekly" | "interval" | "cron";

export function ScheduleForm({
  agents,
  pending,
  onCreate,
}: {
  agents: { id: string; name: string }[];
  pending: boolean;
  onCreate(input: ScheduleCreateInput): Promise<unknown>;
}) {
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const [repeat, setRepeat] = useState<Repeat>("weekly");
  const [days, setDays] = useState<number[]>([1, 2, 3, 4, 5]);
  // Mounted in the browser only (after the agents query), so the browser's zone is known here.
  const [timezone] = useState(() => Intl.DateTimeFormat().resolvedOptions().timeZone);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const text = (name: string) => String(form.get(name) ?? "");
    const when =
      repeat === "weekly"
        ? { kind: repeat, days, time: text("time") }
        : repeat === "interval"
          ? { kind: repeat, minutes: Number(text("minutes")) }
          : { kind: repeat, cron: text("cron") };
    const checked = validate(scheduleCreateInput, {
      agentId: text("agentId"),
      instructions: text("instructions"),
      name: text("name").trim() || undefined,
      when,
      timezone: text("timezone").trim(),
    });
    if (checked.errors) return setErrors(checked.errors);
    setErrors(noErrors);
    try {
      await onCreate(checked.data);
      formElement.reset();
    } catch (error) {
      setErrors(fromTrpcError(error));
    }
  }

  const instructionsError = errors.fields.instructions;
  return (
    <form onSubmit={submit} noValidate className="space-y-4" aria-label="New schedule">
      <div className="grid gap-4 sm:grid-cols-2">
        <SelectField label="Agent" name="agentId" error={errors.fields.agentId}>
          {agents.map((agent) => (
            <option key={agent.id} value={agent.id}>
              {agent.name}
            </option>
          ))}
        </SelectField>
        <TextField label="Name" name="name" placeholder="The first words of the instructions" error={errors.fields.name} />
      </div>
      <div>
        <label htmlFor="schedule-instructions" className="block text-sm font-medium">
          Instructions
        </label>
        <textarea
          id="schedule-instructions"
          name="instructions"
          rows={3}
          aria-invalid={instructionsError ? true : undefined}
          aria-describedby={instructionsError ? "schedule-instructions-error" : undefined}
          className={`${fieldClass} h-auto py-2`}
        />
        {instructionsError ? (
          <p id="schedule-instructions-error" className="mt-1 text-sm text-danger">
            {instructionsError}
          </p>
        ) : null}
      </div>
      <div className="grid gap-4 sm:grid-cols-3">
        <SelectField label="Repeat" value={repeat} onChange={(event) => setRepeat(event.target.value as Repeat)}>
          <option value="weekly">On days at a time</option>
          <option value="interval">Every few minutes</option>
          <option value="cron">Cron expression</option>
        </SelectField>
        {repeat === "weekly" ? (
          <TextField label="Time" name="time" type="time" defaultValue="09:00" error={errors.fields.when} />
        ) : repeat === "interval" ? (
          <SelectField label="Every" name="minutes" defaultValue="15" error={errors.fields.when}>
            {INTERVAL_MINUTES.map((minutes) => (
              <option key={minutes} value={minutes}>
                {minutes === 1 ? "minute" : `${minutes} minutes`}
              </option>
            ))}
          </SelectField>
        ) : (
          <TextField label="Cron" name="cron" placeholder="0 9 * * 1-5" hint="minute hour day month weekday" error={errors.fields.when} />
        )}
        <TextField label="Time zone" name="timezone" defaultValue={timezone} error={errors.fields.timezone} />
      </div>
      {repeat === "weekly" ? (
        <fieldset>
          <legend className="text-sm font-medium">Days</legend>
          <div className="mt-2 flex flex-wrap gap-3">
            {WEEKDAYS.map((label, day) => (
              <label key={label} className="flex items-center gap-1 text-sm">
                <input
                  type="checkbox"
                  checked={days.includes(day)}
                  onChange={(event) => setDays(event.target.checked ? [...days, day] : days.filter((d) => d !== day))}
                />
                {label}
              </label>
            ))}
          </div>
        </fieldset>
      ) : null}
      <FormError message={errors.form} />
      <Button type="submit" disabled={pending || agents.length === 0}>
        Create schedule
      </Button>
    </form>
  );
}
