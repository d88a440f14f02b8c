// client.mcpServers: custom tool servers (/mcp-servers): registration, approval and the per-end-user
// OAuth of servers with auth_type oauth2. user_id goes in the query; a forUser client manages that
// end-user's servers (scripts are account-level: create them on the account view).
import type { RequestOptions } from "../transport";
import type {
  Page,
  ToolServer,
  ToolServerCreateParams,
  ToolServerOAuthCompleted,
  ToolServerOAuthCompleteParams,
  ToolServerOAuthStarted,
  ToolServerOAuthStartParams,
  ToolServerUpdateParams,
} from "../types";
import { Resource, segment } from "./resource";

export class McpServers extends Resource {
  /** POST /mcp-servers: status pending until approve; secret and script_source are write-only. */
  create(params: ToolServerCreateParams, options?: RequestOptions): Promise<ToolServer> {
    const { user_id, ...body } = params;
    return this.transport.json({ method: "POST", path: "/mcp-servers", query: { user_id }, body, userId: "query" }, options);
  }

  /** GET /mcp-servers: the scope's servers (one page holds them all). */
  list(options?: RequestOptions): Promise<Page<ToolServer>> {
    return this.transport.json({ method: "GET", path: "/mcp-servers", userId: "query" }, options);
  }

  /** GET /mcp-servers/{server_id} */
  get(serverId: number, options?: RequestOptions): Promise<ToolServer> {
    return this.transport.json({ method: "GET", path: `/mcp-servers/${segment(serverId)}`, userId: "query" }, options);
  }

  /**
   * PATCH /mcp-servers/{server_id}: a change to what approval checked (url, auth, tool_defs, the
   * script or its allow-list) makes an approved server pending again; status takes pending or disabled.
   */
  update(serverId: number, params: ToolServerUpdateParams, options?: RequestOptions): Promise<ToolServer> {
    return this.transport.json({ method: "PATCH", path: `/mcp-servers/${segment(serverId)}`, body: params, userId: "query" }, options);
  }

  /** DELETE /mcp-servers/{server_id}: its tools leave runs; its OAuth grants go with it. */
  async delete(serverId: number, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: `/mcp-servers/${segment(serverId)}`, userId: "query" }, options);
  }

  /** POST /mcp-servers/{server_id}/approve: checks the server and offers its tools to runs. */
  approve(serverId: number, options?: RequestOptions): Promise<ToolServer> {
    return this.transport.json({ method: "POST", path: `/mcp-servers/${segment(serverId)}/approve`, userId: "query" }, options);
  }

  /** POST /mcp-servers/{server_id}/oauth/start: the URL to send the end-user's browser to. */
  startOAuth(serverId: number, params: ToolServerOAuthStartParams = {}, options?: RequestOptions): Promise<ToolServerOAuthStarted> {
    const { user_id, ...body } = params;
    return this.transport.json(
      { method: "POST", path: `/mcp-servers/${segment(serverId)}/oauth/start`, query: { user_id }, body, userId: "query" },
      options,
    );
  }

  /** POST /mcp-servers/{server_id}/oauth/complete: the code and state a caller's redirect_uri received. */
  completeOAuth(serverId: number, params: ToolServerOAuthCompleteParams, options?: RequestOptions): Promise<ToolServerOAuthCompleted> {
    const { user_id, ...body } = params;
    return this.transport.json(
      { method: "POST", path: `/mcp-servers/${segment(serverId)}/oauth/complete`, query: { user_id }, body, userId: "query" },
      options,
    );
  }
}
