"use client";
// Switches the active tenant: tenants.switch sets the cookie (the server checks membership), then
// every query and the server-rendered layout are refreshed for the new tenant.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId } from "react";
import { useTRPC } from "@/lib/trpc/react";

export function TenantSwitcher({
  tenants,
  activeSlug,
}: {
  tenants: { slug: string; name: string }[];
  activeSlug: string | null;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const id = useId();
  const switchTenant = useMutation(
    trpc.tenants.switch.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries();
        router.refresh();
      },
    }),
  );
  if (tenants.length === 0) return null;
  if (tenants.length === 1) return <span className="text-sm font-medium">{tenants[0]!.name}</span>;
  return (
    <div className="flex items-center gap-2 text-sm">
      <label htmlFor={id} className="text-muted">
        Workspace
      </label>
      <select
        id={id}
        value={activeSlug ?? ""}
        disabled={switchTenant.isPending}
        onChange={(event) => switchTenant.mutate({ slug: event.target.value })}
        className="h-9 rounded-lg border border-line bg-surface px-2 text-sm outline-none focus:border-accent focus:ring-2 focus:ring-accent/20"
      >
        {tenants.map((tenant) => (
          <option key={tenant.slug} value={tenant.slug}>
            {tenant.name}
          </option>
        ))}
      </select>
    </div>
  );
}
