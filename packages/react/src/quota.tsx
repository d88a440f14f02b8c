"use client";
// The member's quota and spend this month (GET <api>/quota): their runs and cost against their cap
// and the workspace's limit, as Inlay's console shows them. Refreshed after each chat turn below the
// same provider. `useInlayQuota` for a vendor's own drawing; `<InlayQuota>` draws it plainly.
import { useCallback, useEffect, useState } from "react";
import { exactTitle, formatMicros } from "@inlay/core/money";
import type { MyUsage } from "@inlay/core/schemas/tenancy";
import { useInlay } from "./provider";

export type InlayQuotaData = MyUsage;

export interface QuotaState {
  data?: InlayQuotaData;
  error?: string;
  loading: boolean;
  refresh(): Promise<void>;
}

export function useInlayQuota(): QuotaState {
  const config = useInlay();
  const [state, setState] = useState<{ data?: InlayQuotaData; error?: string; loading: boolean }>({ loading: true });
  const refresh = useCallback(async () => {
    try {
      const response = await (config.fetch ?? fetch)(`${config.api}/quota`, { headers: config.headers?.(), credentials: config.credentials ?? "same-origin" });
      const body = (await response.json().catch(() => null)) as (InlayQuotaData & { error?: undefined }) | { error?: { message?: string } } | null;
      if (!response.ok || !body || body.error) throw new Error(body?.error?.message ?? `Inlay answered ${response.status}`);
      setState({ data: body as InlayQuotaData, loading: false });
    } catch (error) {
      setState((current) => ({ ...current, error: error instanceof Error ? error.message : String(error), loading: false }));
    }
  }, [config]);
  useEffect(() => {
    // The first load; later ones follow each turn.
    queueMicrotask(() => void refresh());
    const onTurn = () => void refresh();
    config.turns?.addEventListener("turn-end", onTurn);
    return () => config.turns?.removeEventListener("turn-end", onTurn);
  }, [config.turns, refresh]);
  return { ...state, refresh };
}

function Meter({
  label,
  used,
  max,
  show,
  unit = "",
  exact,
  testId,
}: {
  label: string;
  used: number;
  max: number | null;
  show: (value: number) => string;
  unit?: string;
  exact?: string;
  testId: string;
}) {
  const text = `${show(used)} of ${max === null ? "unlimited" : show(max)}${unit ? ` ${unit}` : ""}`;
  return (
    <div className="ic-quota-row">
      <span className="ic-quota-label">{label}</span>
      <span data-testid={testId} title={exact}>
        {text}
      </span>
      {max !== null && (
        <meter min={0} max={max} value={Math.min(used, max)} aria-label={label} aria-valuetext={text} />
      )}
    </div>
  );
}

const count = (value: number) => String(value);

export function InlayQuota({ className = "" }: { className?: string }) {
  const quota = useInlayQuota();
  if (quota.loading && !quota.data) return <div className={`inlay-chat ic-quota ${className}`} aria-busy="true" aria-label="Loading your quota" />;
  if (!quota.data) return <p role="alert" className={`inlay-chat ic-quota ${className}`}>Could not load your quota: {quota.error}</p>;
  const { member, tenant, resetsAt } = quota.data;
  return (
    <section className={`inlay-chat ic-quota ${className}`} aria-label="Your quota this month" data-testid="inlay-quota">
      <Meter label="Your runs" used={member.runs.used} max={member.runs.max} show={count} unit="runs" testId="inlay-quota-runs" />
      <Meter label="Your cost" used={member.costMicros.used} max={member.costMicros.max} show={formatMicros} exact={exactTitle(member.costMicros.used)} testId="inlay-quota-cost" />
      {tenant.costMicros.max !== null && (
        <Meter label="Workspace cost" used={tenant.costMicros.used} max={tenant.costMicros.max} show={formatMicros} exact={exactTitle(tenant.costMicros.used)} testId="inlay-quota-workspace-cost" />
      )}
      <p className="ic-quota-note">Resets {new Date(resetsAt).toLocaleDateString(undefined, { dateStyle: "medium", timeZone: "UTC" })} (UTC).</p>
    </section>
  );
}
