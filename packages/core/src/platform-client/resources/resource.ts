// What every resource namespace shares: the transport (already scoped by forUser) and list paging.
import { PagePromise, type Cursor } from "../pagination";
import type { Operation, RequestOptions, Transport } from "../transport";
import type { Page } from "../types";

/** A path segment: ids and names are always encoded. */
export const segment = (value: string | number) => encodeURIComponent(String(value));

const byId = (item: unknown) => (item as { id: number }).id;

export abstract class Resource {
  constructor(protected readonly transport: Transport) {}

  /** One page, or every page when iterated; `starting_after` in `params` is where the walk begins. */
  protected paged<T>(
    operation: Omit<Operation, "method" | "query">,
    params: { starting_after?: Cursor } & object = {},
    options?: RequestOptions,
    cursorOf: (item: T) => Cursor = byId,
  ): PagePromise<T> {
    const { starting_after, ...query } = params as { starting_after?: Cursor } & Record<string, unknown>;
    return new PagePromise<T>(
      (after) =>
        this.transport.json<Page<T>>({ ...operation, method: "GET", query: { ...query, starting_after: after } }, options),
      cursorOf,
      starting_after,
    );
  }
}
