// client.judgments: advisory verdicts (POST /judgments, decide or verify), saved results
// (GET /judgments/{id}, with the original user_id) and the account's own provider key
// (client.judgments.connection; account-scoped, so never sent with a user_id).
import type { RequestOptions } from "../transport";
import type { Judgment, JudgmentConnection, JudgmentCreateParams } from "../types";
import { Resource, segment } from "./resource";

class JudgmentConnectionResource extends Resource {
  /** GET /judgments/connection: {connected, enabled, funding_source, model, updated_at}; never the key. */
  get(options?: RequestOptions): Promise<JudgmentConnection> {
    return this.transport.json({ method: "GET", path: "/judgments/connection" }, options);
  }

  /** PUT /judgments/connection: stores or rotates the key (write-only, encrypted); judgments become customer-funded. */
  set(apiKey: string, options?: RequestOptions): Promise<JudgmentConnection> {
    return this.transport.json({ method: "PUT", path: "/judgments/connection", body: { api_key: apiKey } }, options);
  }

  /** DELETE /judgments/connection: later judgments are platform-funded. */
  async delete(options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: "/judgments/connection" }, options);
  }
}

export class Judgments extends Resource {
  readonly connection = new JudgmentConnectionResource(this.transport);

  /**
   * POST /judgments. Not retried (the spec retries only run-creating POSTs); `idempotencyKey` is sent
   * when given: the same key and request answer the same judgment, a failed or pending one a 409.
   */
  create(params: JudgmentCreateParams, options: RequestOptions = {}): Promise<Judgment> {
    const { idempotencyKey, ...rest } = options;
    const headers = idempotencyKey === undefined ? rest.headers : { ...rest.headers, "idempotency-key": idempotencyKey };
    return this.transport.json({ method: "POST", path: "/judgments", body: params, userId: "body" }, { ...rest, headers });
  }

  /** GET /judgments/{judgment_id}: the saved result for 30 days (410 result_not_retained after, or under metadata_only). */
  get(judgmentId: number, options?: RequestOptions): Promise<Judgment> {
    return this.transport.json({ method: "GET", path: `/judgments/${segment(judgmentId)}`, userId: "query" }, options);
  }
}
