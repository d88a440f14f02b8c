"use client";
// The console's home: who is signed in and the tenants (workspaces) they belong to, read through tRPC.
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/lib/trpc/react";

export function WorkspaceOverview() {
  const trpc = useTRPC();
  const me = useQuery(trpc.me.get.queryOptions());

  if (me.isPending) {
    return <div className="h-40 animate-pulse rounded-card bg-black/5" aria-busy="true" aria-label="Loading" />;
  }
  if (me.isError) {
    return (
      <p role="alert" className="text-danger">
        Could not load your workspaces: {me.error.message}
      </p>
    );
  }

  const { user, memberships, activeTenant } = me.data;
  return (
    <section aria-labelledby="welcome">
      <p className="text-sm font-medium text-accent">{activeTenant ? activeTenant.name : "No workspace yet"}</p>
      <h1 id="welcome" className="mt-1 text-3xl font-semibold tracking-tight">
        Welcome, {user.name ?? user.email}
      </h1>
      {user.isOwner ? (
        <p className="mt-2 text-muted">You own this Inlay installation and administer every tenant.</p>
      ) : null}

      <h2 className="mt-10 text-sm font-semibold uppercase tracking-wide text-muted">Your workspaces</h2>
      {memberships.length === 0 ? (
        <p className="mt-3 text-muted">You do not belong to a tenant yet.</p>
      ) : (
        <ul className="mt-3 grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
          {memberships.map(({ tenant, role }) => (
            <li
              key={tenant.id}
              className="rounded-card border border-line bg-surface p-5 shadow-sm"
              data-testid="workspace"
            >
              <div className="flex items-center justify-between">
                <span className="text-lg font-medium">{tenant.name}</span>
                <span className="rounded-full bg-accent/10 px-2.5 py-0.5 text-xs font-medium text-accent">
                  {role}
                </span>
              </div>
              <p className="mt-1 text-sm text-muted">{tenant.slug}</p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
