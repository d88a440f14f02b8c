// The app catalogue: the built-in definitions (definitions/*.ts) with their credentials and URL
// overrides, plus the vendor's apps from INLAY_APPS_FILE. Built once per platform configuration.
import { readFileSync } from "node:fs";
import { dirname, resolve as resolvePath } from "node:path";
import { AppsFileError, parseAppsFile, vendorAppFromEntry, type AppFileEntry } from "./apps-file";
import type { AppDefinition } from "./definition";
import { chat } from "./definitions/chat";
import { codehost } from "./definitions/codehost";
import { demoNotesApp } from "./definitions/demo-notes";
import type { AppOverride, AppSettings } from "../platform-config";
import { mail } from "./definitions/mail";

export const BUILTIN_APPS: readonly AppDefinition[] = [codehost, chat, mail];



export interface AppCatalog {
  get(slug: string): AppDefinition | undefined;
  list(): AppDefinition[];
  /** An OAuth app is configured when it has client credentials; API-key apps always are. */
  configured(slug: string): boolean;
  redirectOrigins: string[];
}

function applyOverride(app: AppDefinition, override: AppOverride | undefined): AppDefinition {
  if (!override) return app;
  const oauth = app.oauth
    ? {
        ...app.oauth,
        ...defined({
          clientId: override.clientId,
          clientSecret: override.clientSecret,
          authorizationUrl: override.authorizationUrl,
          tokenUrl: override.tokenUrl,
          revocationUrl: override.revocationUrl,
          issuer: override.issuer,
          scopes: override.scopes,
          nativeRedirect: override.nativeRedirect,
        }),
      }
    : undefined;
  return { ...app, oauth, ...defined({ apiBaseUrl: override.apiBaseUrl }) };
}

function defined<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** A file entry for a built-in app: only its settings count. */
const overrideFromEntry = (entry: AppFileEntry): AppOverride => ({
  clientId: entry.client_id ?? entry.oauth?.client_id,
  clientSecret: entry.client_secret ?? entry.oauth?.client_secret,
  authorizationUrl: entry.oauth?.authorization_url,
  tokenUrl: entry.oauth?.token_url,
  revocationUrl: entry.oauth?.revocation_url,
  issuer: entry.oauth?.issuer,
  apiBaseUrl: entry.api_base_url,
  scopes: entry.oauth?.scopes,
  nativeRedirect: entry.oauth?.native_redirect,
});

function readAppsFile(path: string): unknown {
  let content: unknown;
  try {
    content = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new AppsFileError(`INLAY_APPS_FILE (${path}) cannot be read as JSON: ${(error as Error).message}`);
  }
  // openapi_file: a document beside the apps file, inlined as `openapi`.
  const apps = (content as { apps?: unknown } | null)?.apps;
  if (Array.isArray(apps)) {
    for (const entry of apps as Record<string, unknown>[]) {
      if (typeof entry?.openapi_file !== "string") continue;
      const documentPath = resolvePath(dirname(path), entry.openapi_file);
      try {
        entry.openapi = JSON.parse(readFileSync(documentPath, "utf8"));
      } catch (error) {
        throw new AppsFileError(`INLAY_APPS_FILE: app ${String(entry.slug)}: openapi_file ${documentPath}: ${(error as Error).message}`);
      }
      delete entry.openapi_file;
    }
  }
  return content;
}

export function createAppCatalog(settings: AppSettings = {}): AppCatalog {
  const raw = settings.content ?? (settings.file ? readAppsFile(settings.file) : undefined);
  const file = raw === undefined ? { apps: [], redirect_origins: [] } : parseAppsFile(raw);
  const builtinSlugs = new Set(BUILTIN_APPS.map((app) => app.slug));
  const apps = new Map<string, AppDefinition>();
  for (const app of BUILTIN_APPS) apps.set(app.slug, app);
  if (settings.demo) {
    const demo = demoNotesApp(settings.demo);
    apps.set(demo.slug, demo);
  }
  for (const entry of file.apps) {
    if (builtinSlugs.has(entry.slug)) {
      apps.set(entry.slug, applyOverride(apps.get(entry.slug)!, overrideFromEntry(entry)));
    } else {
      if (apps.has(entry.slug)) throw new AppsFileError(`INLAY_APPS_FILE: app ${entry.slug} is defined twice`);
      apps.set(entry.slug, vendorAppFromEntry(entry));
    }
  }
  for (const [slug, override] of Object.entries(settings.overrides ?? {})) {
    const app = apps.get(slug);
    if (app) apps.set(slug, applyOverride(app, override));
  }
  const isConfigured = (app: AppDefinition) =>
    app.auth === "api_key" || (app.auth === "oauth2" && Boolean(app.oauth?.clientId && app.oauth.clientSecret));
  const redirectOrigins = [...(settings.redirectOrigins ?? []), ...(file.redirect_origins ?? [])].map((origin) => new URL(origin).origin);
  return {
    get: (slug) => apps.get(slug),
    list: () => [...apps.values()],
    configured: (slug) => {
      const app = apps.get(slug);
      return app !== undefined && isConfigured(app);
    },
    redirectOrigins: [...new Set(redirectOrigins)],
  };
}

/** The part of the platform configuration the catalogue is built from (platform-config.ts `apps`). */
type WithApps = { apps?: AppSettings };

const catalogs = new WeakMap<WithApps, AppCatalog>();

/** The catalogue of a platform configuration, built on first use and kept for that config object. */
export function appCatalogOf(config: WithApps): AppCatalog {
  let catalog = catalogs.get(config);
  if (!catalog) catalogs.set(config, (catalog = createAppCatalog(config.apps)));
  return catalog;
}
