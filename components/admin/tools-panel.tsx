"use client";
// A tenant admin's tool servers and skills: register a REST API or a remote MCP server (its secret is
// write-only), write a skill (a playbook members force with /slug), see what each server offers, turn a
// skill off, delete either. Members get their copies when they next start a run.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useState, type FormEvent, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { FormError, SelectField, TextField, fieldClass } from "@/components/ui/field";
import { fromTrpcError, noErrors, validate, type FormErrors } from "@/lib/form-errors";
import { tenantSkillInput, tenantToolServerInput } from "@inlay/core/schemas/tenant-tools";
import { useTRPC } from "@/components/trpc/react";
import type { AppRouter } from "@/server/framework/api/root";
import { card, table, tableScroll, td, th } from "./admin-page";

type Outputs = inferRouterOutputs<AppRouter>["tools"];
type Server = Outputs["servers"][number];
type Skill = Outputs["skills"][number];

const KIND_LABELS: Record<string, string> = { rest_api: "REST API", mcp_http: "MCP (streamable HTTP)", mcp_sse: "MCP (SSE)" };
const smallButton = "h-8 border border-line px-3";
const EXAMPLE_TOOLS = '[{"method": "GET", "name": "get_order", "path": "/orders/{id}", "description": "Look up an order"}]';

function parseToolDefs(text: string): { ok: true; value: unknown[] } | { ok: false } {
  if (!text.trim()) return { ok: true, value: [] };
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? { ok: true, value } : { ok: false };
  } catch {
    return { ok: false };
  }
}

function ServerForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const create = useMutation(trpc.tools.createServer.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.tools.servers.queryKey() }) }));
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const [kind, setKind] = useState("mcp_http");
  const [authType, setAuthType] = useState("none");

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const element = event.currentTarget;
    const form = new FormData(element);
    const text = (key: string) => String(form.get(key) ?? "");
    const toolDefs = parseToolDefs(text("toolDefs"));
    if (!toolDefs.ok) return setErrors({ fields: { toolDefs: "Write the tools as a JSON array." } });
    const checked = validate(tenantToolServerInput, {
      name: text("name"),
      description: text("description"),
      url: text("url"),
      kind,
      authType,
      header: text("header"),
      username: text("username"),
      secret: text("secret") || undefined,
      toolDefs: toolDefs.value,
      autoApprove: form.get("autoApprove") === "on",
    });
    if (checked.errors) return setErrors(checked.errors);
    setErrors(noErrors);
    try {
      await create.mutateAsync(checked.data);
      element.reset();
    } catch (error) {
      setErrors(fromTrpcError(error));
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Add a tool server" className={`${card} grid gap-4 sm:grid-cols-2`}>
      <TextField label="Name" name="name" required error={errors.fields.name} />
      <SelectField label="Kind" name="kind" value={kind} onChange={(event) => setKind(event.target.value)} error={errors.fields.kind}>
        <option value="mcp_http">{KIND_LABELS.mcp_http}</option>
        <option value="mcp_sse">{KIND_LABELS.mcp_sse}</option>
        <option value="rest_api">{KIND_LABELS.rest_api}</option>
      </SelectField>
      <TextField label="URL" name="url" type="url" placeholder="https://tools.example.com/mcp" required error={errors.fields.url} className="sm:col-span-2" />
      <TextField label="Description" name="description" error={errors.fields.description} className="sm:col-span-2" />
      <SelectField label="Authentication" name="authType" value={authType} onChange={(event) => setAuthType(event.target.value)} error={errors.fields.authType}>
        <option value="none">None</option>
        <option value="bearer">Bearer token</option>
        <option value="api_key">API key in a header</option>
        <option value="basic">Basic (user name and password)</option>
      </SelectField>
      {authType === "api_key" ? <TextField label="Header" name="header" placeholder="X-Api-Key" error={errors.fields.header} /> : null}
      {authType === "basic" ? <TextField label="User name" name="username" autoComplete="off" error={errors.fields.username} /> : null}
      {authType !== "none" ? (
        <TextField
          label={authType === "basic" ? "Password" : authType === "bearer" ? "Token" : "Key"}
          name="secret"
          type="password"
          autoComplete="new-password"
          hint="Stored encrypted; never shown again."
          error={errors.fields.secret}
        />
      ) : null}
      {kind === "rest_api" ? (
        <div className="sm:col-span-2">
          <label htmlFor="tool-defs" className="block text-sm font-medium">
            Tools (JSON)
          </label>
          <textarea id="tool-defs" name="toolDefs" rows={4} placeholder={EXAMPLE_TOOLS} className={`${fieldClass} h-auto py-2 font-mono text-xs`} aria-invalid={Boolean(errors.fields.toolDefs) || undefined} />
          <p className="mt-1 text-xs text-muted">Each tool: method, name, path ({"{name}"} segments are filled from the arguments), description, parameters (JSON Schema).</p>
          {errors.fields.toolDefs ? <p className="mt-1 text-sm text-danger">{errors.fields.toolDefs}</p> : null}
        </div>
      ) : null}
      <label className="flex items-center gap-2 text-sm sm:col-span-2">
        <input type="checkbox" name="autoApprove" /> Members&apos; runs use its tools without asking first
      </label>
      <div className="flex items-center gap-4 sm:col-span-2">
        <Button type="submit" disabled={create.isPending}>
          {create.isPending ? "Adding…" : "Add tool server"}
        </Button>
        <FormError message={errors.form} />
      </div>
    </form>
  );
}

