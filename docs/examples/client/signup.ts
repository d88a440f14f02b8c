import { signup, token } from "@inlay/core/platform-client";

export default async function signupExample(baseUrl: string, email: string) {
  // #region docs
  const { api_key, account } = await signup({ baseUrl }, { email, first_name: "Ada", password: "correct-horse" });
  // Later: a fresh default key from email and password (the previous key stops at once).
  const { api_key: rotated } = await token({ baseUrl }, { email: account.email, password: "correct-horse" });
  // #endregion
  return { api_key, rotated };
}
