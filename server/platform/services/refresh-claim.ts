// Single-flight token refresh across instances, for every stored credential that rotates (app
// connections, services/apps/app-credentials.ts; model connections' provider accounts,
// services/models/model-connections.ts). The row carries refreshing_until: a caller claims it with one
// conditional UPDATE (its repository's claim function: set it when null or past), refreshes, and
// clears it with the new tokens; every other caller, in this process or another, waits for the claim
// to end and reads what was stored. A refresh token that rotates is thus spent once, never raced.

/** How long one instance's claim on a refresh lasts (its own token request times out sooner). */
export const REFRESH_CLAIM_MS = 20_000;
/** How long another caller waits for that refresh before it gives up (and tries to claim it itself). */
export const REFRESH_WAIT_MS = 20_000;
const REFRESH_POLL_MS = 50;

/**
 * Waits until the claim read by `claimedUntil` has ended (cleared, past, or the row gone), or until
 * `deadline` (epoch ms).
 */
export async function waitForRefreshClaim(claimedUntil: () => Promise<Date | null | undefined>, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, REFRESH_POLL_MS));
    const until = await claimedUntil();
    if (!until || until.getTime() <= Date.now()) return;
  }
}
