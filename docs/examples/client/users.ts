import type { PlatformClient } from "@inlay/core/platform-client";

export default async function usersExample(client: PlatformClient) {
  // #region docs
  await client.users.create({ user_id: "user-7", name: "Grace", email: "grace@example.com" });
  const profile = await client.users.update("user-7", { company: "Acme" });
  const everyone = await client.users.listAll();
  await client.users.delete("user-7"); // the profile and everything scoped to it
  // #endregion
  return { profile, everyone };
}
