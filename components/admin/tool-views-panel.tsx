"use client";
// Admin → Embed: the workspace's tool views (GET/PUT /api/embed/tool-views), how the chat framed on
// its sites draws some tools' calls: a title and fields read from the call, instead of raw JSON.
// Edited as JSON; the server checks it and names what is wrong.
import { useEffect, useState } from "react";
import { card } from "@/components/admin/admin-page";
import { Button } from "@/components/ui/button";

const EXAMPLE = `{
  "crm__get_order": {
    "title": "Order {input.id}",
    "fields": [
      { "label": "Status", "value": "output.status" },
      { "label": "Total", "value": "output.total" }
    ],
    "allowLabel": "Look it up"
  }
}`;

export function ToolViewsPanel() {
  const [text, setText] = useState("");
  const [loaded, setLoaded] = useState(false);
  const [status, setStatus] = useState<{ tone: "ok" | "error"; message: string } | null>(null);

  useEffect(() => {
    let live = true;
    void fetch("/api/embed/tool-views")
      .then((response) => response.json() as Promise<{ views?: Record<string, unknown> }>)
      .then((body) => {
        if (!live) return;
        const views = body.views ?? {};
        setText(Object.keys(views).length > 0 ? JSON.stringify(views, null, 2) : "");
        setLoaded(true);
      });
    return () => {
      live = false;
    };
  }, []);

  const save = async () => {
    let views: unknown;
    try {
      views = text.trim() ? JSON.parse(text) : {};
    } catch (error) {
      setStatus({ tone: "error", message: `Not JSON: ${(error as Error).message}` });
      return;
    }
    const response = await fetch("/api/embed/tool-views", {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ views }),
    });
    const body = (await response.json()) as { views?: Record<string, unknown>; error?: { message: string } };
    if (response.ok && body.views) {
      setText(Object.keys(body.views).length > 0 ? JSON.stringify(body.views, null, 2) : "");
      setStatus({ tone: "ok", message: "Views saved." });
    } else {
      setStatus({ tone: "error", message: body.error?.message ?? "Could not save." });
    }
  };

  return (
    <div className={card}>
      <h2 className="text-lg font-semibold">Tool views</h2>
      <p className="mt-1 text-sm text-muted">
        How the chat on your sites shows some tools&apos; calls: a title and the fields to read from the call&apos;s input and output (input.id,
        output.order.total, output.lines[0].sku), with Allow and Deny while it waits. Other tools show as usual. Shown as text only.
      </p>
      <label htmlFor="embed-tool-views" className="mt-4 block text-sm font-medium">
        Views (JSON, by tool name)
      </label>
      <textarea
        id="embed-tool-views"
        className="mt-1 block min-h-40 w-full rounded-lg border border-line bg-surface p-3 font-mono text-xs outline-none focus:border-accent"
        value={text}
        placeholder={EXAMPLE}
        disabled={!loaded}
        onChange={(event) => setText(event.target.value)}
        aria-describedby={status ? "embed-tool-views-status" : undefined}
      />
      <div className="mt-3 flex items-center gap-3">
        <Button type="button" onClick={() => void save()} disabled={!loaded}>
          Save views
        </Button>
        {status && (
          <p id="embed-tool-views-status" role={status.tone === "error" ? "alert" : "status"} className={status.tone === "error" ? "text-sm text-danger" : "text-sm text-muted"}>
            {status.message}
          </p>
        )}
      </div>
    </div>
  );
}
