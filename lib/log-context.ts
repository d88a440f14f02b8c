// What every log line carries while one piece of work runs: the request, account, run and trace it
// belongs to (lib/logger.ts adds a copy to each line). Set where the work starts (a request, a run's
// pass, a job) and filled in as it learns more (the key's account, the run it created).
import { AsyncLocalStorage } from "node:async_hooks";

export interface LogContext {
  requestId?: string;
  accountId?: number;
  runId?: number;
  /** The trace the work belongs to while tracing is on: what ties a worker's lines to the request's. */
  traceId?: string;
}

const store = new AsyncLocalStorage<LogContext>();

/** Runs `work` with `fields` added to the current context (a copy: the caller's is left as it was). */
export function withLogContext<T>(fields: LogContext, work: () => T): T {
  return store.run({ ...store.getStore(), ...fields }, work);
}

/** Adds to the context of the work under way (no-op outside one). */
export function addLogContext(fields: LogContext): void {
  const current = store.getStore();
  if (current) Object.assign(current, fields);
}

export const currentLogContext = (): LogContext | undefined => store.getStore();
