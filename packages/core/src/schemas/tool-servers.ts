// Custom tool servers (/mcp-servers): a REST API, a remote MCP server (streamable HTTP or SSE) or a
// Python script whose tools join runs once approved. Request and response contracts; which fields a
// kind and an auth type need is checked by the service (services/tool-servers/tool-servers.ts), since PATCH
// depends on the stored kind. docs/platform-api.md, "Custom tool servers", documents the choices.
import { z } from "zod";
import { IntId, Timestamp, UserId } from "./common";

export const TOOL_SERVER_KINDS = ["rest_api", "mcp_http", "mcp_sse", "script"] as const;
export const ToolServerKind = z.enum(TOOL_SERVER_KINDS);
export type ToolServerKind = z.infer<typeof ToolServerKind>;

/**
 * How the platform authenticates to the server:
 * - none
 * - bearer: `Authorization: Bearer <secret>`
 * - api_key: `<auth_config.header>: <auth_config.prefix?><secret>`
 * - basic: `Authorization: Basic base64(<auth_config.username>:<secret>)`
 * - oauth2: each end-user's own tokens (authorization code with PKCE through oauth/start and
 *   oauth/complete). rest_api names authorization_url, token_url, client_id (and scopes) in
 *   auth_config, secret being the client secret when there is one; MCP servers are discovered, and
 *   auth_config may give client_id and scopes. Either may give token_endpoint_auth_method
 *   (client_secret_basic, client_secret_post or none) for a client_id. Not for scripts.
 */
export const TOOL_SERVER_AUTH_TYPES = ["none", "bearer", "api_key", "basic", "oauth2"] as const;
export const ToolServerAuthType = z.enum(TOOL_SERVER_AUTH_TYPES);
export type ToolServerAuthType = z.infer<typeof ToolServerAuthType>;

/** pending: tools not offered to runs; approved: offered; disabled: turned off by PATCH status. */
export const TOOL_SERVER_STATUSES = ["pending", "approved", "disabled"] as const;
export const ToolServerStatus = z.enum(TOOL_SERVER_STATUSES);

export const REST_TOOL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

export const TOOL_SERVER_URL_MAX_CHARS = 2_048;
export const SCRIPT_ALLOWLIST_MAX = 8;
export const SCRIPT_SOURCE_MAX_CHARS = 100_000;
export const TOOL_DEFS_MAX = 50;

/**
 * A tool's name on its server. A run names it `srv<server_id>__<name>`; providers accept tool names of
 * 64 characters ([A-Za-z0-9_-]), which leaves 48 for this part.
 */
export const TOOL_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_-]{0,47}$/;
/** A script's tools are Python functions. */
export const SCRIPT_TOOL_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,47}$/;

const ToolName = z.string().regex(TOOL_NAME_PATTERN, "must be 1-48 characters: letters, digits, _ and -, not starting with a digit or -");

/** A JSON Schema object describing a tool's arguments. */
export const ToolParameters = z
  .record(z.string(), z.unknown())
  .refine((schema) => schema.type === undefined || schema.type === "object", 'must be a JSON Schema of type "object"')
  .meta({ description: 'JSON Schema of the arguments (type "object")' });

