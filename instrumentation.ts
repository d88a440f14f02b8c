// Runs once when a Next.js server starts: opens (and migrates) the database and seeds the demo data
// on an empty one, so the first request does not pay for it. A start-up that fails (an invalid
// environment, a database it cannot open) ends the process with its message (start-failure.ts).
export async function register() {
  // NEXT_RUNTIME is a constant Next.js inlines per bundle, not configuration, so it is read here
  // rather than through lib/env.ts: the Node-only modules below must stay out of the edge bundle.
  // eslint-disable-next-line no-restricted-properties
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  try {
    const { startFramework } = await import("./server/framework/startup");
    await startFramework();
  } catch (error) {
    const { exitOnStartFailure } = await import("./server/framework/start-failure");
    exitOnStartFailure(error);
  }
}
