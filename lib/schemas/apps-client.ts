// Apps and connections as the framework's client sees them (spec: endpoints-more.md, "Apps"). The
// platform's own contracts land in lib/schemas/apps.ts; these name the same fields so the two can be
// reconciled into one. Objects are loose: a field the platform adds later passes through untouched.
import { z } from "zod";

export const AppAuth = z.enum(["oauth2", "api_key", "provisioned"]);
export type AppAuth = z.infer<typeof AppAuth>;

export const ConnectionStatus = z.enum(["pending", "active", "expired", "revoked", "error"]);
export type ConnectionStatus = z.infer<typeof ConnectionStatus>;

/** GET /apps: one catalogue entry, with the end-user's connection status when user_id is given. */
export const App = z.looseObject({
  slug: z.string(),
  name: z.string(),
  description: z.string().nullish(),
  auth: AppAuth,
  /** Whether the installation has what the app needs (an OAuth client) to connect at all. */
  configured: z.boolean(),
});
export type App = z.infer<typeof App>;

/** GET /apps/connections, /apps/{app}/connections: never a token, only what a connection is. */
export const AppConnection = z.looseObject({
  connection_id: z.string(),
  app: z.string(),
  status: ConnectionStatus,
  account_label: z.string().nullish(),
  label: z.string().nullish(),
  notes: z.string().nullish(),
  scopes: z.array(z.string()).default([]),
  user_id: z.string().nullish(),
  agent_ids: z.array(z.number()).nullish(),
  last_error: z.string().nullish(),
  expires_at: z.string().nullish(),
  created_at: z.string().nullish(),
  updated_at: z.string().nullish(),
});
export type AppConnection = z.infer<typeof AppConnection>;

export const AppTool = z.looseObject({ name: z.string(), description: z.string().nullish() });
export type AppTool = z.infer<typeof AppTool>;
export const AppTriggerType = z.looseObject({ name: z.string(), description: z.string().nullish() });
export type AppTriggerType = z.infer<typeof AppTriggerType>;

export interface ConnectParams {
  redirect_uri: string;
  user_id?: string;
  add_account?: boolean;
}
export interface ConnectStarted {
  authorization_url: string;
  connection_id: string;
}

export interface ConnectCompleteParams {
  connection_id?: string;
  claim_ticket?: string;
  user_id?: string;
  agent_id?: number;
  add_account?: boolean;
  code?: string;
  redirect_uri?: string;
}

export interface ConnectApiKeyParams {
  api_key: string;
  user_id?: string;
  agent_id?: number;
  add_account?: boolean;
  options?: Record<string, unknown>;
}

/** POST …/connect/complete and …/connect/api-key */
export interface ConnectResult {
  status: string;
  app: string;
}

export interface ConnectionUpdateParams {
  label?: string;
  notes?: string;
}
/** PATCH /apps/connections/{id} */
export interface ConnectionUpdated {
  connection_id: string;
  status: ConnectionStatus;
  account_label: string | null;
  scopes: string[];
  updated_at: string;
}
