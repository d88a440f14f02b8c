// client.bridges: the account's iMessage bridges (/bridges). Account-scoped: no user_id is ever sent,
// also from a forUser client. The password is write-only; rotateSecret's answer is the only one with
// the inbound secret, and createLinkCode's the only one with the code.
import { collect, type PagePromise } from "../pagination";
import type { RequestOptions } from "../transport";
import type {
  Bridge,
  BridgeCreateParams,
  BridgeHandle,
  BridgeLinkCode,
  BridgeListParams,
  BridgeTestResult,
  BridgeUpdateParams,
  BridgeWithSecret,
  PageParams,
} from "../types";
import { Resource, segment } from "./resource";

export class Bridges extends Resource {
  /** POST /bridges */
  create(params: BridgeCreateParams, options?: RequestOptions): Promise<Bridge> {
    return this.transport.json({ method: "POST", path: "/bridges", body: params }, options);
  }

  /** GET /bridges: one page (oldest first), or every bridge when iterated. */
  list(params?: BridgeListParams, options?: RequestOptions): PagePromise<Bridge> {
    return this.paged({ path: "/bridges" }, params, options);
  }
  listAll(params?: BridgeListParams, options?: RequestOptions): Promise<Bridge[]> {
    return collect(this.list(params, options));
  }

  /** GET /bridges/{bridge_id} */
  get(bridgeId: number, options?: RequestOptions): Promise<Bridge> {
    return this.transport.json({ method: "GET", path: `/bridges/${segment(bridgeId)}` }, options);
  }

  /** PATCH /bridges/{bridge_id}: name, server_url, password, status (active or paused), owner_handle. */
  update(bridgeId: number, params: BridgeUpdateParams, options?: RequestOptions): Promise<Bridge> {
    return this.transport.json({ method: "PATCH", path: `/bridges/${segment(bridgeId)}`, body: params }, options);
  }

  /** DELETE /bridges/{bridge_id}: its agents keep their settings with bridge_id null. */
  async delete(bridgeId: number, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: `/bridges/${segment(bridgeId)}` }, options);
  }

  /** POST /bridges/{bridge_id}/rotate-secret: the new inbound secret, in this answer only. */
  rotateSecret(bridgeId: number, options?: RequestOptions): Promise<BridgeWithSecret> {
    return this.transport.json({ method: "POST", path: `/bridges/${segment(bridgeId)}/rotate-secret` }, options);
  }

  /** POST /bridges/{bridge_id}/link-code: a single-use code; the handle that texts it is linked. */
  createLinkCode(bridgeId: number, options?: RequestOptions): Promise<BridgeLinkCode> {
    return this.transport.json({ method: "POST", path: `/bridges/${segment(bridgeId)}/link-code` }, options);
  }

  /** POST /bridges/{bridge_id}/test: whether the bridge server answers (a server down is ok: false, not an error). */
  test(bridgeId: number, options?: RequestOptions): Promise<BridgeTestResult> {
    return this.transport.json({ method: "POST", path: `/bridges/${segment(bridgeId)}/test` }, options);
  }

  /** GET /bridges/{bridge_id}/handles: the linked handles, oldest first. */
  handles(bridgeId: number, params?: PageParams, options?: RequestOptions): PagePromise<BridgeHandle> {
    return this.paged({ path: `/bridges/${segment(bridgeId)}/handles` }, params, options);
  }

  /** DELETE /bridges/{bridge_id}/handles/{handle_id} */
  async unlinkHandle(bridgeId: number, handleId: number, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: `/bridges/${segment(bridgeId)}/handles/${segment(handleId)}` }, options);
  }
}
