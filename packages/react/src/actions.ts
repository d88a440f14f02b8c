// POST <api>/actions (server/framework/chat/bridge.ts), and the connect flow that rides on it: the
// chat's connect card and <InlayConnections> both connect an app this way.
import type { ChatAction } from "@inlay/core/chat/contract";
import type { ChatError } from "@inlay/core/chat/types";
import { goToAuthorization, onConnectionOutcome, openConnectPopup } from "./popup";
import type { InlayConfig } from "./provider";

export type ActionResult = { ok: true; result?: unknown } | { ok: false; error: ChatError };

export async function postAction(config: InlayConfig, action: ChatAction): Promise<ActionResult> {
  try {
    const response = await (config.fetch ?? fetch)(`${config.api}/actions`, {
      method: "POST",
      credentials: config.credentials ?? "same-origin",
      headers: { "content-type": "application/json", ...config.headers?.() },
      body: JSON.stringify(action),
    });
    if (response.ok) return { ok: true, result: ((await response.json().catch(() => null)) as { result?: unknown } | null)?.result };
    const body = (await response.json().catch(() => null)) as { error?: ChatError } | null;
    return { ok: false, error: body?.error ?? { kind: "unknown", message: `The action failed (${response.status}).` } };
  } catch {
    return { ok: false, error: { kind: "connection", message: "The action could not be sent. Check your connection." } };
  }
}

export type ConnectResult = { status: "connected" } | { status: "closed" } | { status: "redirected" } | { status: "error"; message: string };

/**
 * Connects `app` for the chatting person: a popup on Inlay's authorization (opened at once, so call
 * this inside the click), its outcome completed with this page's own credentials. Only Inlay's own
 * signed-in pages may fall back to sending the page itself when popups are blocked: an embed or a
 * vendor's page would lose its session (and its place) on the way.
 */
export async function connectApp(config: InlayConfig, app: string, onStarted?: () => void): Promise<ConnectResult> {
  const popup = openConnectPopup();
  const inlayOrigin = new URL(config.api, window.location.href).origin;
  const cookieSession = inlayOrigin === window.location.origin && !config.headers && !config.fetch;
  if (!popup && !cookieSession) return { status: "error", message: "Your browser blocked the sign-in window. Allow pop-ups for this site, then Connect again." };
  onStarted?.();
  const started = await postAction(config, {
    action: "connect",
    app,
    mode: popup ? "popup" : "redirect",
    ...(popup ? {} : { returnTo: `${window.location.pathname}${window.location.search}` }),
  });
  const authorizationUrl = started.ok ? (started.result as { authorizationUrl?: string } | undefined)?.authorizationUrl : undefined;
  if (!authorizationUrl) {
    popup?.close();
    return { status: "error", message: started.ok ? "The app could not be connected." : started.error.message };
  }
  if (!popup) {
    goToAuthorization(null, authorizationUrl);
    return { status: "redirected" };
  }
  const outcome = new Promise<ConnectResult>((resolve) => {
    onConnectionOutcome(
      app,
      popup,
      async (message) => {
        if (message.type === "closed") return resolve({ status: "closed" });
        if (message.status === "authorized" && message.connectionId) {
          // The popup had no session of ours (an embed, a vendor's page): complete it with this page's.
          const completed = await postAction(config, { action: "complete", app, connectionId: message.connectionId });
          return resolve(completed.ok ? { status: "connected" } : { status: "error", message: completed.error.message });
        }
        if (message.status === "connected") return resolve({ status: "connected" });
        resolve({ status: "error", message: message.message ?? "The app was not connected." });
      },
      inlayOrigin,
    );
  });
  goToAuthorization(popup, authorizationUrl);
  return outcome;
}
