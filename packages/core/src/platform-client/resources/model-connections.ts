// client.modelConnections: /model-connections, the account's own model-provider credentials (API keys,
// pasted provA tokens, provA's authorization flow). Account-level: no user_id. Secrets go in, never out.
import type { RequestOptions } from "../transport";
import type {
  ModelAuthorization,
  ModelAuthorizationCompleteParams,
  ModelConnection,
  ModelConnectionApiKeyParams,
  ModelConnectionList,
  ModelConnectionPasteParams,
} from "../types";
import { Resource, segment } from "./resource";

const base = (provider: string) => `/model-connections/${segment(provider)}`;

export class ModelConnections extends Resource {
  /** GET /model-connections: every provider with its status, and the preferred default. */
  list(options?: RequestOptions): Promise<ModelConnectionList> {
    return this.transport.json({ method: "GET", path: "/model-connections" }, options);
  }

  /** PUT /model-connections/{provider} (an Inlay extension): an API key for openai, anthropic or openai-compatible. */
  connectApiKey(provider: string, params: ModelConnectionApiKeyParams, options?: RequestOptions): Promise<ModelConnection> {
    return this.transport.json({ method: "PUT", path: base(provider), body: params }, options);
  }

  /** POST /model-connections/provA/paste: a token pair copied from provA. */
  paste(params: ModelConnectionPasteParams, options?: RequestOptions): Promise<ModelConnection> {
    return this.transport.json({ method: "POST", path: "/model-connections/provA/paste", body: params }, options);
  }

  /** DELETE /model-connections/{provider}: forgets the connection and all its accounts. */
  async disconnect(provider: string, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: base(provider) }, options);
  }

  /** DELETE /model-connections/{provider}/accounts/{account_id}: one provider-side account. */
  async disconnectAccount(provider: string, accountId: number, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: `${base(provider)}/accounts/${segment(accountId)}` }, options);
  }

  /** POST /model-connections/{provider}/apply-default: runs without a model use this connection's default model. */
  applyDefault(provider: string, options?: RequestOptions): Promise<ModelConnection> {
    return this.transport.json({ method: "POST", path: `${base(provider)}/apply-default` }, options);
  }

  /** DELETE /model-connections/preferred-default */
  async clearPreferredDefault(options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: "/model-connections/preferred-default" }, options);
  }

  /** PATCH /model-connections/{provider}/default-model: a model id or alias of the provider; null restores the platform default. */
  setDefaultModel(provider: string, model: string | null, options?: RequestOptions): Promise<ModelConnection> {
    return this.transport.json({ method: "PATCH", path: `${base(provider)}/default-model`, body: { model } }, options);
  }

  readonly authorizations = {
    /** POST …/authorizations: pending, with the authorization_url to send the person to. */
    start: (provider: string, options?: RequestOptions): Promise<ModelAuthorization> =>
      this.transport.json({ method: "POST", path: `${base(provider)}/authorizations` }, options),
    /** GET …/authorizations/{state}: pending, completed, cancelled, expired or failed. */
    get: (provider: string, state: string, options?: RequestOptions): Promise<ModelAuthorization> =>
      this.transport.json({ method: "GET", path: `${base(provider)}/authorizations/${segment(state)}` }, options),
    /** POST …/authorizations/{state}: the code the provider showed the person. */
    complete: (provider: string, state: string, params: ModelAuthorizationCompleteParams, options?: RequestOptions): Promise<ModelAuthorization> =>
      this.transport.json({ method: "POST", path: `${base(provider)}/authorizations/${segment(state)}`, body: params }, options),
    /** DELETE …/authorizations/{state} */
    cancel: async (provider: string, state: string, options?: RequestOptions): Promise<void> => {
      await this.transport.json({ method: "DELETE", path: `${base(provider)}/authorizations/${segment(state)}` }, options);
    },
  };
}
