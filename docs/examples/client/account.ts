import type { PlatformClient } from "@inlay/core/platform-client";

export default async function accountExample(client: PlatformClient) {
  // #region docs
  const { verified } = await client.verify.status();
  if (!verified) await client.verify.resend();
  const dump = await client.account.export(); // everything the account owns, no secrets
  await client.account.delete(); // irreversible: the key stops working at once
  // #endregion
  return { verified, dump };
}
