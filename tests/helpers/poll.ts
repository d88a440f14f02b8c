// Waiting on a condition: read until the value is accepted, and return it. Not a count of tries: one
// generous limit, under the test's own, and a failure names what was awaited and the last value read.
// (expect.poll would do, but it refuses to run in beforeAll, where set-ups wait for runs too.)
const LIMIT_MS = 25_000;
const INTERVAL_MS = 25;

export async function pollUntil<T>(read: () => Promise<T>, accept: (value: T) => boolean, awaited: string, limitMs = LIMIT_MS): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`waited ${limitMs} ms for ${awaited}; last read: ${JSON.stringify(value)?.slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
  }
}

/** Reads until the value is there (not null, undefined or false), and returns it. */
export async function pollFor<T>(read: () => Promise<T | null | undefined | false>, awaited: string): Promise<T> {
  return (await pollUntil(read, (value) => value !== null && value !== undefined && value !== false, awaited)) as T;
}

/** Where a run is read from: a platform client (its runs.get), or a function of the run's id. */
export type RunSource<R> = { runs: { get(runId: number): Promise<R> } } | ((runId: number) => Promise<R | null>);

/** Reads the run until its status is one of `statuses`; returns it. */
export function waitForRun<R extends { status: string }>(source: RunSource<R>, runId: number, statuses: readonly string[]): Promise<R> {
  const read = typeof source === "function" ? () => source(runId) : () => source.runs.get(runId);
  return pollUntil(read, (run) => run !== null && statuses.includes(run.status), `run ${runId} to reach ${statuses.join("/")}`) as Promise<R>;
}
