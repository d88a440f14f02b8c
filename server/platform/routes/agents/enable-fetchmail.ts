// POST /agents/{agent_id}/fetchmail: not available (polling an outside IMAP/POP mailbox); 422
// feature_not_available for an agent in reach, 404 otherwise (docs/platform-api.md, "Email").
import { Agent, AgentIdParam, AgentScopeBody } from "@/lib/schemas/agents";
import { UserScopeQuery } from "@/lib/schemas/common";
import type { PlatformApp } from "../../context";
import { fetchmailNotAvailable } from "../../services/agents";
import { pickUserId, resolveScope } from "../../services/scope";
import { defineRoute, errorResponse, jsonBody, unofferedSuccess } from "../define";
import { authOf, servicesOf } from "../request";

export const route = defineRoute({
  operationId: "enableAgentFetchmail",
  method: "post",
  path: "/agents/{agent_id}/fetchmail",
  tags: ["agents"],
  summary: "Enable fetchmail (not available: answers 422 feature_not_available)",
  request: { params: AgentIdParam, query: UserScopeQuery, body: jsonBody(AgentScopeBody, { required: false }) },
  responses: {
    200: unofferedSuccess("The agent with fetchmail enabled", Agent),
    422: errorResponse("Always, for an agent in reach: feature_not_available (fetchmail is not built)"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const userId = pickUserId(c.req.valid("query").user_id, c.req.valid("json").user_id);
    const scope = await resolveScope(servicesOf(c), authOf(c), userId);
    return fetchmailNotAvailable(servicesOf(c), scope, c.req.valid("param").agent_id);
  });
}
