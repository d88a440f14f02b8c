// Sessions and client.teams against a real platform: sign-in and refresh without a key, a client on a
// session token, password change and revocation, and a whole invite round trip; errors as the client's classes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AuthenticationError,
  PermissionDeniedError,
  createPlatformClient,
  createSession,
  refreshSession,
} from "@inlay/core/platform-client";
import { PASSWORD, startPlatform, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform.close());


describe("sessions through the client", () => {
  it("signs in, refreshes, changes the password and revokes", async () => {
    const account = await platform.signup({ password: PASSWORD });
    const baseUrl = platform.baseUrl;
    await expect(createSession({ baseUrl }, { email: account.email, password: "wrong-one" })).rejects.toBeInstanceOf(AuthenticationError);

    const pair = await createSession({ baseUrl }, { email: account.email, password: PASSWORD });
    const client = createPlatformClient({ baseUrl, apiKey: pair.access_token });
    expect((await client.verify.status()).email).toBe(account.email);

    const fresh = await refreshSession({ baseUrl }, { refresh_token: pair.refresh_token });
    await expect(refreshSession({ baseUrl }, { refresh_token: pair.refresh_token })).rejects.toBeInstanceOf(AuthenticationError);
    const signedIn = createPlatformClient({ baseUrl, apiKey: fresh.access_token });

    const keyClient = createPlatformClient({ baseUrl, apiKey: account.key });
    await expect(keyClient.account.revokeSessions()).rejects.toBeInstanceOf(PermissionDeniedError);

    const changed = await signedIn.account.changePassword({ current_password: PASSWORD, new_password: "battery-staple" });
    await expect(signedIn.verify.status()).rejects.toBeInstanceOf(AuthenticationError);
    const latest = createPlatformClient({ baseUrl, apiKey: changed.access_token });
    expect(await latest.account.revokeSessions()).toEqual({ revoked: 1 });
    await expect(latest.verify.status()).rejects.toBeInstanceOf(AuthenticationError);
    expect((await keyClient.verify.status()).email).toBe(account.email);
    // Five password hashes (scrypt) on a shared machine: more than the default 30 s may pass.
  }, 120_000);
});

describe("client.teams", () => {
  it("invites, previews, accepts, lists, removes and revokes", async () => {
    const owner = await platform.signup({ password: PASSWORD, first_name: "Acme" });
    const member = await platform.signup({ password: PASSWORD });
    const ownerClient = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: owner.key });
    const memberClient = createPlatformClient({ baseUrl: platform.baseUrl, apiKey: member.key });

    const [team] = await ownerClient.teams.list();
    expect(team).toMatchObject({ id: owner.id, role: "owner" });
    const invite = await ownerClient.teams.invite(owner.id, { email: member.email });
    expect(invite).toMatchObject({ role: "member", status: "pending" });
    const token = /"token": "([A-Za-z0-9_-]+)"/.exec(platform.lastMail(member.email, "team_invite").text)![1]!;

    expect(await memberClient.teams.previewInvite(token)).toMatchObject({ org_id: owner.id, org_name: "Acme", role: "member" });
    const joined = await memberClient.teams.acceptInvite(token);
    await expect(memberClient.teams.acceptInvite(token)).rejects.toMatchObject({ status: 410, type: "gone" });
    const membership = joined.members.find((m) => m.account_id === member.id)!;
    expect((await memberClient.teams.list()).map((t) => t.id)).toEqual([owner.id, member.id]);

    const other = await ownerClient.teams.invite(owner.id, { email: "someone@example.test" });
    await expect(memberClient.teams.revokeInvite(other.id)).rejects.toBeInstanceOf(PermissionDeniedError);
    await ownerClient.teams.revokeInvite(other.id);
    await ownerClient.teams.removeMember(owner.id, membership.id);
    expect((await memberClient.teams.list()).map((t) => t.id)).toEqual([member.id]);
  });
});
