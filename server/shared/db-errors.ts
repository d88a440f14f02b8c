// What a database error means for the caller, read from Prisma's driver-adapter errors (and from pg's
// own, for the statements repositories/direct.ts sends straight to it).
import pg from "pg";
import { Prisma } from "@/server/generated/prisma/client";

type DbError = { code?: unknown; meta?: { driverAdapterError?: { cause?: { kind?: unknown; originalCode?: unknown } } } } | null;

/** The SQLSTATE PostgreSQL answered with, if it answered at all. */
const sqlState = (error: unknown): string | undefined => {
  const found = error as DbError;
  const original = found?.meta?.driverAdapterError?.cause?.originalCode;
  if (typeof original === "string") return original;
  // pg's DatabaseError (PostgreSQL answered) carries the SQLSTATE as its code; a socket error's code
  // (ECONNRESET, EPIPE…) is no answer.
  return error instanceof pg.DatabaseError ? error.code : undefined;
};

/**
 * True for a statement PostgreSQL aborted to break a deadlock or a serialization conflict (SQLSTATE
 * 40P01 / 40001): nothing of its transaction committed, so running the transaction again is safe.
 */
export function isWriteConflict(error: unknown): boolean {
  const found = error as DbError;
  if (found?.code === "P2034" || found?.meta?.driverAdapterError?.cause?.kind === "TransactionWriteConflict") return true;
  const state = sqlState(error);
  return state === "40P01" || state === "40001";
}

/**
 * True when the database answered the statement with an error (it has an SQLSTATE): the statement
 * did not commit, so writing its rows again cannot double them. A lost connection has no SQLSTATE.
 */
export const rejectedByDatabase = (error: unknown): boolean => sqlState(error) !== undefined;

/** True for an insert or update that a unique constraint refused (Prisma's P2002). */
export const isUniqueViolation = (error: unknown): boolean =>
  error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
