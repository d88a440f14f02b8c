"use client";
// Define or edit an agent: name, instructions, model, permission mode and tools. Validated in the
// browser with the procedure's own contract; server errors appear next to their field (a name the
// workspace already uses is a conflict on the name). One save at a time: a second click or Enter
// while one is on its way does nothing.
import { useRef, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/button";
import { FormError, SelectField, TextField, fieldClass } from "@/components/ui/field";
import { fromTrpcError, noErrors, validate, type FormErrors } from "@/lib/form-errors";
import { AGENT_TOOLS, permissionModes, tenantAgentInput, type TenantAgentInput } from "@inlay/core/schemas/console";

export const emptyAgent: TenantAgentInput = { name: "", instructions: "", model: null, permissionMode: "approval", tools: ["memory"] };

export function AgentForm({
  initial,
  submitLabel,
  onSave,
  pending,
  resetOnSave = false,
}: {
  initial: TenantAgentInput;
  submitLabel: string;
  onSave: (agent: TenantAgentInput) => Promise<unknown>;
  pending: boolean;
  /** Start again from `initial` after a save (a form that creates agents). */
  resetOnSave?: boolean;
}) {
  const [agent, setAgent] = useState<TenantAgentInput>(initial);
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const [saved, setSaved] = useState(false);
  // A ref, not state: it is set before the next event can be handled, where a re-render may not be.
  const inFlight = useRef(false);
  const [saving, setSaving] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (inFlight.current) return;
    setSaved(false);
    const checked = validate(tenantAgentInput, agent);
    if (checked.errors) return setErrors(checked.errors);
    setErrors(noErrors);
    inFlight.current = true;
    setSaving(true);
    try {
      await onSave(agent);
      if (resetOnSave) setAgent(initial);
      setSaved(true);
    } catch (error) {
      setErrors(fromTrpcError(error));
    } finally {
      inFlight.current = false;
      setSaving(false);
    }
  }
  const busy = pending || saving;

  const instructionsError = errors.fields.instructions;
  return (
    <form onSubmit={submit} noValidate className="space-y-4" aria-label={submitLabel}>
      <TextField label="Name" value={agent.name} error={errors.fields.name} onChange={(event) => setAgent({ ...agent, name: event.target.value })} />
      <div>
        <label htmlFor="agent-instructions" className="block text-sm font-medium">
          Instructions
        </label>
        <textarea
          id="agent-instructions"
          rows={5}
          value={agent.instructions}
          aria-invalid={instructionsError ? true : undefined}
          aria-describedby={instructionsError ? "agent-instructions-error" : undefined}
          onChange={(event) => setAgent({ ...agent, instructions: event.target.value })}
          className={`${fieldClass} h-auto py-2`}
        />
        {instructionsError ? (
          <p id="agent-instructions-error" className="mt-1 text-sm text-danger">
            {instructionsError}
          </p>
        ) : null}
      </div>
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField
          label="Model"
          hint="Empty: the platform's default model."
          value={agent.model ?? ""}
          error={errors.fields.model}
          onChange={(event) => setAgent({ ...agent, model: event.target.value })}
        />
        <SelectField
          label="Permission mode"
          value={agent.permissionMode}
          error={errors.fields.permissionMode}
          onChange={(event) => setAgent({ ...agent, permissionMode: event.target.value as TenantAgentInput["permissionMode"] })}
        >
          {permissionModes.map((mode) => (
            <option key={mode} value={mode}>
              {mode}
            </option>
          ))}
        </SelectField>
      </div>
      <fieldset>
        <legend className="text-sm font-medium">Tools</legend>
        <div className="mt-2 grid gap-2 sm:grid-cols-2">
          {AGENT_TOOLS.map((tool) => (
            <label key={tool.name} className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                checked={agent.tools.includes(tool.name)}
                onChange={(event) =>
                  setAgent({
                    ...agent,
                    tools: event.target.checked ? [...agent.tools, tool.name] : agent.tools.filter((name) => name !== tool.name),
                  })
                }
              />
              {tool.label}
            </label>
          ))}
        </div>
      </fieldset>
      <FormError message={errors.form} />
      <div className="flex items-center gap-3">
        <Button type="submit" disabled={busy} aria-busy={busy || undefined}>
          {busy ? "Saving…" : submitLabel}
        </Button>
        {saved ? (
          <span role="status" className="text-sm text-muted">
            Saved.
          </span>
        ) : null}
      </div>
    </form>
  );
}
