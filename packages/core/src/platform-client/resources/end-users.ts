// End-user data: client.users (profiles), client.memories, client.permissions (tool allow-list).
import { collect, type PagePromise } from "../pagination";
import type { RequestOptions } from "../transport";
import type {
  EndUser,
  EndUserCreateParams,
  EndUserUpdateParams,
  Memory,
  MemoryCreateParams,
  MemoryListParams,
  PageParams,
  Permission,
  PermissionCreateParams,
  PermissionListParams,
} from "../types";
import { Resource, segment } from "./resource";

/** Profiles are named by their user_id in the path: these calls take it explicitly, never from forUser. */
export class Users extends Resource {
  /** POST /users */
  create(params: EndUserCreateParams, options?: RequestOptions): Promise<EndUser> {
    return this.transport.json({ method: "POST", path: "/users", body: params }, options);
  }
  /** GET /users */
  list(params?: PageParams, options?: RequestOptions): PagePromise<EndUser> {
    return this.paged({ path: "/users" }, params, options);
  }
  listAll(params?: PageParams, options?: RequestOptions): Promise<EndUser[]> {
    return collect(this.list(params, options));
  }
  /** GET /users/{user_id} */
  get(userId: string, options?: RequestOptions): Promise<EndUser> {
    return this.transport.json({ method: "GET", path: `/users/${segment(userId)}` }, options);
  }
  /** PATCH /users/{user_id}: omitted fields stay, null clears. */
  update(userId: string, params: EndUserUpdateParams, options?: RequestOptions): Promise<EndUser> {
    return this.transport.json({ method: "PATCH", path: `/users/${segment(userId)}`, body: params }, options);
  }
  /** DELETE /users/{user_id}: the profile and everything scoped to it. */
  async delete(userId: string, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: `/users/${segment(userId)}` }, options);
  }
}

/** user_id is required on every memory call: use a forUser client or pass it. */
export class Memories extends Resource {
  /** POST /memories */
  create(params: MemoryCreateParams, options?: RequestOptions): Promise<Memory> {
    return this.transport.json({ method: "POST", path: "/memories", body: params, userId: "body" }, options);
  }
  /** GET /memories */
  list(params?: MemoryListParams, options?: RequestOptions): PagePromise<Memory> {
    return this.paged({ path: "/memories", userId: "query" }, params, options);
  }
  listAll(params?: MemoryListParams, options?: RequestOptions): Promise<Memory[]> {
    return collect(this.list(params, options));
  }
  /** DELETE /memories/{memory_id} */
  async delete(memoryId: number, params: { user_id?: string } = {}, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: `/memories/${segment(memoryId)}`, query: params, userId: "query" }, options);
  }
}

export class Permissions extends Resource {
  /** POST /permissions: idempotent (the existing record again). */
  create(params: PermissionCreateParams, options?: RequestOptions): Promise<Permission> {
    return this.transport.json({ method: "POST", path: "/permissions", body: params, userId: "body" }, options);
  }
  /** GET /permissions: without a user scope (strict mode off), the whole account's. */
  list(params?: PermissionListParams, options?: RequestOptions): PagePromise<Permission> {
    return this.paged({ path: "/permissions", userId: "query" }, params, options);
  }
  listAll(params?: PermissionListParams, options?: RequestOptions): Promise<Permission[]> {
    return collect(this.list(params, options));
  }
  /** DELETE /permissions/{permission_id} */
  async delete(permissionId: number, params: { user_id?: string } = {}, options?: RequestOptions): Promise<void> {
    await this.transport.json(
      { method: "DELETE", path: `/permissions/${segment(permissionId)}`, query: params, userId: "query" },
      options,
    );
  }
}
