// POST /agents/{agent_id}/fetchmail: the agent polls an outside IMAP mailbox; each new message there
// starts its run (docs/platform-api.md, "Email"). Logs in once first: bad credentials answer 422. The
// spec's form (user_id alone, no body needed) turns on the mailbox the agent already has.
import { AgentIdParam, FetchmailAgent, FetchmailBody } from "@inlay/core/schemas/agents";
import { UserScopeQuery } from "@inlay/core/schemas/common";
import type { PlatformApp } from "../../context";
import { enableFetchmail } from "../../services/messaging/fetchmail";
import { pickUserId, resolveScope } from "../../services/scope";
import { defineRoute, errorResponse, json, jsonBody } from "../define";
import { authOf, servicesWithJobsOf } from "../request";

export const route = defineRoute({
  operationId: "enableAgentFetchmail",
  method: "post",
  path: "/agents/{agent_id}/fetchmail",
  tags: ["agents"],
  summary: "Enable fetchmail: poll an outside IMAP mailbox",
  request: { params: AgentIdParam, query: UserScopeQuery, body: jsonBody(FetchmailBody, { required: false }) },
  responses: {
    200: json(FetchmailAgent, "The agent with fetchmail on and the mailbox it polls (never the password)"),
    422: errorResponse("A mailbox half named (the missing fields), none named for an agent that has none (fetchmail_mailbox_required, naming host, username and password), or a mailbox that could not be read: error_code fetchmail_login_failed, fetchmail_blocked_address, fetchmail_connection_failed, fetchmail_timeout, fetchmail_no_mailbox or fetchmail_server_error"),
  },
});

export function register(app: PlatformApp) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const scope = await resolveScope(servicesWithJobsOf(c), authOf(c), pickUserId(c.req.valid("query").user_id, body.user_id));
    return c.json(await enableFetchmail(servicesWithJobsOf(c), scope, c.req.valid("param").agent_id, body), 200);
  });
}
