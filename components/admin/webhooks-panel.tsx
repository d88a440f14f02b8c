"use client";
// The installation owner's webhook endpoints: register one (its signing secret shown once), pause,
// resume, rotate the secret (the new one shown once), delete; per endpoint its deliveries with every
// attempt, one delivery sent again (a failed one retried, a delivered one replayed), a replay of the
// events since a time, and a test event to check the endpoint without waiting for a run.
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { z } from "zod";
import { Button } from "@/components/ui/button";
import { CopyOnceField } from "@/components/ui/copy-once-field";
import { FormError, TextField } from "@/components/ui/field";
import { fromTrpcError, noErrors, validate, type FormErrors } from "@/lib/form-errors";
import { CreateWebhookRequest, WEBHOOK_EVENT_TYPES, WebhookEventType } from "@inlay/core/schemas/webhooks";
import { useTRPC } from "@/components/trpc/react";
import type { AppRouter } from "@/server/framework/api/root";
import { card } from "./admin-page";

type Outputs = inferRouterOutputs<AppRouter>["webhooks"];
type Webhook = Outputs["list"][number];
type Delivery = Outputs["deliveries"]["data"][number];

// The form always names its kinds (the API's "every kind when omitted" is not what an empty form means).
const createInput = CreateWebhookRequest.omit({ user_id: true }).extend({ events: z.array(WebhookEventType).min(1, "Tick at least one event.") });
const time = (iso: string) => new Date(iso).toLocaleString("en");
const smallButton = "h-8 border border-line px-3";
/** While the list is open it is re-read this often, so new deliveries and attempts show up. */
const DELIVERIES_REFRESH_MS = 2_000;

function SecretOnce({ secret, label }: { secret: string; label: string }) {
  return (
    <div role="status" className="mt-4 rounded-lg border border-line bg-bg p-4">
      <p className="text-sm">{label} Copy it now: it is not shown again. Receivers verify deliveries with it.</p>
      <CopyOnceField value={secret} label="Signing secret" copyLabel="Copy secret" testId="webhook-secret" />
    </div>
  );
}

function EventCheckboxes({ legend, defaultChecked, error }: { legend: string; defaultChecked: readonly string[]; error?: string }) {
  return (
    <fieldset className="sm:col-span-2">
      <legend className="text-sm font-medium">{legend}</legend>
      <div className="mt-2 flex flex-wrap gap-x-4 gap-y-2">
        {WEBHOOK_EVENT_TYPES.map((type) => (
          <label key={type} className="flex items-center gap-2 text-sm">
            <input type="checkbox" name="events" value={type} defaultChecked={defaultChecked.includes(type)} />
            <code>{type}</code>
          </label>
        ))}
      </div>
      {error ? <p className="mt-1 text-sm text-danger">{error}</p> : null}
    </fieldset>
  );
}

function RegisterForm() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const create = useMutation(
    trpc.webhooks.create.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() }) }),
  );
  const [errors, setErrors] = useState<FormErrors>(noErrors);
  const [created, setCreated] = useState<Webhook>();

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const checked = validate(createInput, { url: String(form.get("url") ?? ""), events: form.getAll("events").map(String) });
    if (checked.errors) return setErrors(checked.errors);
    setErrors(noErrors);
    try {
      setCreated(await create.mutateAsync(checked.data));
      formElement.reset();
    } catch (error) {
      setErrors(fromTrpcError(error));
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Register an endpoint" className={`${card} grid gap-4 sm:grid-cols-[1fr_auto] sm:items-start`}>
      <TextField
        label="Endpoint URL"
        name="url"
        type="url"
        placeholder="https://example.com/inlay-webhooks"
        autoComplete="off"
        required
        error={errors.fields.url}
      />
      <Button type="submit" disabled={create.isPending} className="sm:mt-6">
        {create.isPending ? "Registering…" : "Register endpoint"}
      </Button>
      {/* Nothing ticked to start: with every box ticked, ticking the one wanted subscribed to all of them. */}
      <EventCheckboxes legend="Events" defaultChecked={[]} error={errors.fields.events} />
      <div className="sm:col-span-2">
        <FormError message={errors.form} />
        {created ? <SecretOnce secret={created.secret} label={`Registered ${created.url}.`} /> : null}
      </div>
    </form>
  );
}

function StatusBadge({ webhook }: { webhook: Webhook }) {
  if (webhook.active) return <span className="rounded-full bg-fg/5 px-2 py-0.5 text-xs">Active</span>;
  if (webhook.disabled_reason) {
    return <span className="rounded-full bg-danger/10 px-2 py-0.5 text-xs text-danger">Disabled: {webhook.disabled_reason}</span>;
  }
  return <span className="rounded-full bg-fg/5 px-2 py-0.5 text-xs text-muted">Paused</span>;
}

