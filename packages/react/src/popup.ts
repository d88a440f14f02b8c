// Browser only: the popup of an app's connect flow (the console's Connections page and the chat's
// connect card). The popup is opened blank inside the click, before the authorization URL is known
// (an await first would get it blocked), then sent there. window.open returning null means popups
// are blocked: the caller falls back to sending the page itself.
import { CONNECTION_MESSAGE_TYPE, connectionMessageFrom, type ConnectionMessage } from "@inlay/core/connections/flow";

export function openConnectPopup(): Window | null {
  try {
    return window.open("about:blank", "inlay-connect", "popup,width=560,height=720");
  } catch {
    return null;
  }
}

export type ConnectionOutcome = ConnectionMessage | { type: "closed"; app: string };

/**
 * The callback page's message for `app`: posted to this window (its opener), or on the
 * BroadcastChannel when an OAuth page's COOP cut the opener off; `closed` when the popup went away
 * without one. The returned function stops listening.
 */
export function onConnectionOutcome(
  app: string,
  popup: Window | null,
  done: (outcome: ConnectionOutcome) => void,
  /** Inlay's origin, whose callback page posts the outcome: this page's unless Inlay is elsewhere (a vendor's page). */
  from: string = window.location.origin,
): () => void {
  let finished = false;
  const finish = (outcome: ConnectionOutcome) => {
    if (finished) return;
    finished = true;
    stop();
    done(outcome);
  };
  const onMessage = (event: MessageEvent) => {
    const message = connectionMessageFrom(event, from);
    if (message && message.app === app) finish(message);
  };
  window.addEventListener("message", onMessage);
  let channel: BroadcastChannel | undefined;
  try {
    channel = new BroadcastChannel(CONNECTION_MESSAGE_TYPE);
    // Same-origin only: it carries Inlay's own pages' outcomes.
    channel.onmessage = (event) => onMessage(new MessageEvent("message", { data: event.data, origin: window.location.origin }));
  } catch {
    channel = undefined;
  }
  // A closed popup may still have posted its message a moment before: wait a little after it closes.
  const timer = popup
    ? window.setInterval(() => {
        if (popup.closed) window.setTimeout(() => finish({ type: "closed", app }), 500);
      }, 500)
    : undefined;
  function stop() {
    window.removeEventListener("message", onMessage);
    channel?.close();
    if (timer !== undefined) window.clearInterval(timer);
  }
  return stop;
}

/** Sends an opened popup to the authorization URL, or (no popup) the page itself. */
export function goToAuthorization(popup: Window | null, authorizationUrl: string): void {
  if (popup && !popup.closed) popup.location.href = authorizationUrl;
  else window.location.assign(authorizationUrl);
}
