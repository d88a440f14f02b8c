// Rows read with raw SQL (hot paths, where Prisma's query compiler costs more than the query) shaped as
// the Prisma client returns them. Every field of the schema maps to the snake_case of its name, so the
// columns of `SELECT *` / `RETURNING *` only need their names turned back; Prisma's raw queries already
// give the values their client types (Date, bigint, parsed JSON, arrays).

// Column name → field name; the schema's columns are few, and this runs for every column of every row.
const fields = new Map<string, string>();
const fieldOf = (column: string) => {
  let field = fields.get(column);
  if (field === undefined) {
    field = column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
    fields.set(column, field);
  }
  return field;
};

/** A `SELECT *` row of a table as the client's model type (the caller names the model). */
export function fromColumns<Row>(columns: Record<string, unknown>): Row {
  const row: Record<string, unknown> = {};
  for (const column in columns) row[fieldOf(column)] = columns[column];
  return row as Row;
}
