// What the layers above the repositories know of the database: a handle to pass around and plain
// JSON values. Prisma's own types (JSON inputs, DbNull, model inputs) stay inside repositories.
import { Prisma } from "@/server/generated/prisma/client";
import type { Db } from "@/server/shared/db";

/** The database handle (server/shared/db.ts): the client, or the client of an open transaction. */
export type { Db };

/**
 * A handle that must belong to an open transaction (the function locks rows or needs several writes
 * to land together). Prisma gives transactions a narrower client; callers pass it as a Db.
 */
export type Tx = Db;

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonObject | JsonArray;
export type JsonObject = { [key: string]: JsonValue | undefined };
export type JsonArray = JsonValue[];

/**
 * A model's input T with its JSON columns K as plain JSON. A top-level null clears a nullable column
 * (SQL NULL: Prisma's DbNull, not a JSON null); toDbJson turns the plain values into Prisma's.
 */
export type PlainJson<T, K extends keyof T> = Omit<T, K> & { [P in keyof Pick<T, K>]: T[P] | JsonValue };

/** Prisma's input for `data` whose JSON `columns` are plain JSON (PlainJson). */
export function toDbJson<T>(data: object, columns: readonly string[]): T {
  const out: Record<string, unknown> = { ...data };
  for (const column of columns) if (out[column] === null) out[column] = Prisma.DbNull;
  return out as T;
}

/** A value for a JSON column that is never SQL NULL. */
export const json = (value: JsonValue | object): Prisma.InputJsonValue => value as Prisma.InputJsonValue;
