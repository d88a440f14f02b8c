// The paged envelope {data, has_more}: repositories fetch limit + 1 rows and this trims the extra.
import type { Page } from "@inlay/core/schemas/common";

export function toPage<Row, Item>(rows: Row[], limit: number, map: (row: Row) => Item): Page<Item> {
  return { data: rows.slice(0, limit).map(map), has_more: rows.length > limit };
}
