"use client";
// The buttons of the chat's cards and Stop: POST /api/chat/actions (server/framework/chat/bridge.ts). A card
// shows the person's choice at once ("Allowing…") until the run's stream confirms it.
import { useCallback, useState } from "react";
import type { ChatAction } from "@inlay/core/chat/contract";
import type { ChatDataTypes, ChatError } from "@inlay/core/chat/types";
import { goToAuthorization, onConnectionOutcome, openConnectPopup } from "./popup";
import type { InlayConfig } from "./provider";
import { connectionKey, type CardActions } from "./parts";

export interface ChatActionsApi extends CardActions {
  cancel(runId: number): Promise<boolean>;
}

async function post(config: InlayConfig, action: ChatAction): Promise<{ ok: true; result?: unknown } | { ok: false; error: ChatError }> {
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

export function useChatActions(config: InlayConfig, runId: number | undefined, onConnected?: () => void): ChatActionsApi {
  const [local, setLocal] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});

  const run = useCallback(
    async (requestId: string, label: string, action: ChatAction) => {
      setLocal((current) => ({ ...current, [requestId]: label }));
      setErrors((current) => ({ ...current, [requestId]: "" }));
      const result = await post(config, action);
      if (!result.ok) {
        setLocal(({ [requestId]: _dropped, ...rest }) => rest);
        setErrors((current) => ({ ...current, [requestId]: result.error.message }));
      }
    },
    [config],
  );

  return {
    local,
    errors,
    approve: async (request, decision, scope = "once") => {
      if (runId === undefined) return;
      await run(request.requestId, decision === "allow" ? (scope === "always" ? "Always allowed" : "Allowing…") : "Denying…", {
        action: "approve",
        runId,
        requestId: request.requestId,
        decision,
        ...(scope === "run" ? { remember: true } : {}),
        ...(scope === "always" ? { always: true, toolName: request.toolName } : {}),
      });
    },
    answer: async (requestId, answers) => {
      if (runId === undefined) return;
      await run(requestId, "Sending…", { action: "answer", runId, requestId, answers });
    },
    connect: async (request: ChatDataTypes["connection"]) => {
      const { requestId, app } = request;
      const key = connectionKey(requestId);
      const drop = () => setLocal(({ [key]: _dropped, ...rest }) => rest);
      const fail = (message: string) => setErrors((current) => ({ ...current, [requestId]: message }));
      // Opened inside the click, before any await, or the browser blocks it.
      const popup = openConnectPopup();
      // The embed cannot send its frame away (the app's sign-in page refuses to be framed, and the
      // token in memory would be lost): without a popup it asks for one.
      if (!popup && config.headers) return fail("Your browser blocked the sign-in window. Allow pop-ups for this site, then Connect again.");
      setLocal((current) => ({ ...current, [key]: "Connecting…" }));
      setErrors((current) => ({ ...current, [requestId]: "" }));
      const result = await post(config, {
        action: "connect",
        app,
        mode: popup ? "popup" : "redirect",
        ...(popup ? {} : { returnTo: `${window.location.pathname}${window.location.search}` }),
      });
      const authorizationUrl = result.ok ? (result.result as { authorizationUrl?: string } | undefined)?.authorizationUrl : undefined;
      if (!authorizationUrl) {
        popup?.close();
        drop();
        return fail(result.ok ? "The app could not be connected." : result.error.message);
      }
      if (popup) {
        onConnectionOutcome(app, popup, async (outcome) => {
          if (outcome.type === "closed") return drop();
          if (outcome.status === "authorized" && outcome.connectionId) {
            // The popup had no session of ours (the embed): this chat completes it with its own credentials.
            const completed = await post(config, { action: "complete", app, connectionId: outcome.connectionId });
            if (!completed.ok) {
              drop();
              return fail(completed.error.message);
            }
            outcome = { ...outcome, status: "connected" };
          }
          if (outcome.status === "connected") {
            setLocal((current) => ({ ...current, [key]: "Connected: continuing…" }));
            return onConnected?.();
          }
          drop();
          fail(outcome.message ?? "The app was not connected.");
        }, new URL(config.api, window.location.href).origin);
      }
      goToAuthorization(popup, authorizationUrl);
    },
    cancel: async (id) => (await post(config, { action: "cancel", runId: id })).ok,
  };
}
