import { NotFoundError, PlatformApiError, RateLimitError, type PlatformClient } from "@inlay/core/platform-client";

export default async function errorsExample(platform: PlatformClient, agentId: number) {
  let outcome = "";
  // #region docs
  try {
    await platform.forUser("someone-else").agents.get(agentId);
  } catch (error) {
    if (error instanceof NotFoundError) outcome = "not found (or another end-user's)";
    else if (error instanceof RateLimitError) outcome = `retry in ${error.retryAfter} s`;
    else if (error instanceof PlatformApiError && error.errorCode === "end_user_id_required") outcome = "needs a user";
    else throw error;
    console.log((error as PlatformApiError).requestId); // quote it to support
  }
  // #endregion
  return outcome;
}
