// The Apps endpoints of the spec (endpoints-more.md, "Apps"), in memory, in front of a platform that
// does not have them: GET /apps, connections, connect → a fake consent → complete, api-key, PATCH and
// DELETE. `withFakeApps` serves /apps* itself when the platform answers GET /apps with 404 and passes
// everything else (and everything, once the platform has its own) to the platform.
import { randomUUID } from "node:crypto";

interface FakeApp {
  slug: string;
  name: string;
  description: string;
  auth: "oauth2" | "api_key";
}

interface FakeConnection {
  connection_id: string;
  app: string;
  user_id: string;
  status: "pending" | "active" | "expired" | "revoked" | "error";
  account_label: string | null;
  label: string | null;
  notes: string | null;
  scopes: string[];
  agent_ids: number[];
  last_error: string | null;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
  redirect_uri: string;
}

export const FAKE_APPS: FakeApp[] = [
  { slug: "codehost", name: "Code host", description: "Repositories, issues and pull requests", auth: "oauth2" },
  { slug: "chat", name: "Chat", description: "Channels and messages", auth: "oauth2" },
  { slug: "mail", name: "Mail", description: "Mail and calendar", auth: "oauth2" },
  { slug: "tracker", name: "Tracker", description: "A vendor app with an API key", auth: "api_key" },
];

/** Where the fake's authorization_url points: consentTo() reads it back. */
const AUTHORIZE_URL = "https://oauth.fake.test/authorize";

export interface FakeApps {
  connections: FakeConnection[];
  /** The fake OAuth server: where it sends the browser after consent (granted or denied). */
  consent(authorizationUrl: string, options?: { deny?: boolean; account?: string }): string;
  /** Marks a user's connection expired (token refresh failed). */
  expire(connectionId: string): void;
  /** Whether requests went to the fake (false once the platform serves /apps itself). */
  readonly active: boolean;
}

const json = (status: number, body: unknown) => Response.json(body, { status });
const notFound = (message: string) => json(404, { error: { type: "not_found", message, code: "not_found" } });
const invalid = (message: string) => json(422, { error: { type: "validation_error", message, code: "validation_error" } });

const shape = ({ redirect_uri: _omitted, ...connection }: FakeConnection) => connection;