function Attempts({ delivery }: { delivery: Delivery }) {
  if (delivery.attempts.length === 0) return <p className="mt-2 text-xs text-muted">No attempt yet.</p>;
  return (
    <ol className="mt-2 space-y-1" aria-label={`Attempts of delivery ${delivery.id}`}>
      {delivery.attempts.map((attempt) => (
        <li key={attempt.number} data-testid="attempt" className="rounded bg-fg/[0.03] px-2 py-1 font-mono text-xs">
          <span>#{attempt.number}</span> · <span>{time(attempt.attempted_at)}</span> ·{" "}
          <span data-testid="attempt-status">{attempt.response_status === null ? "no response" : `HTTP ${attempt.response_status}`}</span> ·{" "}
          <span>{attempt.duration_ms} ms</span>
          {attempt.error ? <span className="text-danger"> · {attempt.error}</span> : null}
          {attempt.response_body ? (
            <div className="mt-0.5 truncate text-muted" title={attempt.response_body}>
              {attempt.response_body.slice(0, 200)}
            </div>
          ) : null}
        </li>
      ))}
    </ol>
  );
}

function DeliveryItem({ webhookId, delivery, refresh }: { webhookId: number; delivery: Delivery; refresh: () => Promise<void> }) {
  const trpc = useTRPC();
  const retry = useMutation(trpc.webhooks.retryDelivery.mutationOptions({ onSuccess: refresh }));
  const tone = delivery.status === "failed" ? "text-danger" : delivery.status === "pending" ? "text-muted" : "";
  return (
    <li data-testid="delivery" data-status={delivery.status} className="border-b border-line py-3 last:border-b-0">
      <div className="flex flex-wrap items-center gap-x-4 gap-y-1 text-sm">
        <span data-testid="delivery-status" className={`font-medium ${tone}`}>
          {delivery.status}
        </span>
        <code>{delivery.event_type}</code>
        {delivery.run_id ? (
          <Link href={`/runs/${delivery.run_id}`} className="text-accent underline-offset-4 hover:underline">
            run {delivery.run_id}
          </Link>
        ) : (
          <span>run –</span>
        )}
        <span data-testid="attempt-count">
          {delivery.attempt_count} {delivery.attempt_count === 1 ? "attempt" : "attempts"}
        </span>
        {delivery.origin !== "dispatch" ? <span className="text-xs text-muted">{delivery.origin}</span> : null}
        <span className="text-xs text-muted">{time(delivery.created_at)}</span>
        {/* Any finished delivery can be sent again (the platform's retry): a failed one is retried,
            a delivered one replayed, e.g. to a receiver that lost it. */}
        {delivery.status !== "pending" ? (
          <Button type="button" variant="ghost" className={smallButton} disabled={retry.isPending} onClick={() => retry.mutate({ webhookId, deliveryId: delivery.id })}>
            {delivery.status === "failed" ? (retry.isPending ? "Retrying…" : "Retry") : retry.isPending ? "Replaying…" : "Replay"}
          </Button>
        ) : null}
      </div>
      {delivery.error ? <p className="mt-1 text-xs text-danger">{delivery.error}</p> : null}
      {retry.error ? <FormError message={retry.error.message} /> : null}
      <Attempts delivery={delivery} />
    </li>
  );
}

/** A datetime-local value to the second (the browser's time zone) an hour ago. */
function anHourAgo(): string {
  const date = new Date(Date.now() - 3600_000);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
}

function ReplayForm({ webhookId, refresh }: { webhookId: number; refresh: () => Promise<void> }) {
  const trpc = useTRPC();
  const replay = useMutation(trpc.webhooks.replay.mutationOptions({ onSuccess: refresh }));
  const [since, setSince] = useState(anHourAgo);

  return (
    <form
      aria-label="Replay since"
      className="mt-3 flex flex-wrap items-end gap-3"
      onSubmit={(event) => {
        event.preventDefault();
        const parsed = new Date(since);
        if (Number.isNaN(parsed.getTime())) return;
        replay.mutate({ webhookId, since: parsed.toISOString() });
      }}
    >
      {/* To the second: an incident's first failure is known to the second, and the minute before it may hold deliveries that went through. */}
      <TextField label="Replay since…" type="datetime-local" step={1} value={since} onChange={(event) => setSince(event.currentTarget.value)} required />
      <Button type="submit" variant="ghost" className="border border-line" disabled={replay.isPending}>
        {replay.isPending ? "Replaying…" : "Replay"}
      </Button>
      {replay.data ? (
        <span role="status" className="text-sm text-muted">
          Queued {replay.data.queued} {replay.data.queued === 1 ? "delivery" : "deliveries"}
          {replay.data.has_more ? ` (more remain: replay again since ${time(replay.data.next_since!)})` : ""}.
        </span>
      ) : null}
      <FormError message={replay.error?.message} />
    </form>
  );
}

