"use client";
// The member's app connections: each app the workspace offers with their status (connected as
// <account>, expired → Reconnect, error), Connect in a popup (the page itself when popups are
// blocked), Disconnect (asked first), a label per connection, and a key form for API-key apps.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSearchParams } from "next/navigation";
import { useEffect, useState, type FormEvent } from "react";
import { card } from "@/components/admin/admin-page";
import { Button } from "@/components/ui/button";
import { ConfirmButton } from "@/components/ui/confirm-button";
import { EmptyState } from "@/components/ui/empty-state";
import { FormError, TextField } from "@/components/ui/field";
import { CONNECTIONS_PATH } from "@inlay/core/connections/flow";
import { goToAuthorization, onConnectionOutcome, openConnectPopup } from "@inlay/react/popup";
import type { MemberApp, MemberConnection } from "@inlay/core/schemas/connections";
import { useTRPC } from "@/components/trpc/react";

function statusText(app: MemberApp): string {
  switch (app.status) {
    case "connected":
      return app.accountLabel ? `Connected as ${app.accountLabel}` : "Connected";
    case "expired":
      return app.accountLabel ? `Expired (${app.accountLabel}): reconnect to keep using it` : "Expired: reconnect to keep using it";
    case "error":
      return `Error: ${app.connections.find((each) => each.status === "error")?.lastError ?? "the connection failed"}`;
    case "pending":
      return "Waiting for the app's sign-in to finish";
    case "not_connected":
      return app.configured ? "Not connected" : "Not available yet: the installation has not set this app up";
  }
}

/** The outcome of a redirect-fallback flow, from the URL the callback sent us back to (then dropped from it). */
function useReturnedOutcome(): { app: string; connected: boolean } | undefined {
  const params = useSearchParams();
  const [initial] = useState(() => ({ app: params.get("connected"), status: params.get("connection_status") }));
  useEffect(() => {
    if (initial.app) window.history.replaceState(null, "", window.location.pathname);
  }, [initial.app]);
  return initial.app ? { app: initial.app, connected: initial.status === "connected" } : undefined;
}

export function ConnectionsPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const apps = useQuery(trpc.connections.list.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.connections.list.queryKey() });
  const start = useMutation(trpc.connections.start.mutationOptions());
  const complete = useMutation(trpc.connections.complete.mutationOptions());
  const disconnect = useMutation(trpc.connections.disconnect.mutationOptions({ onSuccess: refresh }));
  const returned = useReturnedOutcome();
  const [notice, setNotice] = useState<string>();
  const [connecting, setConnecting] = useState<string>();

  const connect = async (app: MemberApp) => {
    // Opened inside the click, before any await, or the browser blocks it.
    const popup = openConnectPopup();
    setConnecting(app.slug);
    setNotice(undefined);
    try {
      const { authorizationUrl } = await start.mutateAsync({ app: app.slug, returnTo: CONNECTIONS_PATH, mode: popup ? "popup" : "redirect" });
      if (popup) {
        onConnectionOutcome(app.slug, popup, async (outcome) => {
          let connected = outcome.type === "inlay:connection" && outcome.status === "connected";
          let problem = outcome.type === "inlay:connection" && outcome.status === "error" ? (outcome.message ?? "error") : undefined;
          if (outcome.type === "inlay:connection" && outcome.status === "authorized" && outcome.connectionId) {
            // The popup saw no session of ours (e.g. third-party cookies off): this page completes it.
            try {
              await complete.mutateAsync({ app: app.slug, connectionId: outcome.connectionId });
              connected = true;
            } catch (error) {
              problem = error instanceof Error ? error.message : "error";
            }
          }
          setConnecting(undefined);
          if (connected) setNotice(`${app.name} is connected.`);
          else if (problem) setNotice(`${app.name} was not connected: ${problem}`);
          void refresh();
        });
      }
      goToAuthorization(popup, authorizationUrl);
    } catch {
      popup?.close();
      setConnecting(undefined);
    }
  };

  const returnedName = returned && (apps.data?.find((app) => app.slug === returned.app)?.name ?? returned.app);
  const returnedNotice = returned && (returned.connected ? `${returnedName} is connected.` : `${returnedName} was not connected.`);

  if (apps.isPending) return <div className="h-40 animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading" />;
  if (apps.isError) return <FormError message={`Could not load your connections: ${apps.error.message}`} />;
  return (
    <div className={card}>
      <p role="status" className="mb-4 text-sm empty:hidden" data-testid="connections-notice">
        {notice ?? returnedNotice ?? ""}
      </p>
      {apps.data.length === 0 ? <EmptyState title="Your workspace offers no apps yet.">An admin can turn them on.</EmptyState> : null}
      <ul className="divide-y divide-line empty:hidden" aria-label="Apps">
        {apps.data.map((app) => (
          <li key={app.slug} className="py-4" data-testid="connection-app" data-app={app.slug} aria-label={app.name}>
            <div className="flex flex-wrap items-start justify-between gap-4">
              <div className="min-w-0">
                <p className="font-medium">{app.name}</p>
                {app.description ? <p className="text-sm text-muted">{app.description}</p> : null}
                <p className="mt-1 text-sm" data-testid="connection-status" data-status={app.status}>
                  {statusText(app)}
                </p>
              </div>
              <div className="flex flex-wrap gap-2">
                {app.auth === "oauth2" && app.configured ? (
                  <Button
                    variant={app.status === "connected" ? "ghost" : "primary"}
                    disabled={connecting !== undefined}
                    onClick={() => void connect(app)}
                  >
                    {connecting === app.slug ? "Connecting…" : app.status === "connected" ? "Connect another" : app.status === "not_connected" ? "Connect" : "Reconnect"}
                  </Button>
                ) : null}
                {app.connections.length > 0 ? (
                  <ConfirmButton
                    label={app.connections.length > 1 ? "Disconnect all" : "Disconnect"}
                    question={app.connections.length > 1 ? `Disconnect all ${app.connections.length} ${app.name} connections?` : `Disconnect ${app.name}?`}
                    confirmLabel="Yes, disconnect"
                    disabled={disconnect.isPending}
                    onConfirm={() => disconnect.mutate({ app: app.slug })}
                  />
                ) : null}
              </div>
            </div>
            {app.auth === "api_key" ? <ApiKeyForm app={app} onDone={refresh} /> : null}
            {app.connections.length > 0 ? (
              <ul className="mt-3 space-y-2 text-sm" aria-label={`Connections of ${app.name}`}>
                {app.connections.map((connection) => (
                  <ConnectionRow key={connection.connectionId} app={app} connection={connection} onDone={refresh} />
                ))}
              </ul>
            ) : null}
          </li>
        ))}
      </ul>
      <FormError message={start.error?.message ?? disconnect.error?.message} />
    </div>
  );
}

