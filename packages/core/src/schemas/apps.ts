// Apps and their connections (/apps): the catalogue, connect flows, connections. Plain zod: the
// server validates with these and /openapi.json is generated from them. No schema here carries a
// token: credentials never leave the platform.
import { z } from "zod";
import { Timestamp, UserId } from "./common";

export const CONNECTION_STATUSES = ["pending", "active", "expired", "revoked", "error"] as const;
export const ConnectionStatus = z.enum(CONNECTION_STATUSES).meta({
  description:
    "pending: connect started, not completed; active: usable by runs; expired: the app refused the credentials or the refresh (connect again); revoked: withdrawn at the app; error: refresh keeps failing for another reason (see last_error)",
});

export const AppAuthKind = z.enum(["oauth2", "api_key", "provisioned"]);

export const App = z
  .object({
    slug: z.string().meta({ description: "The <app_name> of every /apps/<app_name> path" }),
    name: z.string(),
    description: z.string(),
    auth: AppAuthKind,
    configured: z.boolean().meta({ description: "False for an OAuth app without client credentials: connect answers 422 app_not_configured and runs are not offered it" }),
    source: z.enum(["builtin", "vendor"]),
    tools_count: z.number().int(),
    connected: z.boolean().meta({ description: "The scope (user_id, or the account level) has an active connection of the app" }),
    connection_status: ConnectionStatus.nullable().meta({ description: "Best status among the scope's connections (active, expired, error, revoked); null when none" }),
    connections_count: z.number().int(),
  })
  .meta({ id: "App" });

export const AppConnection = z
  .object({
    connection_id: z.string(),
    status: ConnectionStatus,
    account_label: z.string().nullable().meta({ description: "The account on the app's side (a login, an email, user @ workspace)" }),
    scopes: z.array(z.string()),
    updated_at: Timestamp,
    app: z.string(),
    label: z.string().nullable(),
    notes: z.string().nullable(),
    user_id: z.string().nullable().meta({ description: "The end-user it belongs to; null for an account-level connection" }),
    agent_ids: z.array(z.number().int()).meta({ description: "Agents it is granted to; empty: every agent of the scope" }),
    last_error: z.string().nullable(),
    expires_at: Timestamp.nullable().meta({ description: "When the current access token expires (it is refreshed before); null when unknown or never" }),
    created_at: Timestamp,
  })
  .meta({ id: "AppConnection" });

export const AppConnectionUpdated = z
  .object({ connection_id: z.string(), status: ConnectionStatus, account_label: z.string().nullable(), scopes: z.array(z.string()), updated_at: Timestamp })
  .meta({ id: "AppConnectionUpdated" });

export const AppTool = z
  .object({
    name: z.string(),
    description: z.string(),
    method: z.string(),
    path: z.string(),
    input_schema: z.record(z.string(), z.unknown()),
    scopes: z.array(z.string()),
  })
  .meta({ id: "AppTool" });

export const AppTrigger = z.object({ name: z.string(), description: z.string(), config_schema: z.record(z.string(), z.unknown()) }).meta({ id: "AppTrigger" });

export const AppParam = z.object({ app: z.string().min(1).max(64) });
export const ConnectionIdParam = z.object({ connection_id: z.string().min(1).max(128) });

export const RedirectUri = z.url({ error: "must be an absolute URL" }).max(2_048).meta({
  description: "Where the browser goes after the authorization; its origin must be on the allow-list (INLAY_APP_REDIRECT_ORIGINS) or the platform's own",
});

const AgentId = z.number().int().positive().meta({ description: "An agent of the scope the connection is granted to (only it may use it)" });

export const ConnectRequest = z.object({
  redirect_uri: RedirectUri,
  user_id: UserId.optional().meta({ description: "End-user scope; omit for an account-level connection" }),
  add_account: z.boolean().optional().meta({ description: "true: keep the scope's other connections of the app; default false: completing replaces them" }),
});