function Deliveries({ webhookId }: { webhookId: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const options = trpc.webhooks.deliveries.infiniteQueryOptions(
    { webhookId, limit: 10 },
    { getNextPageParam: (page) => page.nextCursor ?? undefined, refetchInterval: DELIVERIES_REFRESH_MS },
  );
  const deliveries = useInfiniteQuery(options);
  const refresh = () => queryClient.invalidateQueries({ queryKey: options.queryKey });
  const items = deliveries.data?.pages.flatMap((page) => page.data) ?? [];

  return (
    <div className="mt-4 border-t border-line pt-4" aria-label={`Deliveries of endpoint ${webhookId}`} role="region">
      <h3 className="text-sm font-semibold">Deliveries</h3>
      <ReplayForm webhookId={webhookId} refresh={refresh} />
      {deliveries.isPending ? (
        <div className="mt-3 h-16 animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading" />
      ) : deliveries.isError ? (
        <FormError message={`Could not load deliveries: ${deliveries.error.message}`} />
      ) : items.length === 0 ? (
        <p className="mt-3 text-sm text-muted">No deliveries yet. They appear here as runs send events.</p>
      ) : (
        <ul className="mt-3">
          {items.map((delivery) => (
            <DeliveryItem key={delivery.id} webhookId={webhookId} delivery={delivery} refresh={refresh} />
          ))}
        </ul>
      )}
      {deliveries.hasNextPage ? (
        <Button type="button" variant="ghost" className={`${smallButton} mt-2`} disabled={deliveries.isFetchingNextPage} onClick={() => void deliveries.fetchNextPage()}>
          Older deliveries
        </Button>
      ) : null}
    </div>
  );
}

function Endpoint({ webhook }: { webhook: Webhook }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() });
  const update = useMutation(trpc.webhooks.update.mutationOptions({ onSuccess: refresh }));
  const rotate = useMutation(trpc.webhooks.rotateSecret.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.webhooks.delete.mutationOptions({ onSuccess: refresh }));
  const [open, setOpen] = useState(false);
  const sendTest = useMutation(
    trpc.webhooks.sendTest.mutationOptions({
      onSuccess: async () => {
        setOpen(true);
        await queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.pathKey() });
      },
    }),
  );
  const failure = update.error ?? rotate.error ?? remove.error ?? sendTest.error;

  return (
    <article className={card} data-testid="webhook" aria-label={`Endpoint ${webhook.url}`}>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 className="break-all font-mono text-sm font-semibold">{webhook.url}</h2>
          <p className="mt-1 flex flex-wrap items-center gap-2 text-xs text-muted">
            <StatusBadge webhook={webhook} />
            <span data-testid="webhook-events">{webhook.events.join(", ")}</span>
          </p>
          <p className="mt-1 text-xs text-muted">
            Secret <code data-testid="masked-secret">{webhook.secret}</code>
            {webhook.previous_secret_expires_at ? ` · the previous secret also signs until ${time(webhook.previous_secret_expires_at)}` : ""}
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          <Button
            type="button"
            variant="ghost"
            className={smallButton}
            disabled={update.isPending}
            onClick={() => update.mutate({ webhookId: webhook.id, active: !webhook.active })}
          >
            {webhook.active ? "Pause" : "Resume"}
          </Button>
          <Button
            type="button"
            variant="ghost"
            className={smallButton}
            disabled={sendTest.isPending || !webhook.active}
            title={webhook.active ? "Sends a signed webhook.test event to this endpoint now" : "Resume the endpoint to send a test event"}
            onClick={() => sendTest.mutate({ webhookId: webhook.id })}
          >
            {sendTest.isPending ? "Sending…" : "Send test event"}
          </Button>
          <Button
            type="button"
            variant="ghost"
            className={smallButton}
            disabled={rotate.isPending}
            onClick={() => {
              if (window.confirm("Rotate the signing secret? The current one keeps signing for 24 hours.")) rotate.mutate({ webhookId: webhook.id });
            }}
          >
            Rotate secret
          </Button>
          <Button
            type="button"
            variant="ghost"
            className={`${smallButton} text-danger`}
            disabled={remove.isPending}
            onClick={() => {
              if (window.confirm(`Delete the endpoint ${webhook.url} and its deliveries?`)) remove.mutate({ webhookId: webhook.id });
            }}
          >
            Delete
          </Button>
          <Button type="button" variant="ghost" className={smallButton} aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? "Hide deliveries" : "Deliveries"}
          </Button>
        </div>
      </div>
      <FormError message={failure?.message} />
      {sendTest.data ? (
        <p role="status" className="mt-2 text-sm text-muted">
          Test event sent (delivery {sendTest.data.id}): its outcome shows in the deliveries below.
        </p>
      ) : null}
      {rotate.data ? <SecretOnce secret={rotate.data.secret} label="New signing secret." /> : null}
      {open ? <Deliveries webhookId={webhook.id} /> : null}
    </article>
  );
}

export function WebhooksPanel() {
  const trpc = useTRPC();
  const webhooks = useQuery(trpc.webhooks.list.queryOptions());
  return (
    <>
      <RegisterForm />
      {webhooks.isPending ? (
        <div className="h-40 animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading" />
      ) : webhooks.isError ? (
        <FormError message={`Could not load endpoints: ${webhooks.error.message}`} />
      ) : webhooks.data.length === 0 ? (
        <p className="text-sm text-muted">No endpoints yet.</p>
      ) : (
        webhooks.data.map((webhook) => <Endpoint key={webhook.id} webhook={webhook} />)
      )}
    </>
  );
}