function ApiKeyForm({ app, onDone }: { app: MemberApp; onDone: () => Promise<unknown> }) {
  const trpc = useTRPC();
  const [apiKey, setApiKey] = useState("");
  const save = useMutation(trpc.connections.connectApiKey.mutationOptions({ onSuccess: () => onDone() }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ app: app.slug, apiKey }, { onSuccess: () => setApiKey("") });
  };
  return (
    <form onSubmit={submit} className="mt-3 flex flex-wrap items-end gap-2">
      <TextField
        label={`${app.name} API key`}
        type="password"
        autoComplete="off"
        value={apiKey}
        onChange={(event) => setApiKey(event.target.value)}
        error={save.error?.message}
        className="min-w-64 flex-1"
      />
      <Button type="submit" disabled={save.isPending || apiKey.trim() === ""}>
        {app.status === "connected" ? "Replace key" : "Save key"}
      </Button>
    </form>
  );
}

function ConnectionRow({ app, connection, onDone }: { app: MemberApp; connection: MemberConnection; onDone: () => Promise<unknown> }) {
  const trpc = useTRPC();
  const [editing, setEditing] = useState(false);
  const [label, setLabel] = useState(connection.label ?? "");
  const relabel = useMutation(trpc.connections.relabel.mutationOptions({ onSuccess: () => onDone() }));
  const remove = useMutation(trpc.connections.disconnect.mutationOptions({ onSuccess: () => onDone() }));
  const title = connection.label ?? connection.accountLabel ?? "Connection";
  return (
    <li className="flex flex-wrap items-center gap-3" data-testid="connection">
      {editing ? (
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            relabel.mutate({ connectionId: connection.connectionId, label }, { onSuccess: () => setEditing(false) });
          }}
        >
          <TextField label="Label" value={label} onChange={(event) => setLabel(event.target.value)} error={relabel.error?.message} />
          <Button type="submit" disabled={relabel.isPending}>
            Save
          </Button>
          <Button type="button" variant="ghost" onClick={() => setEditing(false)}>
            Cancel
          </Button>
        </form>
      ) : (
        <>
          <span className="font-medium" data-testid="connection-label">
            {title}
          </span>
          {connection.label && connection.accountLabel ? <span className="text-muted">{connection.accountLabel}</span> : null}
          <span className="text-muted">{connection.status}</span>
          <Button variant="ghost" onClick={() => setEditing(true)}>
            Rename
          </Button>
          {/* With one connection the app's Disconnect is this; a second button doing the same confused. */}
          {app.connections.length > 1 ? (
            <ConfirmButton
              label="Remove"
              question={`Remove ${title}?`}
              confirmLabel="Yes, remove"
              disabled={remove.isPending}
              onConfirm={() => remove.mutate({ app: app.slug, connectionId: connection.connectionId })}
            />
          ) : null}
        </>
      )}
    </li>
  );
}
