"use client";
// Switches the active tenant: tenants.switch sets the cookie (the server checks membership), then the
// route is refreshed for the new tenant (the tRPC pages' provider is keyed by it, so their query cache
// starts afresh). The header is on every console page, so the tRPC client is loaded only when
// someone actually switches.
import { useRouter } from "next/navigation";
import { useId, useState, useTransition } from "react";
import { clearChatStorage } from "@inlay/react/storage";

export function TenantSwitcher({
  tenants,
  activeSlug,
}: {
  tenants: { slug: string; name: string }[];
  activeSlug: string | null;
}) {
  const router = useRouter();
  const id = useId();
  const [switching, setSwitching] = useState(false);
  const [refreshing, startRefresh] = useTransition();
  const [problem, setProblem] = useState("");

  const switchTo = async (slug: string) => {
    setSwitching(true);
    setProblem("");
    try {
      const { createTrpcClient } = await import("@/components/trpc/client");
      await createTrpcClient().tenants.switch.mutate({ slug });
      clearChatStorage();
      startRefresh(() => router.refresh());
    } catch {
      setProblem("The workspace could not be switched.");
    } finally {
      setSwitching(false);
    }
  };

  if (tenants.length === 0) return null;
  if (tenants.length === 1) return <span className="truncate text-sm font-medium">{tenants[0]!.name}</span>;
  return (
    <div className="flex items-center gap-2 text-sm">
      {/* On a phone the select speaks for itself; the label stays for screen readers. */}
      <label htmlFor={id} className="sr-only text-muted sm:not-sr-only">
        Workspace
      </label>
      <select
        id={id}
        value={activeSlug ?? ""}
        disabled={switching || refreshing}
        onChange={(event) => void switchTo(event.target.value)}
        aria-describedby={problem ? `${id}-problem` : undefined}
        className="h-9 min-w-0 max-w-40 rounded-lg border border-line bg-surface px-2 text-sm outline-none focus:border-accent focus:ring-2 focus:ring-accent/20"
      >
        {tenants.map((tenant) => (
          <option key={tenant.slug} value={tenant.slug}>
            {tenant.name}
          </option>
        ))}
      </select>
      {problem && (
        <span id={`${id}-problem`} role="alert" className="text-danger">
          {problem}
        </span>
      )}
    </div>
  );
}
