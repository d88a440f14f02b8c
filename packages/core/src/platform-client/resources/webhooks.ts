// client.webhooks: /webhooks registrations, their deliveries (each with its attempts), a manual retry,
// a replay and a test event. user_id goes in the query everywhere (POST /webhooks takes it there too),
// so a forUser client manages that end-user's webhooks and the account view the account-level ones.
import { collect, type PagePromise } from "../pagination";
import type { RequestOptions } from "../transport";
import type {
  Webhook,
  WebhookCreateParams,
  WebhookDelivery,
  WebhookDeliveryListParams,
  WebhookListParams,
  WebhookReplay,
  WebhookReplayParams,
  WebhookUpdateParams,
} from "../types";
import { Resource, segment } from "./resource";

export class Webhooks extends Resource {
  /** POST /webhooks: the only answer with the signing secret in full; keep it. */
  create(params: WebhookCreateParams, options?: RequestOptions): Promise<Webhook> {
    const { user_id, ...body } = params;
    return this.transport.json({ method: "POST", path: "/webhooks", query: { user_id }, body, userId: "query" }, options);
  }

  /** GET /webhooks: one page (oldest first, secrets masked), or every webhook when iterated. */
  list(params?: WebhookListParams, options?: RequestOptions): PagePromise<Webhook> {
    return this.paged({ path: "/webhooks", userId: "query" }, params, options);
  }
  listAll(params?: WebhookListParams, options?: RequestOptions): Promise<Webhook[]> {
    return collect(this.list(params, options));
  }

  /** GET /webhooks/{webhook_id} (secret masked) */
  get(webhookId: number, options?: RequestOptions): Promise<Webhook> {
    return this.transport.json({ method: "GET", path: `/webhooks/${segment(webhookId)}`, userId: "query" }, options);
  }

  /**
   * PATCH /webhooks/{webhook_id}: url, events, `active` (false pauses; true resumes and re-enables a
   * disabled one), `rotate_secret` (the answer carries the new secret in full; the old one signs 24 h more).
   */
  update(webhookId: number, params: WebhookUpdateParams, options?: RequestOptions): Promise<Webhook> {
    return this.transport.json({ method: "PATCH", path: `/webhooks/${segment(webhookId)}`, body: params, userId: "query" }, options);
  }

  /** DELETE /webhooks/{webhook_id}: its deliveries go with it. */
  async delete(webhookId: number, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: `/webhooks/${segment(webhookId)}`, userId: "query" }, options);
  }

  /** GET /webhooks/{webhook_id}/deliveries: newest first, each with its attempts (oldest first). */
  deliveries(webhookId: number, params?: WebhookDeliveryListParams, options?: RequestOptions): PagePromise<WebhookDelivery> {
    return this.paged({ path: `/webhooks/${segment(webhookId)}/deliveries`, userId: "query" }, params, options);
  }

  /** POST /webhooks/{webhook_id}/deliveries/{delivery_id}/retry: one more attempt of a finished delivery, now. */
  retryDelivery(webhookId: number, deliveryId: number, options?: RequestOptions): Promise<WebhookDelivery> {
    return this.transport.json(
      { method: "POST", path: `/webhooks/${segment(webhookId)}/deliveries/${segment(deliveryId)}/retry`, userId: "query" },
      options,
    );
  }

  /** POST /webhooks/{webhook_id}/replay: the scope's events in [since, until) delivered again. */
  replay(webhookId: number, params: WebhookReplayParams, options?: RequestOptions): Promise<WebhookReplay> {
    return this.transport.json(
      { method: "POST", path: `/webhooks/${segment(webhookId)}/replay`, body: params, userId: "query" },
      options,
    );
  }

  /** POST /webhooks/{webhook_id}/test (extension): one webhook.test delivery to this webhook, one attempt. */
  sendTest(webhookId: number, options?: RequestOptions): Promise<WebhookDelivery> {
    return this.transport.json({ method: "POST", path: `/webhooks/${segment(webhookId)}/test`, userId: "query" }, options);
  }
}
