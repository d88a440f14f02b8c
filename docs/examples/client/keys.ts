import type { PlatformClient } from "@inlay/core/platform-client";

export default async function keysExample(client: PlatformClient) {
  // #region docs
  const ci = await client.keys.create({ name: "ci", expires_in_days: 90 }); // ci.key is shown once
  const named = await client.keys.listAll(); // never secrets
  const successor = await client.keys.rotate(ci.id);
  await client.keys.delete(successor.id);
  const defaultKey = await client.keys.default.get(); // also keys.default.rotate() and .delete()
  // #endregion
  return { ci, named, successor, defaultKey };
}
