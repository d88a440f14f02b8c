// DELETE /agents/{agent_id}/fetchmail: stop polling the agent's outside mailbox; its settings and
// sealed password are deleted (docs/platform-api.md, "Email").
import { AgentIdParam, AgentScopeBody, FetchmailAgent } from "@inlay/core/schemas/agents";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { disableFetchmail } from "../../services/messaging/fetchmail";
import { pickUserId, resolveScope } from "../../services/scope";
import { defineRoute, json, jsonBody } from "../define";
import { authOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "disableAgentFetchmail",
  method: "delete",
  path: "/agents/{agent_id}/fetchmail",
  tags: ["agents"],
  summary: "Disable fetchmail",
  request: { params: AgentIdParam, query: UserScopeQuery, body: jsonBody(AgentScopeBody, { required: false }) },
  responses: { 200: json(FetchmailAgent, "The agent with fetchmail off (fetchmail_mailbox null)") },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const scope = await resolveScope(servicesWithJobsOf(c), authOf(c), pickUserId(c.req.valid("query").user_id, c.req.valid("json").user_id));
    return c.json(await disableFetchmail(servicesWithJobsOf(c), scope, c.req.valid("param").agent_id), 200);
  });
}