export const ConnectStarted = z
  .object({
    authorization_url: z.string().meta({ description: "Send the person's browser here" }),
    connection_id: z.string().meta({ description: "The pending connection; complete it after the redirect" }),
    expires_at: Timestamp.meta({ description: "The authorization must come back before then (10 minutes)" }),
  })
  .meta({ id: "AppConnectStarted" });

export const CompleteRequest = z.object({
  connection_id: z.string().min(1).optional().meta({ description: "Required for end-user connections (from connect, and on the redirect)" }),
  claim_ticket: z.string().min(1).optional().meta({ description: "Required for account-level connections: the connector_claim parameter of the redirect" }),
  user_id: UserId.optional(),
  add_account: z.boolean().optional(),
  agent_id: AgentId.optional(),
  code: z.string().min(1).max(4_096).optional().meta({ description: "Native apps (the client's own redirect): the authorization code, exchanged here" }),
  redirect_uri: z.string().max(2_048).optional().meta({ description: "With code: the redirect_uri given to connect" }),
});

export const ConnectResult = z
  .object({
    status: ConnectionStatus,
    app: z.string(),
    connection_id: z.string().meta({ description: "Extension: the connection now active" }),
  })
  .meta({ id: "AppConnectResult" });

/** POST /apps/{app}/provision's success per the spec (this platform allocates nothing and answers 422). */
export const AppProvisioned = z
  .object({ status: ConnectionStatus, app: z.string(), phone_number: z.string().nullable() })
  .meta({ id: "AppProvisioned" });

export const ApiKeyRequest = z.object({
  api_key: z.string().trim().min(1, "must not be blank").max(4_096).meta({ description: "Write-only; sealed at rest and never returned" }),
  user_id: UserId.optional(),
  agent_id: AgentId.optional(),
  add_account: z.boolean().optional(),
  options: z.record(z.string(), z.unknown()).optional().meta({ description: "Kept with the connection (e.g. region)" }),
});

export const ExternalOAuthRequest = z.object({ redirect_uri: z.string().max(2_048) });
export const ExternalOAuthCompleteRequest = z.object({
  redirect_uri: z.string().max(2_048),
  code: z.string().max(4_096),
  state: z.string().max(1_024),
  agent_id: AgentId.optional(),
});

export const ProvisionRequest = z.object({ user_id: UserId.optional() });
export const ClaimRequest = z.object({ ticket: z.string().min(1).max(1_024) });
export const SelectAccountRequest = z.object({ account_id: z.string().min(1).max(255), user_id: UserId.optional() });
export const RefreshListQuery = z.object({ refresh: z.enum(["true", "false", "1", "0"]).optional(), user_id: UserId.optional() });

export const UpdateConnectionRequest = z.object({
  label: z.string().trim().max(255).nullable().optional(),
  notes: z.string().max(4_000).nullable().optional(),
});

export const OAuthCallbackQuery = z.object({
  code: z.string().max(4_096).optional(),
  state: z.string().max(1_024).optional(),
  error: z.string().max(255).optional(),
  error_description: z.string().max(2_048).optional(),
  iss: z.string().max(2_048).optional(),
});

export const ChatChannel = z.object({ id: z.string(), name: z.string().nullable(), is_private: z.boolean().nullable(), team_id: z.string().nullable() }).meta({ id: "ChatChannel" });
export const ChatMember = z.object({ id: z.string(), name: z.string().nullable(), real_name: z.string().nullable(), is_bot: z.boolean().nullable(), team_id: z.string().nullable() }).meta({ id: "ChatMember" });
export const ChatWorkspace = z.object({ team_id: z.string().nullable(), name: z.string().nullable(), connection_id: z.string(), status: ConnectionStatus }).meta({ id: "ChatWorkspace" });
export const TeamIdParam = z.object({ app: z.string().min(1).max(64), team_id: z.string().min(1).max(64) });
