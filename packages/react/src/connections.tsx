"use client";
// The apps the chatting person may connect (GET <api>/connections: the ones their workspace offers),
// with their status, Connect (a popup on Inlay: actions.ts connectApp) and Disconnect.
// `useInlayConnections` for a vendor's own drawing; `<InlayConnections>` draws it plainly.
import { useCallback, useEffect, useState } from "react";
import type { MemberApp } from "@inlay/core/schemas/connections";
import { connectApp, postAction } from "./actions";
import { useInlay } from "./provider";

export type InlayApp = MemberApp;

export interface ConnectionsState {
  apps?: InlayApp[];
  /** Loading or acting failed: what to show. */
  error?: string;
  loading: boolean;
  /** The app a connect or disconnect is under way for. */
  busy?: string;
  refresh(): Promise<void>;
  /** Call inside the click (it opens the popup at once). */
  connect(app: string): Promise<void>;
  disconnect(app: string, connectionId?: string): Promise<void>;
}

export function useInlayConnections(): ConnectionsState {
  const config = useInlay();
  const [state, setState] = useState<{ apps?: InlayApp[]; error?: string; loading: boolean; busy?: string }>({ loading: true });
  const refresh = useCallback(async () => {
    try {
      const response = await (config.fetch ?? fetch)(`${config.api}/connections`, { headers: config.headers?.(), credentials: config.credentials ?? "same-origin" });
      const body = (await response.json().catch(() => null)) as { apps?: InlayApp[]; error?: { message?: string } } | null;
      if (!response.ok || !body?.apps) throw new Error(body?.error?.message ?? `Inlay answered ${response.status}`);
      setState((current) => ({ ...current, apps: body.apps, error: undefined, loading: false }));
    } catch (error) {
      setState((current) => ({ ...current, error: error instanceof Error ? error.message : String(error), loading: false }));
    }
  }, [config]);
  useEffect(() => {
    queueMicrotask(() => void refresh());
  }, [refresh]);

  const connect = useCallback(
    async (app: string) => {
      const result = await connectApp(config, app, () => setState((current) => ({ ...current, busy: app, error: undefined })));
      setState((current) => ({ ...current, busy: undefined, error: result.status === "error" ? result.message : undefined }));
      if (result.status === "connected") await refresh();
    },
    [config, refresh],
  );
  const disconnect = useCallback(
    async (app: string, connectionId?: string) => {
      setState((current) => ({ ...current, busy: app, error: undefined }));
      const result = await postAction(config, { action: "disconnect", app, ...(connectionId ? { connectionId } : {}) });
      setState((current) => ({ ...current, busy: undefined, error: result.ok ? undefined : result.error.message }));
      await refresh();
    },
    [config, refresh],
  );
  return { ...state, refresh, connect, disconnect };
}

const statusText: Record<InlayApp["status"], string> = {
  connected: "Connected",
  expired: "Expired: connect again",
  error: "Failed",
  pending: "Connecting",
  not_connected: "Not connected",
};

export function InlayConnections({ className = "" }: { className?: string }) {
  const connections = useInlayConnections();
  if (connections.loading && !connections.apps) return <div className={`inlay-chat ic-connections ${className}`} aria-busy="true" aria-label="Loading your connections" />;
  if (!connections.apps) return <p role="alert" className={`inlay-chat ic-connections ${className}`}>Could not load your connections: {connections.error}</p>;
  return (
    <section className={`inlay-chat ic-connections ${className}`} aria-label="Connected apps" data-testid="inlay-connections">
      {connections.apps.length === 0 && <p className="ic-quota-note">Your workspace offers no apps to connect.</p>}
      <ul>
        {connections.apps.map((app) => (
          <li key={app.slug} data-app={app.slug}>
            <span>
              <strong>{app.name}</strong>{" "}
              <span className="ic-badge" data-status={app.status} data-testid="inlay-connection-status">
                {statusText[app.status]}
                {app.status === "connected" && app.accountLabel ? ` as ${app.accountLabel}` : ""}
              </span>
            </span>
            {app.status === "connected" ? (
              <button type="button" className="ic-btn" disabled={connections.busy === app.slug} onClick={() => void connections.disconnect(app.slug)}>
                Disconnect
              </button>
            ) : (
              <button type="button" className="ic-btn" data-variant="primary" disabled={connections.busy === app.slug} onClick={() => void connections.connect(app.slug)}>
                Connect
              </button>
            )}
          </li>
        ))}
      </ul>
      {connections.error && <p role="alert">{connections.error}</p>}
    </section>
  );
}
