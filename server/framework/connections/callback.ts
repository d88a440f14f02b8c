// GET /api/connections/callback/<state>: where the platform sends the browser after an app's OAuth
// consent (query: connection_id, app, status, error_description). The signed state says who started
// the flow (tenant, user, app, return path, popup or redirect).
//
// The connection is completed only with the credentials of the browser that started it, never on
// the state alone: otherwise someone could start a flow, send its authorization URL to another
// person, and own the connection that person's consent fills (OAuth's login CSRF). So:
// - a next-auth session of the state's member here: the callback completes it ("connected");
// - a popup without that session (the embed: its token lives in the iframe that opened the popup):
//   the page hands {status: "authorized", connectionId} to its opener, which completes it with its
//   own credentials (a connection of another end-user is the platform's 404 there);
// - anything else completes nothing.
// The page posts {type: "inlay:connection", …} to window.opener (target: this origin, or the vendor's
// page origin the state names for @inlay/react in that page; also on a
// BroadcastChannel, for an opener an OAuth page's COOP cut off) and closes; in the redirect fallback
// it goes back to the validated return path.
import { randomBytes } from "node:crypto";
import type { Db } from "@/server/shared/db";
import { CONNECTION_MESSAGE_TYPE, CONNECTIONS_PATH, returnUrlWithOutcome, safeReturnTo, type ConnectionMessage } from "@inlay/core/connections/flow";
import { PlatformApiError } from "@inlay/core/platform-client";
import { logger } from "@/lib/logger";
import { escapeHtml } from "@/server/framework/embed/html";
import { completeConnection } from "@/server/framework/tenancy/connections";
import { verifyConnectionState, type ConnectionState } from "@/server/framework/tenancy/connection-state";
import type { PlatformConnection } from "@/server/framework/tenancy/platform-connection";
import { lazyPlatformClient } from "@/server/framework/tenancy/platform-users";
import { listMemberships } from "@/server/framework/tenancy/repository";
import { TenancyError } from "@/server/framework/tenancy/errors";

export interface CallbackDeps {
  prisma: Db;
  connect: () => Promise<PlatformConnection>;
  /** The user id of this browser's next-auth session, if any. */
  sessionUserId: () => Promise<string | undefined>;
  /** The state's key (tests); lib/env's by default. */
  secret?: string;
}

export interface CallbackOutcome {
  message: ConnectionMessage;
  mode: ConnectionState["mode"];
  returnTo: string;
  /** The opener's origin the message goes to, when it is not Inlay's own (the state's `opener`). */
  opener?: string;
}

async function outcomeOf(url: URL, stateToken: string, deps: CallbackDeps): Promise<CallbackOutcome> {
  const query = url.searchParams;
  const app = query.get("app") ?? "";
  const state = await verifyConnectionState(stateToken, { secret: deps.secret });
  const outcome = (message: Omit<ConnectionMessage, "type" | "app">, from?: ConnectionState): CallbackOutcome => ({
    message: { type: CONNECTION_MESSAGE_TYPE, app: from?.app ?? app, ...message },
    mode: from?.mode ?? "popup",
    returnTo: safeReturnTo(from?.returnTo, CONNECTIONS_PATH),
    ...(from?.opener ? { opener: from.opener } : {}),
  });
  const fail = (message: string, from?: ConnectionState) => outcome({ status: "error", message }, from);
  if (!state) return fail("This sign-in link has expired or is not valid. Start connecting again.");
  if (app && app !== state.app) return fail("The answer was for another app.", state);
  if (query.get("status") !== "authorized") {
    return fail(query.get("error_description")?.slice(0, 300) || "The app did not grant access.", state);
  }
  const connectionId = query.get("connection_id");
  if (!connectionId) return fail("The answer named no connection.", state);

  if ((await deps.sessionUserId()) !== state.userId) {
    // Not the starter's session: only the popup's opener, with its own credentials, may complete it.
    if (state.mode === "popup") return outcome({ status: "authorized", connectionId }, state);
    return fail("Sign in as the person who started connecting, then connect again.", state);
  }
  // Still a member of the tenant now: the state outlives nothing the tenant has taken back.
  const membership = (await listMemberships(deps.prisma, state.userId)).find((each) => each.tenant.id === state.tenantId);
  if (!membership) return fail("You are no longer a member of this workspace.", state);
  try {
    const client = await lazyPlatformClient(deps.prisma, deps.connect, membership.tenant, state.userId)();
    await completeConnection(deps.prisma, client, state.tenantId, { app: state.app, connectionId });
  } catch (error) {
    if (error instanceof TenancyError || (error instanceof PlatformApiError && error.status !== undefined && error.status < 500)) {
      return fail(error.message, state);
    }
    logger.error({ err: error }, "completing an app connection failed");
    return fail("The connection could not be completed. Try again.", state);
  }
  return outcome({ status: "connected" }, state);
}

/** JSON inside <script type="application/json">: "<" escaped so no "</script>" can close it early. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

const texts: Record<ConnectionMessage["status"], string> = {
  connected: "Connected. You can close this window.",
  authorized: "Access granted. Finishing in the window you started from…",
  error: "Not connected",
};

export function callbackPage(outcome: CallbackOutcome, nonce: string): string {
  const { message } = outcome;
  // The redirect fallback never hands over a connection: its page completes nothing.
  const returnUrl = returnUrlWithOutcome(outcome.returnTo, { app: message.app, status: message.status === "connected" ? "connected" : "error" });
  const text = message.status === "error" ? `${texts.error}: ${message.message ?? "unknown error"}` : texts[message.status];
  const script = `(function(){
var data=JSON.parse(document.getElementById("inlay-connection").textContent);
if(data.mode==="redirect"){location.replace(data.returnUrl);return;}
try{new BroadcastChannel(data.message.type).postMessage(data.message);}catch(e){}
if(window.opener){try{window.opener.postMessage(data.message,data.opener||location.origin);}catch(e){}window.close();}
else{window.close();setTimeout(function(){location.replace(data.returnUrl);},300);}
})();`;
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Connecting…</title><meta name="robots" content="noindex"></head>` +
    `<body style="font-family:system-ui,sans-serif;padding:2rem">` +
    `<p id="inlay-connection-text" data-status="${escapeHtml(message.status)}">${escapeHtml(text)}</p>` +
    `<p><a href="${escapeHtml(returnUrl)}">Back to Inlay</a></p>` +
    `<script type="application/json" id="inlay-connection">${scriptJson({ message, mode: outcome.mode, returnUrl, ...(outcome.opener ? { opener: outcome.opener } : {}) })}</script>` +
    `<script nonce="${nonce}">${script}</script></body></html>`
  );
}

export async function handleConnectionCallback(request: Request, stateToken: string, deps: CallbackDeps): Promise<Response> {
  const outcome = await outcomeOf(new URL(request.url), stateToken, deps);
  const nonce = randomBytes(16).toString("base64");
  return new Response(callbackPage(outcome, nonce), {
    status: 200,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      // The state is in the URL: it must not leak to the pages linked from here.
      "referrer-policy": "no-referrer",
      "content-security-policy": `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'`,
    },
  });
}
