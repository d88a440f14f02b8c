// What the Next.js server does when its start-up fails (instrumentation.ts): one clear line on stderr and
// a non-zero exit. Next.js would otherwise stay up and answer 500 to every request, /healthz included,
// where an orchestrator should see a crash and the reason. Nothing here reads the environment or the
// logger: an invalid environment is one of the failures it reports.

/** The line an operator reads: the error's own message (an EnvError lists each bad variable). */
export function startFailureMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `The app cannot start: ${message}`;
}

export function exitOnStartFailure(error: unknown, exit: (code: number) => void = (code) => process.exit(code)): void {
  console.error(startFailureMessage(error));
  exit(1);
}
