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

// SQLSTATEs that say the server is going away, starting up, or out of room: the statement did not run
// because of the database's state, not because of the statement.
const UNAVAILABLE_STATES = new Set(["57P01", "57P02", "57P03", "53300"]);
const UNAVAILABLE_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "EAI_AGAIN"]);
// pg and pg-pool say these in messages only (no code): a connection that died, or none in time.
const UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection closed|server closed the connection|Can't reach database server|Timed out fetching a new connection/i;

/**
 * True when the database could not be reached or went away during the statement (a restart, a
 * failover, a pool with no connection free in time): trying again later may succeed, so a run hands
 * itself back instead of failing and a request answers 503 with Retry-After. Whether the statement
 * committed is unknown when the connection was lost: callers retry only what is safe to.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (error === null || typeof error !== "object" || depth > 5) return false;
  const found = error as DbError & { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown; kind?: unknown; originalCode?: unknown };
  // Prisma's driver-adapter error, on the error (meta) or as its cause.
  const adapter = found.meta?.driverAdapterError?.cause ?? found;
  if (typeof adapter.kind === "string" && UNAVAILABLE_KINDS.has(adapter.kind)) return true;
  const state = sqlState(error) ?? (typeof found.originalCode === "string" ? found.originalCode : undefined);
  if (state !== undefined) return state.startsWith("08") || UNAVAILABLE_STATES.has(state);
  // Prisma's own: P1001 cannot reach, P1017 the server closed the connection, P2024 no pool connection in time.
  if (found.code === "P1001" || found.code === "P1017" || found.code === "P2024") return true;
  if (typeof found.code === "string" && SOCKET_CODES.has(found.code)) return true;
  if (typeof found.message === "string" && UNAVAILABLE_MESSAGE.test(found.message)) return true;
  // Wrapped (Prisma's errors, AggregateError of a connect to several addresses).
  if (Array.isArray(found.errors) && found.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(found.cause, depth + 1);
}

/**
 * True for a statement PostgreSQL cancelled at its statement_timeout (SQLSTATE 57014): the database
 * was too busy, or the statement too slow. A request answers 503; a run is not handed back for it (a
 * statement that is always too slow would hand it back for ever).
 */
export const isStatementTimeout = (error: unknown): boolean => sqlState(error) === "57014";

/**
 * True when a request failed for the database's state, not its own: away, or too busy to answer in
 * time. Every transport answers it 503 with Retry-After, the request may succeed shortly.
 */
export const isDatabaseAway = (error: unknown): boolean => isDatabaseUnavailable(error) || isStatementTimeout(error);

/** What a 503 for an unavailable database asks the client to wait: about a restart's length. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;
