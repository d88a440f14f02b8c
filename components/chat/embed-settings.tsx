"use client";
// The tenant admin's embed settings: which sites may embed the chat (GET/PUT /api/embed/origins), the
// embed secrets their backend mints tokens with, how the chat draws some tools (tool views), and the
// copy-paste snippets (lib/embed/snippets.ts) for one of the workspace's own agents (docs/embedding.md).
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import { card } from "@/components/admin/admin-page";
import { EmbedSecretsPanel } from "@/components/admin/embed-secrets-panel";
import { ToolViewsPanel } from "@/components/admin/tool-views-panel";
import { Button } from "@/components/ui/button";
import { curlSnippet, expressSnippet, nextRouteSnippet, scriptTagSnippet } from "@/lib/embed/snippets";
import { useTRPC } from "@/components/trpc/react";

export function EmbedSettings({ appOrigin, tenantSlug }: { appOrigin: string; tenantSlug: string }) {
  const [text, setText] = useState("");
  const [saved, setSaved] = useState<string[] | null>(null);
  const [status, setStatus] = useState<{ tone: "ok" | "error"; message: string } | null>(null);
  const trpc = useTRPC();
  const agents = useQuery(trpc.agents.list.queryOptions());
  // Only the workspace's own agents: the token a backend mints names one of them.
  const tenantAgents = (agents.data?.agents ?? []).filter((each) => each.scope === "tenant");
  const [chosen, setChosen] = useState<string>();
  const agent = chosen ?? tenantAgents[0]?.name;

  useEffect(() => {
    let live = true;
    void fetch("/api/embed/origins")
      .then((response) => response.json() as Promise<{ origins?: string[] }>)
      .then((body) => {
        if (!live) return;
        setSaved(body.origins ?? []);
        setText((body.origins ?? []).join("\n"));
      });
    return () => {
      live = false;
    };
  }, []);

  const save = async () => {
    const origins = text.split(/\s+/).map((line) => line.trim()).filter(Boolean);
    const response = await fetch("/api/embed/origins", {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ origins }),
    });
    const body = (await response.json()) as { origins?: string[]; error?: { message: string } };
    if (response.ok && body.origins) {
      setSaved(body.origins);
      setText(body.origins.join("\n"));
      setStatus({ tone: "ok", message: "Saved." });
    } else {
      setStatus({ tone: "error", message: body.error?.message ?? "Could not save." });
    }
  };

  const context = agent ? { appOrigin, tenantSlug, agent } : undefined;
  const react = agent ? `<InlayProvider>\n  <InlayChat agent=${JSON.stringify(agent)} title=${JSON.stringify(agent)} />\n</InlayProvider>` : "";
  const origin = saved?.[0] ?? "https://shop.example.com";

  return (
    <>
      <div className={card}>
        <h2 className="text-lg font-semibold">Allowed sites</h2>
        <p className="mt-1 text-sm text-muted">
          One origin per line (https://shop.example.com). Only these sites can frame the chat, and embed tokens are issued only for them.
        </p>
        <label htmlFor="embed-origins" className="mt-4 block text-sm font-medium">
          Origins
        </label>
        <textarea
          id="embed-origins"
          className="mt-1 block min-h-28 w-full rounded-lg border border-line bg-surface p-3 font-mono text-sm outline-none focus:border-accent"
          value={text}
          disabled={saved === null}
          onChange={(event) => setText(event.target.value)}
          aria-describedby={status ? "embed-origins-status" : undefined}
        />
        <div className="mt-3 flex items-center gap-3">
          <Button type="button" onClick={() => void save()} disabled={saved === null}>
            Save
          </Button>
          {status && (
            <p id="embed-origins-status" role={status.tone === "error" ? "alert" : "status"} className={status.tone === "error" ? "text-sm text-danger" : "text-sm text-muted"}>
              {status.message}
            </p>
          )}
        </div>
      </div>
      <EmbedSecretsPanel />
      <ToolViewsPanel />
      <div className={card}>
        <h2 className="text-lg font-semibold">Snippets</h2>
        {agents.isLoading ? (
          <p className="mt-4 text-sm text-muted">Loading agents…</p>
        ) : !context ? (
          <p className="mt-4 text-sm text-muted" role="status">
            This workspace has no agent yet: create one on the <Link className="underline" href="/agents">Agents</Link> page, and its snippets show here.
          </p>
        ) : (
          <>
            <label htmlFor="embed-agent" className="mt-4 block text-sm font-medium">
              Agent
            </label>
            <select
              id="embed-agent"
              className="mt-1 block h-10 w-64 rounded-lg border border-line bg-surface px-3 text-sm outline-none focus:border-accent"
              value={agent}
              onChange={(event) => setChosen(event.target.value)}
            >
              {tenantAgents.map((each) => (
                <option key={each.id} value={each.name}>
                  {each.name}
                </option>
              ))}
            </select>
            <h3 className="mt-6 text-sm font-medium">1. Script tag (any page of your site)</h3>
            <pre className="mt-2 overflow-x-auto rounded-lg border border-line bg-bg p-3 text-xs" data-testid="snippet-script">
              {scriptTagSnippet(context)}
            </pre>
            <h3 className="mt-6 text-sm font-medium">2. Your backend&apos;s token route: Node.js (Express)</h3>
            <pre className="mt-2 overflow-x-auto rounded-lg border border-line bg-bg p-3 text-xs" data-testid="snippet-express">
              {expressSnippet(context)}
            </pre>
            <h3 className="mt-6 text-sm font-medium">…or a Next.js route handler</h3>
            <pre className="mt-2 overflow-x-auto rounded-lg border border-line bg-bg p-3 text-xs" data-testid="snippet-next">
              {nextRouteSnippet(context)}
            </pre>
            <h3 className="mt-6 text-sm font-medium">…or try it with curl</h3>
            <pre className="mt-2 overflow-x-auto rounded-lg border border-line bg-bg p-3 text-xs" data-testid="snippet-curl">
              {curlSnippet(context, origin)}
            </pre>
            <h3 className="mt-6 text-sm font-medium">React (pages of this app)</h3>
            <pre className="mt-2 overflow-x-auto rounded-lg border border-line bg-bg p-3 text-xs">{react}</pre>
            <p className="mt-4 text-sm text-muted">
              Each user of your site becomes a member of this workspace on first use (by your user id), under its limits and member caps. See
              docs/embedding.md.
            </p>
          </>
        )}
      </div>
    </>
  );
}