export function createFakeApps(): FakeApps & { handle(request: Request): Promise<Response | undefined> } {
  const connections: FakeConnection[] = [];
  const now = () => new Date().toISOString();
  let active = false;

  async function handle(request: Request): Promise<Response | undefined> {
    const url = new URL(request.url);
    const path = url.pathname.replace(/^.*\/api\/v2/, "");
    if (!path.startsWith("/apps")) return undefined;
    active = true;
    const body = request.method === "GET" || request.method === "DELETE" ? {} : ((await request.json().catch(() => ({}))) as Record<string, unknown>);
    const userId = (url.searchParams.get("user_id") ?? body.user_id ?? undefined) as string | undefined;
    const mine = (app?: string) => connections.filter((each) => each.user_id === userId && (app === undefined || each.app === app));
    const segments = path.split("/").filter(Boolean).map(decodeURIComponent); // ["apps", ...]

    if (request.method === "GET" && segments.length === 1) {
      return json(200, {
        data: FAKE_APPS.map((app) => ({
          ...app,
          configured: true,
          status: mine(app.slug).some((each) => each.status === "active") ? "connected" : "not_connected",
        })),
        has_more: false,
      });
    }
    if (segments[1] === "connections") {
      const id = segments[2];
      if (request.method === "GET" && !id) return json(200, { data: mine().map(shape), has_more: false });
      const found = connections.find((each) => each.connection_id === id && (userId === undefined || each.user_id === userId));
      if (!found) return notFound("No such connection");
      if (request.method === "PATCH") {
        if (typeof body.label === "string") found.label = body.label;
        if (typeof body.notes === "string") found.notes = body.notes;
        found.updated_at = now();
        const { connection_id, status, account_label, scopes, updated_at } = found;
        return json(200, { connection_id, status, account_label, scopes, updated_at });
      }
      if (request.method === "DELETE") {
        connections.splice(connections.indexOf(found), 1);
        return new Response(null, { status: 204 });
      }
    }
    const app = FAKE_APPS.find((each) => each.slug === segments[1]);
    if (!app) return notFound(`No app ${segments[1]}`);
    const rest = segments.slice(2).join("/");
    if (request.method === "GET" && rest === "connections") return json(200, { data: mine(app.slug).map(shape), has_more: false });
    if (request.method === "DELETE" && rest === "connections") {
      for (const each of mine(app.slug)) connections.splice(connections.indexOf(each), 1);
      return new Response(null, { status: 204 });
    }
    if (request.method === "GET" && rest === "tools") return json(200, { data: [{ name: `${app.slug}__list_repos`, description: "List" }], has_more: false });
    if (request.method === "GET" && rest === "triggers") return json(200, { data: [], has_more: false });
    if (request.method === "POST" && rest === "connect") {
      if (typeof body.redirect_uri !== "string") return invalid("redirect_uri is required");
      const connection: FakeConnection = {
        connection_id: `conn_${randomUUID()}`,
        app: app.slug,
        user_id: userId ?? "",
        status: "pending",
        account_label: null,
        label: null,
        notes: null,
        scopes: [],
        agent_ids: [],
        last_error: null,
        expires_at: null,
        created_at: now(),
        updated_at: now(),
        redirect_uri: body.redirect_uri,
      };
      connections.push(connection);
      const authorize = new URL(AUTHORIZE_URL);
      authorize.searchParams.set("connection_id", connection.connection_id);
      return json(200, { authorization_url: authorize.toString(), connection_id: connection.connection_id });
    }
    if (request.method === "POST" && rest === "connect/complete") {
      const found = mine(app.slug).find((each) => each.connection_id === body.connection_id);
      if (!found) return notFound("No such connection");
      if (!found.account_label) return json(409, { error: { type: "conflict", message: "Not authorized yet", code: "conflict" } });
      // One account of an app per end-user unless add_account: the new one replaces the old.
      for (const other of mine(app.slug)) if (other !== found) connections.splice(connections.indexOf(other), 1);
      Object.assign(found, { status: "active", updated_at: now() });
      return json(200, { status: "active", app: app.slug });
    }
    if (request.method === "POST" && rest === "connect/api-key") {
      if (typeof body.api_key !== "string" || !body.api_key) return invalid("api_key is required");
      for (const other of mine(app.slug)) connections.splice(connections.indexOf(other), 1);
      connections.push({
        connection_id: `conn_${randomUUID()}`,
        app: app.slug,
        user_id: userId ?? "",
        status: "active",
        account_label: `key …${body.api_key.slice(-4)}`,
        label: null,
        notes: null,
        scopes: [],
        agent_ids: [],
        last_error: null,
        expires_at: null,
        created_at: now(),
        updated_at: now(),
        redirect_uri: "",
      });
      return json(200, { status: "active", app: app.slug });
    }
    return notFound(`No route ${request.method} ${path}`);
  }

  return {
    connections,
    handle,
    get active() {
      return active;
    },
    consent(authorizationUrl, options = {}) {
      const connectionId = new URL(authorizationUrl).searchParams.get("connection_id");
      const found = connections.find((each) => each.connection_id === connectionId);
      if (!found) throw new Error(`consent: no pending connection ${connectionId}`);
      const back = new URL(found.redirect_uri);
      back.searchParams.set("connection_id", found.connection_id);
      back.searchParams.set("app", found.app);
      if (options.deny) {
        back.searchParams.set("status", "error");
        back.searchParams.set("error_description", "access_denied");
      } else {
        found.account_label = options.account ?? "octocat";
        found.scopes = ["repo"];
        back.searchParams.set("status", "authorized");
      }
      return back.toString();
    },
    expire(connectionId) {
      const found = connections.find((each) => each.connection_id === connectionId);
      if (found) found.status = "expired";
    },
  };
}

/**
 * A fetch in front of the platform app: /apps* goes to the fake while the platform has no GET /apps
 * (probed once), so the same tests run against the real endpoints when they exist.
 */
export function withFakeApps(fake: ReturnType<typeof createFakeApps>) {
  return (appFetch: (request: Request) => Promise<Response>) => {
    let platformHasApps: Promise<boolean> | undefined;
    return async (request: Request): Promise<Response> => {
      if (new URL(request.url).pathname.includes("/apps")) {
        platformHasApps ??= appFetch(new Request(new URL("/api/v2/apps", request.url), { headers: request.headers })).then(
          (response) => response.status !== 404,
        );
        if (!(await platformHasApps)) return (await fake.handle(request)) ?? appFetch(request);
      }
      return appFetch(request);
    };
  };
}
