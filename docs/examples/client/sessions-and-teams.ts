import { createPlatformClient, createSession, refreshSession } from "@inlay/core/platform-client";

export default async function sessionsAndTeamsExample(baseUrl: string, email: string, inviteeEmail: string) {
  // #region docs
  // Sign in: a session pair; the access token is a bearer credential like a key (15 minutes by default).
  const pair = await createSession({ baseUrl }, { email, password: "correct-horse" });
  const client = createPlatformClient({ baseUrl, apiKey: pair.access_token });
  const [team] = await client.teams.list(); // your own team first, you its owner
  const invite = await client.teams.invite(team!.id, { email: inviteeEmail, role: "admin" }); // mailed
  // The invitee, signed in as that address, calls teams.acceptInvite(token) with the mailed token, then
  // createSession({ baseUrl }, { email, password, org_id: team.id }) to act as the team.
  const fresh = await refreshSession({ baseUrl }, { refresh_token: pair.refresh_token }); // the old pair is used up
  const signedIn = createPlatformClient({ baseUrl, apiKey: fresh.access_token });
  // Every session ends and a new pair answers; API keys keep working.
  const changed = await signedIn.account.changePassword({ current_password: "correct-horse", new_password: "battery-staple" });
  const { revoked } = await createPlatformClient({ baseUrl, apiKey: changed.access_token }).account.revokeSessions(); // every device
  // #endregion
  return { team: team!, invite, revoked };
}
