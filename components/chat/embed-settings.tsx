"use client";
// The tenant admin's embed settings: which sites may embed the chat (GET/PUT /api/embed/origins) and
// the copy-paste snippets for the script tag and the React component (docs/embedding.md).
import { useEffect, useState } from "react";
import { card } from "@/components/admin/admin-page";
import { Button } from "@/components/ui/button";

export function EmbedSettings({ appOrigin, tenantSlug }: { appOrigin: string; tenantSlug: string }) {
  const [text, setText] = useState("");
  const [saved, setSaved] = useState<string[] | null>(null);
  const [status, setStatus] = useState<{ tone: "ok" | "error"; message: string } | null>(null);
  const [agent, setAgent] = useState("Support");

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

  const script = `<script src="${appOrigin}/embed.js" data-agent="${agent}" data-tenant="${tenantSlug}" data-title="${agent}" data-token-url="/api/inlay-token" async></script>`;
  const react = `<InlayProvider>\n  <InlayChat agent="${agent}" title="${agent}" />\n</InlayProvider>`;

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
      <div className={card}>
        <h2 className="text-lg font-semibold">Snippets</h2>
        <label htmlFor="embed-agent" className="mt-4 block text-sm font-medium">
          Agent
        </label>
        <input
          id="embed-agent"
          className="mt-1 block h-10 w-64 rounded-lg border border-line bg-surface px-3 text-sm outline-none focus:border-accent"
          value={agent}
          onChange={(event) => setAgent(event.target.value.replace(/["<>]/g, ""))}
        />
        <h3 className="mt-6 text-sm font-medium">Script tag (any website)</h3>
        <pre className="mt-2 overflow-x-auto rounded-lg border border-line bg-bg p-3 text-xs">{script}</pre>
        <h3 className="mt-6 text-sm font-medium">React (pages of this app)</h3>
        <pre className="mt-2 overflow-x-auto rounded-lg border border-line bg-bg p-3 text-xs">{react}</pre>
        <p className="mt-4 text-sm text-muted">
          Your backend answers <code>data-token-url</code> with a token for the signed-in visitor: see docs/embedding.md.
        </p>
      </div>
    </>
  );
}
