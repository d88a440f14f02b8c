"use client";
// The buttons of the chat's cards and Stop: POST /api/chat/actions (server/framework/chat/bridge.ts). A card
// shows the person's choice at once ("Allowing…") until the run's stream confirms it.
import { useCallback, useState } from "react";
import type { ChatAction } from "@inlay/core/chat/contract";
import type { ChatDataTypes } from "@inlay/core/chat/types";
import { connectApp, postAction as post } from "./actions";
import type { InlayConfig } from "./provider";
import { connectionKey, type CardActions } from "./parts";

export interface ChatActionsApi extends CardActions {
  cancel(runId: number): Promise<boolean>;
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
      setErrors((current) => ({ ...current, [requestId]: "" }));
      const result = await connectApp(config, app, () => setLocal((current) => ({ ...current, [key]: "Connecting…" })));
      if (result.status === "connected") {
        setLocal((current) => ({ ...current, [key]: "Connected: continuing…" }));
        return onConnected?.();
      }
      if (result.status === "redirected") return;
      drop();
      if (result.status === "error") setErrors((current) => ({ ...current, [requestId]: result.message }));
    },
    cancel: async (id) => (await post(config, { action: "cancel", runId: id })).ok,
  };
}
