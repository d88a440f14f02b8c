"use client";
// The chat inside the iframe that public/embed.js opens. It has no cookie: the host page hands it an
// embed token by postMessage, it keeps the token in memory, sends it as a header, and asks the host
// page for a fresh one before it expires. Messages are taken only from the parent window at the
// host origin the page was opened for, and sent only to that origin.
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { EMBED_TOKEN_HEADER_NAME, renewingFetch } from "@inlay/core/chat/renewing-fetch";
import { InlayChat } from "@inlay/react/inlay-chat";
import { InlayProvider } from "@inlay/react/provider";
import { toolViewRenderers } from "@inlay/react/tool-views";
import type { ToolViews } from "@inlay/core/chat/tool-views";

/**
 * Where the surface is. Every phase but "ready" is a message saying what is wrong and what to do,
 * never a blank panel: "refused" (not framed by the host it was opened for), "token-refused" (a token
 * minted for another site or agent, or one the server refuses), "unavailable" (the host page's token endpoint failed), "agent-missing"
 * (the workspace has no such agent, found out once the first token is here).
 */
type Phase = "waiting" | "ready" | "refused" | "token-refused" | "unavailable" | "agent-missing";

/** Seconds before expiry to ask for a new token. */
const REFRESH_MARGIN_S = 60;
/** How long a renewal after an expired token waits for the host page's answer. */
const RENEW_WAIT_MS = 15_000;

function claimsOf(token: string): { org?: unknown; exp?: unknown; agt?: unknown } | undefined {
  try {
    const payload = token.split(".")[1] ?? "";
    return JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/"))) as { org?: unknown; exp?: unknown; agt?: unknown };
  } catch {
    return undefined;
  }
}

export function EmbedSurface({
  agent,
  host,
  title,
  accent,
  toolViews,
}: {
  agent: string;
  host: string;
  title?: string;
  accent?: string;
  /** The workspace's drawing of some tools' calls (Admin → Embed), from the page. */
  toolViews?: ToolViews;
}) {
  const token = useRef<string>("");
  const [phase, setPhase] = useState<Phase>("waiting");
  // Why the token endpoint failed, as the host page's embed.js reported it.
  const [failure, setFailure] = useState("");
  const refresh = useRef<ReturnType<typeof setTimeout>>(undefined);
  // Renewals waiting for the host page's next token (a request refused as token_expired).
  const waiting = useRef<(() => void)[]>([]);

  const ask = useCallback(
    (type: "inlay:ready" | "inlay:token-request") => {
      if (window.parent !== window) window.parent.postMessage({ type, agent }, host);
    },
    [agent, host],
  );

  useEffect(() => {
    // The referrer (an origin, under the default policy) must agree with the host we were opened for.
    const referrer = document.referrer ? new URL(document.referrer).origin : host;
    if (window.parent === window || referrer !== host) {
      queueMicrotask(() => setPhase("refused"));
      return;
    }
    const onMessage = (event: MessageEvent) => {
      if (event.source !== window.parent || event.origin !== host) return;
      const data = event.data as { type?: unknown; token?: unknown; reason?: unknown } | null;
      if (data?.type === "inlay:token-error") {
        setFailure(typeof data.reason === "string" ? data.reason.slice(0, 300) : "");
        setPhase((current) => (current === "ready" || current === "agent-missing" ? current : "unavailable"));
        return;
      }
      if (data?.type !== "inlay:token" || typeof data.token !== "string") return;
      const claims = claimsOf(data.token);
      // A token minted for another site or another agent is refused here as well as on the server.
      if (!claims || claims.org !== host || (typeof claims.agt === "string" && claims.agt !== agent) || typeof claims.exp !== "number") {
        token.current = "";
        setPhase("token-refused");
        return;
      }
      token.current = data.token;
      for (const resolve of waiting.current.splice(0)) resolve();
      setPhase((current) => (current === "agent-missing" ? current : "ready"));
      clearTimeout(refresh.current);
      const wait = Math.max(5, claims.exp - Date.now() / 1000 - REFRESH_MARGIN_S) * 1000;
      refresh.current = setTimeout(() => ask("inlay:token-request"), wait);
    };
    window.addEventListener("message", onMessage);
    ask("inlay:ready");
    return () => {
      window.removeEventListener("message", onMessage);
      clearTimeout(refresh.current);
    };
  }, [agent, host, ask]);

  const headers = useCallback(() => ({ [EMBED_TOKEN_HEADER_NAME]: token.current, "x-inlay-embed-origin": host }), [host]);
  // A token that expired anyway (the refresh timer did not fire in a sleeping tab): ask for another,
  // and the request goes again once it is here.
  const fetcher = useCallback<typeof fetch>(
    (input, init) =>
      renewingFetch({
        token: () => token.current,
        renew: () =>
          new Promise<void>((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error("no new embed token")), RENEW_WAIT_MS);
            waiting.current.push(() => {
              clearTimeout(timer);
              resolve();
            });
            ask("inlay:token-request");
          }),
      })(input, init),
    [ask],
  );
  const theme = useMemo(() => ({ accent }), [accent]);
  const toolRenderers = useMemo(() => toolViewRenderers(toolViews ?? {}), [toolViews]);

  // With the first token, look the agent up (the `/` picker's list, which names a missing agent with
  // 404), so a wrong data-agent is said at once rather than on the first message. The chat shows
  // meanwhile: the lookup provisions the member on first use, which may take a moment.
  const looked = useRef(false);
  useEffect(() => {
    if (phase !== "ready" || looked.current) return;
    looked.current = true;
    void fetch(`/api/chat/commands?agent=${encodeURIComponent(agent)}`, { headers: headers() })
      .then((response) => {
        if (response.status === 404) setPhase("agent-missing");
      })
      .catch(() => {
        // Unreachable now: the chat says so itself on the next message.
      });
  }, [phase, agent, headers]);

  if (phase !== "ready") {
    const [headline, advice] =
      phase === "waiting"
        ? ["Connecting…", ""]
        : phase === "refused"
          ? ["This chat is not available on this site.", `It opens only inside a page of ${host}, through Inlay's embed script.`]
          : phase === "token-refused"
          ? [
              "This chat is not available on this site.",
              `The sign-in this page sent is for another site or agent. If this is your site, mint the token for ${host} and the agent "${agent}".`,
            ]
          : phase === "agent-missing"
            ? [
                `There is no agent "${agent}" in this workspace.`,
                "If this is your site, set data-agent to one of the workspace's agents (Admin → Embed lists them).",
              ]
            : [
                "The chat could not sign you in.",
                `${failure ? `This site's token endpoint failed: ${failure}. ` : "This site's token endpoint failed. "}Reload the page to try again; if it keeps failing, the site's owner should check its token endpoint.`,
              ];
    return (
      <div className="flex h-screen flex-col items-center justify-center gap-2 p-6 text-center text-sm" role={advice ? "alert" : "status"}>
        <p className={advice ? "font-medium" : "text-muted"}>{headline}</p>
        {advice && <p className="text-muted">{advice}</p>}
      </div>
    );
  }
  return (
    <InlayProvider headers={headers} fetch={fetcher} theme={theme} toolRenderers={toolRenderers}>
      <div className="h-screen">
        <InlayChat
          agent={agent}
          title={title ?? agent}
          persist="none"
          style={{ border: 0 }}
        />
      </div>
    </InlayProvider>
  );
}
