// A vendor's page on React 18 (the oldest React @inlay/react supports as a peer), bundled by esbuild
// with react and react-dom resolved to React 18.3 (tests/vendor-app/react18/serve.ts): the same
// provider, chat, tool renderer and quota as the Next.js shop's, without Next.
import { version } from "react";
import { createRoot } from "react-dom/client";
import { InlayChat, InlayProvider, InlayQuota, type ToolRenderersFor } from "@inlay/react";
import "@inlay/react/styles.css";

type Tools = { calculator: { input: { expression: string }; output: { result: number } } };

const renderers: ToolRenderersFor<Tools> = {
  calculator: ({ input, output, state, approval }) => (
    <div data-testid="r18-calculator" data-state={state}>
      <code>{input?.expression}</code>
      {output && <span data-testid="r18-result"> = {output.result}</span>}
      {approval && !approval.answered && (
        <button type="button" onClick={() => void approval.allow()}>
          Work it out
        </button>
      )}
    </div>
  ),
};

const getSession = async () => {
  const response = await fetch("/api/inlay-session", { method: "POST" });
  if (!response.ok) throw new Error(`the page's session route answered ${response.status}`);
  return response.json();
};

const { inlay, agent } = document.body.dataset as { inlay: string; agent: string };
createRoot(document.getElementById("root")!).render(
  <InlayProvider url={inlay} session={getSession} toolRenderers={renderers}>
    <p data-testid="react-version">React {version}</p>
    <InlayQuota />
    <div style={{ height: 480 }}>
      <InlayChat agent={agent} title="React 18 shop" />
    </div>
  </InlayProvider>,
);
