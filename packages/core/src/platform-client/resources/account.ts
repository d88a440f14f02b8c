// The account itself (account-scoped: no user_id anywhere): client.settings, client.keys,
// client.account, client.verify.
import { collect, type PagePromise } from "../pagination";
import type { RequestOptions } from "../transport";
import type {
  AccountExport,
  ApiKey,
  ApiKeyWithSecret,
  KeyCreateParams,
  PageParams,
  PasswordChangeParams,
  SessionPair,
  SessionsRevoked,
  Settings,
  SettingsUpdateParams,
  VerifyConfirmResult,
  VerifyResendResult,
  VerifyStatus,
} from "../types";
import { Resource, segment } from "./resource";

export class SettingsResource extends Resource {
  /** GET /settings */
  get(options?: RequestOptions): Promise<Settings> {
    return this.transport.json({ method: "GET", path: "/settings" }, options);
  }
  /** PATCH /settings: omitted fields stay; null removes a cap. */
  update(params: SettingsUpdateParams, options?: RequestOptions): Promise<Settings> {
    return this.transport.json({ method: "PATCH", path: "/settings", body: params }, options);
  }
}

/** The default key: GET, DELETE /keys and POST /keys/rotate. */
export class DefaultKey extends Resource {
  get(options?: RequestOptions): Promise<ApiKey> {
    return this.transport.json({ method: "GET", path: "/keys" }, options);
  }
  /** A new default key; the old one stops at once. */
  rotate(options?: RequestOptions): Promise<ApiKeyWithSecret> {
    return this.transport.json({ method: "POST", path: "/keys/rotate" }, options);
  }
  async delete(options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: "/keys" }, options);
  }
}

/** Named keys (/keys, /keys/all, /keys/{key_id}) and the default key (`keys.default`). */
export class Keys extends Resource {
  readonly default = new DefaultKey(this.transport);

  /** POST /keys: the secret is in this answer and nowhere else, ever. */
  create(params: KeyCreateParams, options?: RequestOptions): Promise<ApiKeyWithSecret> {
    return this.transport.json({ method: "POST", path: "/keys", body: params }, options);
  }
  /** GET /keys/all: named keys, oldest first, never their secrets. */
  list(params?: PageParams, options?: RequestOptions): PagePromise<ApiKey> {
    return this.paged({ path: "/keys/all" }, params, options);
  }
  listAll(params?: PageParams, options?: RequestOptions): Promise<ApiKey[]> {
    return collect(this.list(params, options));
  }
  /** POST /keys/{key_id}/rotate: a successor with the same name and expiry. */
  rotate(keyId: number, options?: RequestOptions): Promise<ApiKeyWithSecret> {
    return this.transport.json({ method: "POST", path: `/keys/${segment(keyId)}/rotate` }, options);
  }
  /** DELETE /keys/{key_id}: revoked at once. */
  async delete(keyId: number, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: `/keys/${segment(keyId)}` }, options);
  }
}

export class AccountResource extends Resource {
  /** GET /account/export: everything the account owns, no secrets. */
  export(options?: RequestOptions): Promise<AccountExport> {
    return this.transport.json({ method: "GET", path: "/account/export" }, options);
  }
  /** DELETE /account: the account and all its data; its keys stop working. */
  async delete(options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: "/account" }, options);
  }
  /** POST /account/password: every session ends; the answer is a fresh session pair. Keys keep working. */
  changePassword(params: PasswordChangeParams, options?: RequestOptions): Promise<SessionPair> {
    return this.transport.json({ method: "POST", path: "/account/password", body: params }, options);
  }
  /** POST /account/sessions/revoke: ends every session on every device (a client built on a session token only). */
  revokeSessions(options?: RequestOptions): Promise<SessionsRevoked> {
    return this.transport.json({ method: "POST", path: "/account/sessions/revoke" }, options);
  }
}

export class Verify extends Resource {
  /** GET /verify/status */
  status(options?: RequestOptions): Promise<VerifyStatus> {
    return this.transport.json({ method: "GET", path: "/verify/status" }, options);
  }
  /** POST /verify/resend (409 email_already_verified once verified). */
  resend(options?: RequestOptions): Promise<VerifyResendResult> {
    return this.transport.json({ method: "POST", path: "/verify/resend" }, options);
  }
  /** GET /verify/confirm?token=…: what the emailed link does (no auth needed). */
  confirm(token: string, options?: RequestOptions): Promise<VerifyConfirmResult> {
    return this.transport.json({ method: "GET", path: "/verify/confirm", query: { token } }, options);
  }
}
