// What an app is, as data: how a person connects it (OAuth 2.0 with PKCE, an API key, or provisioned
// by the platform), the HTTP calls its tools make, and the events its triggers stand for. The
// catalogue (catalog.ts) holds the shipped definitions (definitions/*.ts) and the vendor's own apps
// from INLAY_APPS_FILE; runs call tools through app-http.ts with the connection's credentials.

/** JSON Schema of a tool's input (an object schema). */
export type JsonSchemaObject = { type: "object"; properties?: Record<string, unknown>; required?: string[]; [key: string]: unknown };

export interface AppToolDefinition {
  /** Unique within the app, snake_case; runs see it as `<app>__<name>`. */
  name: string;
  description: string;
  /** HTTP method of the call to the app's API. */
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /**
   * Path under the app's `apiBaseUrl`, with `{name}` placeholders filled from the input (URL-encoded).
   * Input properties not used in the path go to the query string (GET, DELETE) or the JSON body.
   */
  path: string;
  input: JsonSchemaObject;
  /** Input properties sent in the query string even on POST/PUT/PATCH. */
  query?: string[];
  /** Scopes this tool needs (documentation; connect asks for the app's scopes). */
  scopes?: string[];
}

export interface AppTriggerDefinition {
  /** The trigger_name of an app-event trigger. */
  name: string;
  description: string;
  /** JSON Schema of trigger_config. */
  config: JsonSchemaObject;
  /**
   * How the platform notices the event: it calls one of the app's tools every poll interval with
   * `input` and the trigger's config, and each item of the answer it has not seen is one event
   * (jobs/app-trigger-polls.ts). A trigger type without it cannot be used in a task's trigger.
   */
  poll?: AppTriggerPoll;
}

export interface AppTriggerPoll {
  /** The tool called (a name of this app's `tools`). */
  tool: string;
  /** Fixed input, under the trigger's config. */
  input?: Record<string, unknown>;
  /** Dot path to the list of items in the answer; the answer itself when omitted. */
  items?: string;
  /** Dot path, in an item, to what identifies it. */
  id: string;
}

export interface OAuthSettings {
  authorizationUrl: string;
  tokenUrl: string;
  /** RFC 7009 revocation endpoint, called on disconnect when set. */
  revocationUrl?: string;
  scopes: string[];
  /** Separator of the scope parameter (space by default; some APIs use commas). */
  scopeSeparator?: string;
  /** Extra parameters of the authorization request (e.g. access_type=offline). */
  authorizationParams?: Record<string, string>;
  /** client_secret_post (default) or client_secret_basic at the token endpoint. */
  tokenAuthMethod?: "client_secret_post" | "client_secret_basic";
  clientId?: string;
  clientSecret?: string;
  /**
   * The authorization server's issuer identifier. When set, an `iss` parameter on the callback must
   * match it (RFC 9207); when unset, `iss` is not checked (GitHub and Slack send none).
   */
  issuer?: string;
  /**
   * The app is registered with the client's own redirect URI (a native or mobile client): connect sends
   * the caller's redirect_uri to the authorization server, and connect/complete exchanges `code` itself.
   * Otherwise (default) the platform's callback, GET /apps/oauth/callback, receives the code.
   */
  nativeRedirect?: boolean;
  /** token_type values besides bearer the token endpoint answers (Slack: bot, user). */
  extraTokenTypes?: string[];
}

export interface ApiKeySettings {
  /** Where the key goes on each call: `Authorization: Bearer <key>` (default) or a named header. */
  header?: string;
  /** Prefix before the key in that header (default "Bearer " for Authorization, none otherwise). */
  prefix?: string;
}

export interface AppDefinition {
  /** The slug of GET /apps and every /apps/<app_name> path. */
  slug: string;
  name: string;
  description: string;
  /** oauth2, api_key or provisioned (the platform allocates the resource; POST /apps/<app>/provision). */
  auth: "oauth2" | "api_key" | "provisioned";
  oauth?: OAuthSettings;
  apiKey?: ApiKeySettings;
  /** Base URL of the app's API: tools' paths are relative to it. */
  apiBaseUrl: string;
  /** A GET under apiBaseUrl whose JSON names the connected account (for account_label), and where. */
  identity?: {
    path: string;
    /** Dotted path of the label in the JSON answer (login, email). */
    labelField: string;
    /** Or a template over such paths, e.g. "{user} @ {team}"; wins over labelField. */
    labelTemplate?: string;
    /** Dotted paths kept in the connection's options (e.g. team_id, for the chat app's workspaces). */
    keep?: string[];
  };
  tools: AppToolDefinition[];
  triggers: AppTriggerDefinition[];
  /** Shipped with Inlay, or defined by the vendor in INLAY_APPS_FILE. */
  source: "builtin" | "vendor";
  /**
   * Served by this installation itself (the development demo app, definitions/demo-notes.ts): its
   * fixed URLs may be on loopback over plain http even where outbound loopback is not allowed.
   * Never set from INLAY_APPS_FILE.
   */
  local?: boolean;
}

/** Whether calls to this app may reach loopback over http: the platform allows it, or the app is the installation's own. */
export const appMayUseLoopback = (config: { outboundAllowLoopback?: boolean }, app: AppDefinition): boolean =>
  config.outboundAllowLoopback === true || app.local === true;
