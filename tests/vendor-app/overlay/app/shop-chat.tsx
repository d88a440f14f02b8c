"use client";
// Step 3 of docs/integrate.md: Inlay's chat in the shop's own React tree, with the shop's own drawing
// of the calculator's calls (an approval with the shop's buttons, then its result).
import { InlayChat, InlayConnections, InlayProvider, InlayQuota, type ToolRenderersFor } from "@inlay/react";
import "@inlay/react/styles.css";

type Tools = { calculator: { input: { expression: string }; output: { result: number } } };

const renderers: ToolRenderersFor<Tools> = {
  calculator: ({ input, output, state, approval }) => (
    <div data-testid="shop-calculator" data-state={state} className="shop-card">
      <strong>Sum</strong> <code>{input?.expression}</code>
      {output && <span data-testid="shop-result"> = {output.result}</span>}
      {approval && !approval.answered && (
        <span>
          <button type="button" onClick={() => void approval.allow()}>
            Work it out
          </button>
          <button type="button" onClick={() => void approval.deny()}>
            No thanks
          </button>
        </span>
      )}
    </div>
  ),
};

const getSession = async () => {
  const response = await fetch("/api/inlay-session", { method: "POST" });
  if (!response.ok) throw new Error(`the shop's session route answered ${response.status}`);
  return response.json();
};

export function ShopChat({ inlayUrl, agent }: { inlayUrl: string; agent: string }) {
  return (
    <InlayProvider url={inlayUrl} session={getSession} theme={{ accent: "#0f766e" }} toolRenderers={renderers}>
      <InlayQuota />
      <div style={{ height: 520 }}>
        <InlayChat agent={agent} title="Acme help" className="shop-chat" />
      </div>
      <InlayConnections />
    </InlayProvider>
  );
}
