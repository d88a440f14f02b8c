"use client";
// Tenant admins: which apps the workspace offers its members (toggles over the platform's catalogue),
// and which member is connected to which offered app (statuses only).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { card, table, tableScroll, td, th } from "@/components/admin/admin-page";
import { FormError } from "@/components/ui/field";
import { CONNECT_A_REAL_APP_DOC, setupHint, TRY_LOCALLY_DOC } from "@/lib/connections/app-setup";
import type { MemberAppStatus } from "@inlay/core/schemas/connections";
import { useTRPC } from "@/components/trpc/react";

const statusLabels: Record<MemberAppStatus, string> = {
  connected: "Connected",
  expired: "Expired",
  error: "Error",
  pending: "Connecting",
  not_connected: "—",
};

export function TenantAppsPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const apps = useQuery(trpc.connections.tenantApps.queryOptions());
  const members = useQuery(trpc.connections.memberConnections.queryOptions());
  const toggle = useMutation(
    trpc.connections.setTenantApp.mutationOptions({
      onSuccess: () =>
        Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.connections.tenantApps.queryKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.connections.memberConnections.queryKey() }),
        ]),
    }),
  );

  return (
    <>
      <div className={card}>
        <h2 className="mb-4 text-lg font-semibold">Apps your members may connect</h2>
        {apps.isPending ? <div className="h-24 animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading" /> : null}
        {apps.isError ? <FormError message={`Could not load the apps: ${apps.error.message}`} /> : null}
        <ul className="divide-y divide-line" aria-label="Offered apps">
          {apps.data?.map((app) => (
            <li key={app.slug} className="flex items-center justify-between gap-4 py-3" data-testid="tenant-app" data-app={app.slug}>
              <label className="flex min-w-0 items-center gap-3">
                <input
                  type="checkbox"
                  className="size-4 accent-accent"
                  checked={app.offered}
                  disabled={toggle.isPending}
                  onChange={(event) => toggle.mutate({ app: app.slug, enabled: event.target.checked })}
                />
                <span className="min-w-0">
                  <span className="font-medium">{app.name}</span>
                  {app.description ? <span className="block text-sm text-muted">{app.description}</span> : null}
                  {app.configured ? null : (
                    // Variable names and doc paths are long unbroken words: they wrap anywhere on a phone.
                    <span className="block text-sm text-muted [overflow-wrap:anywhere]" data-testid="app-setup-hint">
                      {setupHint(app.slug)} See {CONNECT_A_REAL_APP_DOC}.
                    </span>
                  )}
                </span>
              </label>
              <span className="text-sm text-muted">
                {app.auth === "api_key" ? "API key" : app.auth === "provisioned" ? "Provisioned" : "Sign-in"}
                {app.configured ? "" : " · not set up on this installation"}
              </span>
            </li>
          ))}
        </ul>
        <FormError message={toggle.error?.message} />
        {apps.data?.some((app) => !app.configured) ? (
          <p className="mt-4 text-sm text-muted [overflow-wrap:anywhere]">
            To try connections without registering anything: {TRY_LOCALLY_DOC} (in development, the Demo notes app works at once).
          </p>
        ) : null}
      </div>

      <div className={card}>
        <h2 className="mb-4 text-lg font-semibold">Members&apos; connections</h2>
        {members.isPending ? <div className="h-24 animate-pulse rounded-card bg-fg/5" aria-busy="true" aria-label="Loading" /> : null}
        {members.isError ? <FormError message={`Could not load members' connections: ${members.error.message}`} /> : null}
        {members.data && members.data.length === 0 ? <p className="text-sm text-muted">No member has used the agents yet.</p> : null}
        {members.data && members.data.length > 0 ? (
          <div className={tableScroll}>
            <table className={table} aria-label="Members' connections">
              <thead>
                <tr>
                  <th className={th}>Member</th>
                  {members.data[0]!.apps.map((app) => (
                    <th key={app.app} className={th}>
                      {apps.data?.find((each) => each.slug === app.app)?.name ?? app.app}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {members.data.map((member) => (
                  <tr key={member.userId} data-testid="member-connections">
                    <td className={td}>{member.name ?? member.email}</td>
                    {member.apps.map((app) => (
                      <td key={app.app} className={td} data-status={app.status}>
                        {statusLabels[app.status]}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </div>
    </>
  );
}
