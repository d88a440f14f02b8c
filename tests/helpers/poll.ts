// Waiting on a condition: read until the value is accepted, and return it. Not a count of tries: one
// generous limit, under the test's own, and a failure names what was awaited and the last value read.
// (expect.poll would do, but it refuses to run in beforeAll, where set-ups wait for runs too.)
const LIMIT_MS = 25_000;
const INTERVAL_MS = 25;

export async function pollUntil<T>(read: () => Promise<T>, accept: (value: T) => boolean, awaited: string): Promise<T> {
  const deadline = Date.now() + LIMIT_MS;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`waited ${LIMIT_MS} ms for ${awaited}; last read: ${JSON.stringify(value)?.slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
  }
}
