// client.apps: the app catalogue, an end-user's connections, and the connect flows (OAuth: connect →
// the browser at authorization_url → the platform's callback → complete; or an API key). user_id goes
// in the query of reads and deletes and in the body of the connect POSTs, so a forUser client
// connects and lists that end-user's own.
import type {
  App,
  AppConnection,
  AppTool,
  AppTriggerType,
  ChatChannel,
  ChatMember,
  ChatWorkspace,
  ConnectApiKeyParams,
  ConnectCompleteParams,
  ConnectParams,
  ConnectResult,
  ConnectStarted,
  ConnectionUpdateParams,
  ConnectionUpdated,
} from "../types";
import type { RequestOptions } from "../transport";
import type { Page } from "../types";
import { Resource, segment } from "./resource";

const appPath = (app: string) => `/apps/${segment(app)}`;

export class Apps extends Resource {
  /** GET /apps: the catalogue, each app with the end-user's connection status. */
  list(options?: RequestOptions): Promise<Page<App>> {
    return this.transport.json({ method: "GET", path: "/apps", userId: "query" }, options);
  }

  /** GET /apps/connections: the end-user's connections to every app. */
  connections(options?: RequestOptions): Promise<Page<AppConnection>> {
    return this.transport.json({ method: "GET", path: "/apps/connections", userId: "query" }, options);
  }

  /** GET /apps/{app}/connections */
  appConnections(app: string, options?: RequestOptions): Promise<Page<AppConnection>> {
    return this.transport.json({ method: "GET", path: `${appPath(app)}/connections`, userId: "query" }, options);
  }

  /** GET /apps/{app}/tools */
  tools(app: string, options?: RequestOptions): Promise<Page<AppTool>> {
    return this.transport.json({ method: "GET", path: `${appPath(app)}/tools` }, options);
  }

  /** GET /apps/{app}/triggers: the trigger types the app offers. */
  triggers(app: string, options?: RequestOptions): Promise<Page<AppTriggerType>> {
    return this.transport.json({ method: "GET", path: `${appPath(app)}/triggers` }, options);
  }

  /** POST /apps/{app}/connect: where to send the browser, and the pending connection's id. */
  connect(app: string, params: ConnectParams, options?: RequestOptions): Promise<ConnectStarted> {
    return this.transport.json({ method: "POST", path: `${appPath(app)}/connect`, body: params, userId: "body" }, options);
  }

  /** POST /apps/{app}/connect/complete: activates the connection (and resumes runs waiting for it). */
  complete(app: string, params: ConnectCompleteParams, options?: RequestOptions): Promise<ConnectResult> {
    return this.transport.json({ method: "POST", path: `${appPath(app)}/connect/complete`, body: params, userId: "body" }, options);
  }

  /** POST /apps/{app}/connect/api-key */
  connectApiKey(app: string, params: ConnectApiKeyParams, options?: RequestOptions): Promise<ConnectResult> {
    return this.transport.json({ method: "POST", path: `${appPath(app)}/connect/api-key`, body: params, userId: "body" }, options);
  }

  /** PATCH /apps/connections/{connection_id}: label and notes (of the end-user's own connection). */
  updateConnection(connectionId: string, params: ConnectionUpdateParams, options?: RequestOptions): Promise<ConnectionUpdated> {
    return this.transport.json({ method: "PATCH", path: `/apps/connections/${segment(connectionId)}`, body: params, userId: "query" }, options);
  }

  /** DELETE /apps/connections/{connection_id} */
  async deleteConnection(connectionId: string, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: `/apps/connections/${segment(connectionId)}`, userId: "query" }, options);
  }

  /** DELETE /apps/{app}/connections: every connection of the app (also releases a provisioned resource). */
  async disconnectApp(app: string, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: `${appPath(app)}/connections`, userId: "query" }, options);
  }

  // The chat app's workspaces, through its account-level connections (no user_id).

  /** GET /apps/{app}/workspaces: the connected chat workspaces. */
  workspaces(app: string, options?: RequestOptions): Promise<Page<ChatWorkspace>> {
    return this.transport.json({ method: "GET", path: `${appPath(app)}/workspaces` }, options);
  }

  /** DELETE /apps/{app}/workspaces/{team_id}: disconnects one workspace. */
  async deleteWorkspace(app: string, teamId: string, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: `${appPath(app)}/workspaces/${segment(teamId)}` }, options);
  }

  /** GET /apps/{app}/channels: the workspaces' channels. */
  channels(app: string, options?: RequestOptions): Promise<Page<ChatChannel>> {
    return this.transport.json({ method: "GET", path: `${appPath(app)}/channels` }, options);
  }

  /** GET /apps/{app}/members: the workspaces' members. */
  members(app: string, options?: RequestOptions): Promise<Page<ChatMember>> {
    return this.transport.json({ method: "GET", path: `${appPath(app)}/members` }, options);
  }
}