export const RestToolDef = z
  .object({
    name: ToolName,
    method: z.enum(REST_TOOL_METHODS, { error: `must be one of ${REST_TOOL_METHODS.join(", ")}` }),
    path: z
      .string()
      .max(2_048, "must be at most 2048 characters")
      .regex(/^\/[^\s?#]*$/, "must start with / and hold no spaces, query or fragment")
      .meta({ description: "Appended to url; {name} segments are filled from the arguments of the same name" }),
    description: z.string().max(2_000, "must be at most 2000 characters").optional(),
    parameters: ToolParameters.optional(),
  })
  .meta({ id: "RestToolDef" });

export const ScriptToolDef = z.union([
  z.string().regex(SCRIPT_TOOL_NAME_PATTERN, "must be a Python function name of at most 48 characters"),
  z.object({
    name: z.string().regex(SCRIPT_TOOL_NAME_PATTERN, "must be a Python function name of at most 48 characters"),
    description: z.string().max(2_000, "must be at most 2000 characters").optional(),
    parameters: ToolParameters.optional(),
  }),
]);

const ServerName = z.string().trim().min(1, "must not be blank").max(255, "must be at most 255 characters");
const ServerUrl = z
  .string()
  .trim()
  .min(1, "must not be blank")
  .max(TOOL_SERVER_URL_MAX_CHARS, `must be at most ${TOOL_SERVER_URL_MAX_CHARS} characters`)
  .meta({ description: "HTTPS URL: the REST API's base, the MCP endpoint, or (script) the origin its http may reach" });
const AuthConfig = z.record(z.string(), z.unknown()).meta({ description: "Per auth_type: see the auth types in the docs" });
const Secret = z
  .string()
  .min(1, "must not be empty")
  .max(8_192, "must be at most 8192 characters")
  .meta({ description: "Write-only, stored encrypted, never returned: the token, API key, password or OAuth client secret" });
const ToolDefs = z.array(z.unknown()).max(TOOL_DEFS_MAX, `must have at most ${TOOL_DEFS_MAX} tools`).meta({
  description: "rest_api: entries with method, name, path (and description, parameters); script: tool names; MCP kinds: empty",
});
const Description = z.string().max(2_000, "must be at most 2000 characters");
const ScriptSource = z
  .string()
  .min(1, "must not be empty")
  .max(SCRIPT_SOURCE_MAX_CHARS, `must be at most ${SCRIPT_SOURCE_MAX_CHARS} characters`)
  .meta({ description: "script kind, write-only: Python defining one function per tool taking keyword arguments; http and json are injected" });
const ScriptAllowlist = z
  .array(z.string().max(TOOL_SERVER_URL_MAX_CHARS))
  .meta({ description: `script kind: at most ${SCRIPT_ALLOWLIST_MAX} extra HTTPS origins its http may reach (url's origin always may)` });

export const CreateToolServerRequest = z.object({
  name: ServerName,
  url: ServerUrl,
  kind: ToolServerKind.default("rest_api"),
  auth_type: ToolServerAuthType.default("none"),
  auth_config: AuthConfig.optional(),
  secret: Secret.optional(),
  tool_defs: ToolDefs.optional(),
  description: Description.optional(),
  user_id: UserId.optional().meta({ description: "End-user scope; omit for an account-level server. Forbidden for script" }),
  auto_approve: z.boolean().optional().meta({ description: "The server's tools skip the run's approval (default false)" }),
  script_source: ScriptSource.optional(),
  script_allowlist: ScriptAllowlist.optional(),
});

export const UpdateToolServerRequest = z.object({
  name: ServerName.optional(),
  url: ServerUrl.optional(),
  auth_type: ToolServerAuthType.optional(),
  auth_config: AuthConfig.optional(),
  secret: Secret.nullable().optional().meta({ description: "Replaces the secret; null removes it" }),
  tool_defs: ToolDefs.optional(),
  description: Description.nullable().optional(),
  status: z
    .enum(["pending", "disabled"], { error: "must be pending or disabled (approve with POST /mcp-servers/{id}/approve)" })
    .optional()
    .meta({ description: "disabled takes the tools out of runs; pending re-enables (approve again to offer them)" }),
  auto_approve: z.boolean().optional(),
  script_source: ScriptSource.optional().meta({ description: "Replaces the script; clears auto_approve and asks for approval again" }),
  script_allowlist: ScriptAllowlist.optional().meta({ description: "Replaces the allow-list; clears auto_approve and asks for approval again" }),
});

export const ToolServerTool = z
  .object({
    name: z.string(),
    run_name: z.string().meta({ description: "The name a run's model calls it by: srv<server_id>__<name>" }),
    description: z.string(),
  })
  .meta({ id: "ToolServerTool" });

export const ToolServer = z
  .object({
    id: z.number().int(),
    name: z.string(),
    url: z.string(),
    kind: ToolServerKind,
    auth_type: ToolServerAuthType,
    auth_config: z.record(z.string(), z.unknown()),
    has_secret: z.boolean().meta({ description: "Whether a secret is stored (it is never returned)" }),
    tool_defs: z.array(z.unknown()),
    tools: z.array(ToolServerTool).meta({
      description: "The tools runs are offered once approved: tool_defs, or what an MCP server listed at approval",
    }),
    description: z.string().nullable(),
    user_id: z.string().nullable().meta({ description: "The end-user it belongs to; null for account-level" }),
    status: ToolServerStatus,
    auto_approve: z.boolean(),
    script_sha256: z.string().nullable().meta({ description: "script kind: SHA-256 (hex) of script_source; null otherwise" }),
    script_allowlist: z.array(z.string()),
    last_error: z.string().nullable().meta({ description: "Why the last approve failed; null after a successful one" }),
    approved_at: Timestamp.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "ToolServer" });

export const ListToolServersQuery = z.object({ user_id: UserId.optional() });
export const ToolServerIdParam = z.object({ server_id: IntId });

export const ToolServerOAuthStartRequest = z.object({
  user_id: UserId.optional(),
  redirect_uri: z
    .string()
    .max(2_048)
    .optional()
    .meta({
      description:
        "Extension: where the authorization server sends the browser (code and state), then POST them to oauth/complete. Its origin must be the platform's or in INLAY_APP_REDIRECT_ORIGINS. Default: the platform's own page, which completes by itself",
    }),
});

export const ToolServerOAuthStarted = z
  .object({
    authorization_url: z.string().meta({ description: "Open it in the end-user's browser" }),
    state: z.string(),
    redirect_uri: z.string(),
    expires_at: Timestamp,
  })
  .meta({ id: "ToolServerOAuthStarted" });

export const ToolServerOAuthCompleteRequest = z.object({
  code: z.string().min(1, "must not be empty").max(4_096),
  state: z.string().min(1, "must not be empty").max(512),
  user_id: UserId.optional(),
});

export const ToolServerOAuthCompleted = z
  .object({
    server_id: z.number().int(),
    user_id: z.string().nullable(),
    connected: z.literal(true),
    expires_at: Timestamp.nullable().meta({ description: "When the access token expires (it is refreshed by itself)" }),
  })
  .meta({ id: "ToolServerOAuthCompleted" });

/** The public callback's query: what an authorization server sends back. */
export const ToolServerOAuthCallbackQuery = z.object({
  code: z.string().optional(),
  state: z.string().optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
});
