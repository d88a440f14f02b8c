// POST /value/observations/{observation_id}/confirm: confirms or rejects a pending observation.
import { UserScopeQuery } from "@inlay/core/schemas/common";
import { ConfirmObservationRequest, Observation, ObservationIdParam } from "@inlay/core/schemas/value";
import type { PlatformApp } from "../../context";
import { confirmObservation } from "../../services/agents/value";
import { pickUserId } from "../../services/scope";
import { defineRoute, errorResponse, json, jsonBody } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "confirmValueObservation",
  method: "post",
  path: "/value/observations/{observation_id}/confirm",
  tags: ["value"],
  summary: "Confirm or reject an observation",
  request: { params: ObservationIdParam, query: UserScopeQuery, body: jsonBody(ConfirmObservationRequest) },
  responses: {
    200: json(Observation, "The observation with its decision"),
    409: errorResponse("observation_already_decided: it was decided the other way"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const userId = pickUserId(c.req.valid("query").user_id, body.user_id);
    const decided = await confirmObservation(servicesOf(c), authOf(c), userId, c.req.valid("param").observation_id, body.decision);
    return c.json(decided, 200);
  });
}