function ServerRow({ server }: { server: Server }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const remove = useMutation(trpc.tools.deleteServer.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.tools.servers.queryKey() }) }));
  const status = server.platform?.status ?? "not provisioned";
  return (
    <tr data-testid="tool-server">
      <td className={td}>
        <div className="font-medium">{server.name}</div>
        <div className="text-xs text-muted">
          {KIND_LABELS[server.kind] ?? server.kind} · <span className="break-all">{server.url}</span>
        </div>
      </td>
      <td className={td}>
        <span className={`rounded-full px-2 py-0.5 text-xs ${status === "approved" ? "bg-fg/5" : "bg-danger/10 text-danger"}`} data-testid="tool-server-status">
          {status === "approved" ? "Ready" : status === "pending" ? "Not reachable yet" : status}
        </span>
      </td>
      <td className={td}>
        {server.platform?.tools.length ? (
          <ul className="space-y-0.5 text-xs" aria-label={`Tools of ${server.name}`}>
            {server.platform.tools.map((tool) => (
              <li key={tool.name}>
                <code>{tool.name}</code>
                {tool.description ? <span className="text-muted"> · {tool.description}</span> : null}
              </li>
            ))}
          </ul>
        ) : (
          <span className="text-xs text-muted">None listed</span>
        )}
      </td>
      <td className={td}>
        <Button variant="ghost" className={smallButton} disabled={remove.isPending} onClick={() => remove.mutate({ id: server.id })} aria-label={`Delete ${server.name}`}>
          Delete
        </Button>
      </td>
    </tr>
  );
}

function SkillForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const create = useMutation(trpc.tools.createSkill.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.tools.skills.queryKey() }) }));
  const [errors, setErrors] = useState<FormErrors>(noErrors);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const element = event.currentTarget;
    const form = new FormData(element);
    const checked = validate(tenantSkillInput, { name: String(form.get("name") ?? ""), description: String(form.get("description") ?? ""), body: String(form.get("body") ?? "") });
    if (checked.errors) return setErrors(checked.errors);
    setErrors(noErrors);
    try {
      await create.mutateAsync(checked.data);
      element.reset();
    } catch (error) {
      setErrors(fromTrpcError(error));
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Add a skill" className={`${card} grid gap-4`}>
      <TextField label="Skill name" name="name" required hint="Members force it with /slug in the chat." error={errors.fields.name} />
      <TextField label="What it does" name="description" required error={errors.fields.description} />
      <div>
        <label htmlFor="skill-body" className="block text-sm font-medium">
          Playbook
        </label>
        <textarea id="skill-body" name="body" rows={6} className={`${fieldClass} h-auto py-2`} aria-invalid={Boolean(errors.fields.body) || undefined} />
        {errors.fields.body ? <p className="mt-1 text-sm text-danger">{errors.fields.body}</p> : null}
      </div>
      <div className="flex items-center gap-4">
        <Button type="submit" disabled={create.isPending}>
          {create.isPending ? "Adding…" : "Add skill"}
        </Button>
        <FormError message={errors.form} />
      </div>
    </form>
  );
}

function SkillRow({ skill }: { skill: Skill }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.tools.skills.queryKey() });
  const update = useMutation(trpc.tools.updateSkill.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.tools.deleteSkill.mutationOptions({ onSuccess: refresh }));
  const fields = { name: skill.name, description: skill.description, body: skill.body };
  return (
    <tr data-testid="skill">
      <td className={td}>
        <code>/{skill.slug}</code>
      </td>
      <td className={td}>
        <div className="font-medium">{skill.name}</div>
        <div className="text-xs text-muted">{skill.description}</div>
      </td>
      <td className={td}>{skill.enabled ? "On" : "Off"}</td>
      <td className={`${td} space-x-2 whitespace-nowrap`}>
        <Button variant="ghost" className={smallButton} disabled={update.isPending} onClick={() => update.mutate({ id: skill.id, skill: { ...fields, enabled: !skill.enabled } })}>
          {skill.enabled ? "Turn off" : "Turn on"}
        </Button>
        <Button variant="ghost" className={smallButton} disabled={remove.isPending} onClick={() => remove.mutate({ id: skill.id })} aria-label={`Delete ${skill.name}`}>
          Delete
        </Button>
      </td>
    </tr>
  );
}

/** One list of the page: its heading, its form, then its rows in a table (or a line saying there are none). */
function ListSection({
  id,
  title,
  form,
  error,
  empty,
  columns,
  rows,
}: {
  id: string;
  title: string;
  form: ReactNode;
  error: string | undefined;
  empty: string;
  columns: string[];
  rows: ReactNode[] | undefined;
}) {
  return (
    <section aria-labelledby={id} className="space-y-4">
      <h2 id={id} className="text-xl font-semibold">
        {title}
      </h2>
      {form}
      {error ? <FormError message={error} /> : null}
      {rows?.length === 0 ? <p className="text-sm text-muted">{empty}</p> : null}
      {rows?.length ? (
        <div className={`${card} ${tableScroll}`}>
          <table className={table}>
            <thead>
              <tr>
                {columns.map((column) => (
                  <th key={column} className={th}>
                    {column}
                  </th>
                ))}
                <th className={th}>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>{rows}</tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

export function ToolsPanel() {
  const trpc = useTRPC();
  const servers = useQuery(trpc.tools.servers.queryOptions());
  const skills = useQuery(trpc.tools.skills.queryOptions());
  return (
    <div className="space-y-10">
      <ListSection
        id="servers-title"
        title="Tool servers"
        form={<ServerForm />}
        error={servers.error?.message}
        empty="No tool servers yet."
        columns={["Server", "Status", "Tools"]}
        rows={servers.data?.map((server) => <ServerRow key={server.id} server={server} />)}
      />
      <ListSection
        id="skills-title"
        title="Skills"
        form={<SkillForm />}
        error={skills.error?.message}
        empty="No skills yet."
        columns={["Command", "Skill", "Offered"]}
        rows={skills.data?.map((skill) => <SkillRow key={skill.id} skill={skill} />)}
      />
    </div>
  );
}
