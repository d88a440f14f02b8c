// What a database error means for the caller, read from Prisma's driver-adapter errors.
/**
 * True for a statement PostgreSQL aborted to break a deadlock or a serialization conflict (SQLSTATE
 * 40P01 / 40001): nothing of its transaction committed, so running the transaction again is safe.
 */
export function isWriteConflict(error: unknown): boolean {
  const found = error as { code?: unknown; meta?: { driverAdapterError?: { cause?: { kind?: unknown; originalCode?: unknown } } } } | null;
  // Prisma's code, or PostgreSQL's own SQLSTATE on an error from pg directly (repositories/direct.ts).
  if (found?.code === "P2034" || found?.code === "40P01" || found?.code === "40001") return true;
  const cause = found?.meta?.driverAdapterError?.cause;
  return cause?.kind === "TransactionWriteConflict" || cause?.originalCode === "40P01" || cause?.originalCode === "40001";
}
