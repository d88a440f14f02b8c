// client.channels: the chat and code-host channels (account-scoped, except the install links, which
// may be for an end-user), the account's own app of each (write-only secrets), and the install links.
import type { RequestOptions } from "../transport";
import type { Channel, ChannelIdentityParams, ChannelInstallLinks, Page } from "../types";
import { Resource } from "./resource";

export class Channels extends Resource {
  /** GET /channels: both channels, each own, shared or unavailable; no secret is returned. */
  list(options?: RequestOptions): Promise<Page<Channel>> {
    return this.transport.json({ method: "GET", path: "/channels" }, options);
  }

  /** GET /channels/install-links: a connect flow of each app; 503 chat_app_unavailable without a chat app. */
  installLinks(params: { redirect_uri?: string } = {}, options?: RequestOptions): Promise<ChannelInstallLinks> {
    return this.transport.json({ method: "GET", path: "/channels/install-links", query: params, userId: "query" }, options);
  }

  /** PUT /channels/identities: stores (replaces) the account's own app of the channel. */
  putIdentity(params: ChannelIdentityParams, options?: RequestOptions): Promise<Channel> {
    return this.transport.json({ method: "PUT", path: "/channels/identities", body: params }, options);
  }
}
