// INLAY_APPS_FILE: the vendor's own apps (OAuth or API key, tools listed or read from an OpenAPI 3
// document) and settings of the built-in ones (client credentials, URL overrides). Parsed with zod so
// a mistake in the file names its place when the platform starts.
import { z } from "zod";
import type { AppDefinition, AppToolDefinition, JsonSchemaObject } from "./definition";
import { toolsFromOpenApi } from "./openapi-tools";

const Url = z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" });
const Slug = z.string().regex(/^[a-z][a-z0-9_-]{1,39}$/, "must be 2-40 lower-case letters, digits, _ or -, starting with a letter");

const JsonSchemaObjectShape = z.looseObject({ type: z.literal("object") });

const ToolEntry = z.object({
  name: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, "must be snake_case"),
  description: z.string().min(1),
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]),
  path: z.string().startsWith("/"),
  input: JsonSchemaObjectShape.optional(),
  query: z.array(z.string()).optional(),
  scopes: z.array(z.string()).optional(),
});

const TriggerEntry = z.object({ name: z.string().min(1), description: z.string().min(1), config: JsonSchemaObjectShape.optional() });

const OAuthEntry = z.object({
  authorization_url: Url.optional(),
  token_url: Url.optional(),
  revocation_url: Url.optional(),
  issuer: z.string().optional(),
  scopes: z.array(z.string()).optional(),
  scope_separator: z.string().optional(),
  authorization_params: z.record(z.string(), z.string()).optional(),
  token_auth_method: z.enum(["client_secret_post", "client_secret_basic"]).optional(),
  native_redirect: z.boolean().optional(),
  client_id: z.string().optional(),
  client_secret: z.string().optional(),
});

/** One entry of `apps`: a vendor app (name and auth given) or settings of a built-in one (its slug only). */
export const AppFileEntry = z.object({
  slug: Slug,
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  auth: z.enum(["oauth2", "api_key"]).optional(),
  oauth: OAuthEntry.optional(),
  // Shorthands for oauth.client_id / client_secret.
  client_id: z.string().optional(),
  client_secret: z.string().optional(),
  api_key: z.object({ header: z.string().optional(), prefix: z.string().optional() }).optional(),
  api_base_url: Url.optional(),
  identity: z.object({ path: z.string().startsWith("/"), label_field: z.string(), label_template: z.string().optional() }).optional(),
  tools: z.array(ToolEntry).optional(),
  /** An OpenAPI 3 document (inline object) its tools are derived from, besides `tools`. */
  openapi: z.looseObject({ openapi: z.string(), paths: z.record(z.string(), z.unknown()) }).optional(),
  /** Only these operationIds of the document become tools (all when omitted). */
  openapi_operations: z.array(z.string()).optional(),
  triggers: z.array(TriggerEntry).optional(),
});
export type AppFileEntry = z.infer<typeof AppFileEntry>;

export const AppsFile = z.object({
  redirect_origins: z.array(z.url()).optional(),
  apps: z.array(AppFileEntry).default([]),
});
export type AppsFile = z.infer<typeof AppsFile>;

export class AppsFileError extends Error {
  override name = "AppsFileError";
}

export function parseAppsFile(content: unknown, where = "INLAY_APPS_FILE"): AppsFile {
  const result = AppsFile.safeParse(content);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `  ${issue.path.join(".") || "(file)"}: ${issue.message}`);
    throw new AppsFileError(`${where} is not valid:\n${lines.join("\n")}`);
  }
  return result.data;
}

const emptyInput: JsonSchemaObject = { type: "object", properties: {} };

/** A vendor app from its file entry; throws naming the slug when it lacks what an app needs. */
export function vendorAppFromEntry(entry: AppFileEntry): AppDefinition {
  const fail = (message: string) => new AppsFileError(`INLAY_APPS_FILE: app ${entry.slug}: ${message}`);
  if (!entry.name) throw fail("name is required for an app that is not built in");
  if (!entry.auth) throw fail("auth (oauth2 or api_key) is required");
  if (!entry.api_base_url) throw fail("api_base_url is required");
  let oauth: AppDefinition["oauth"];
  if (entry.auth === "oauth2") {
    const o = entry.oauth;
    if (!o?.authorization_url || !o.token_url) throw fail("oauth.authorization_url and oauth.token_url are required");
    oauth = {
      authorizationUrl: o.authorization_url,
      tokenUrl: o.token_url,
      revocationUrl: o.revocation_url,
      issuer: o.issuer,
      scopes: o.scopes ?? [],
      scopeSeparator: o.scope_separator,
      authorizationParams: o.authorization_params,
      tokenAuthMethod: o.token_auth_method,
      nativeRedirect: o.native_redirect,
      clientId: entry.client_id ?? o.client_id,
      clientSecret: entry.client_secret ?? o.client_secret,
    };
  }
  const listed: AppToolDefinition[] = (entry.tools ?? []).map((tool) => ({ ...tool, input: (tool.input as JsonSchemaObject | undefined) ?? emptyInput }));
  const derived = entry.openapi ? toolsFromOpenApi(entry.openapi, { only: entry.openapi_operations }) : [];
  const tools = [...listed, ...derived.filter((tool) => !listed.some((own) => own.name === tool.name))];
  return {
    slug: entry.slug,
    name: entry.name,
    description: entry.description ?? "",
    auth: entry.auth,
    oauth,
    apiKey: entry.auth === "api_key" ? (entry.api_key ?? {}) : undefined,
    apiBaseUrl: entry.api_base_url,
    identity: entry.identity ? { path: entry.identity.path, labelField: entry.identity.label_field, labelTemplate: entry.identity.label_template } : undefined,
    tools,
    triggers: (entry.triggers ?? []).map((trigger) => ({ ...trigger, config: (trigger.config as JsonSchemaObject | undefined) ?? emptyInput })),
    source: "vendor",
  };
}
