import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSWORD, startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform.close());

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** The token of the latest invite mailed to `email` (the mail is the only place it travels). */
async function mailedToken(email: string): Promise<string> {
  const mail = platform.lastMail(email.toLowerCase(), "team_invite");
  const token = /"token": "([A-Za-z0-9_-]+)"/.exec(mail.text)?.[1];
  if (!token) throw new Error(`no invite mailed to ${email}`);
  return token;
}

async function invite(org: Account, by: string, email: string, role?: string) {
  const { status, body } = await platform.call(`/teams/${org.id}/invites`, { key: by, body: { email, role } });
  if (status !== 201) throw new Error(`POST /teams/${org.id}/invites: ${status} ${JSON.stringify(body)}`);
  return { invite: body, token: await mailedToken(email) };
}

async function join(org: Account, member: Account, role?: string) {
  const { token } = await invite(org, org.key, member.email, role);
  const { status, body } = await platform.call("/teams/invites/accept", { key: member.key, body: { token } });
  if (status !== 200) throw new Error(`accept: ${status} ${JSON.stringify(body)}`);
  return body.members.find((m: { account_id: number }) => m.account_id === member.id).id as number;
}

async function orgSession(member: Account, org: Account) {
  const { status, body } = await platform.call("/account/sessions", {
    body: { email: member.email, password: PASSWORD, org_id: org.id },
  });
  if (status !== 201) throw new Error(`org session: ${status} ${JSON.stringify(body)}`);
  return body as { access_token: string; role: string; account_id: number };
}

describe("GET /teams", () => {
  it("lists the caller's own team, with itself as the lasting owner", async () => {
    const owner = await platform.signup({ password: PASSWORD, first_name: "Acme" });
    const { status, body } = await platform.call("/teams", { key: owner.key });
    expect(status).toBe(200);
    expect(body.data).toHaveLength(1);
    expect(body.data[0]).toMatchObject({ id: owner.id, name: "Acme", owner_email: owner.email, role: "owner", invites: [] });
    expect(body.data[0].members).toEqual([
      expect.objectContaining({ account_id: owner.id, email: owner.email, role: "owner", is_account_holder: true }),
    ]);
  });
});

describe("invites", () => {
  it("invite, preview, accept: the invitee joins with the role and sees the team", async () => {
    const owner = await platform.signup({ password: PASSWORD, first_name: "Acme" });
    const invitee = await platform.signup({ password: PASSWORD, first_name: "Bea" });
    const { invite: created, token } = await invite(owner, owner.key, invitee.email.toUpperCase(), "admin");
    expect(created).toMatchObject({ org_id: owner.id, email: invitee.email, role: "admin", invited_by: owner.email, status: "pending" });
    expect(Date.parse(created.expires_at) - Date.parse(created.created_at)).toBe(7 * 24 * 60 * 60 * 1000);
    expect(created).not.toHaveProperty("token");

    const listed = await platform.call("/teams", { key: owner.key });
    expect(listed.body.data[0].invites.map((i: { id: number }) => i.id)).toEqual([created.id]);

    const preview = await platform.call(`/teams/invites/${token}`, { key: invitee.key });
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({
      org_id: owner.id,
      org_name: "Acme",
      invited_by: owner.email,
      inviter_name: "Acme",
      email: invitee.email,
      role: "admin",
      expires_at: created.expires_at,
    });

    const accepted = await platform.call("/teams/invites/accept", { key: invitee.key, body: { token } });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ id: owner.id, role: "admin" });
    expect(accepted.body.members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      [owner.email, "owner"],
      [invitee.email, "admin"],
    ]);

    const teams = await platform.call("/teams", { key: invitee.key });
    expect(teams.body.data.map((t: { id: number; role: string }) => [t.id, t.role])).toEqual([
      [owner.id, "admin"],
      [invitee.id, "owner"],
    ]);
    expect((await platform.call("/teams", { key: owner.key })).body.data[0].invites).toEqual([]);

    // Single use: the same token again is gone.
    const again = await platform.call("/teams/invites/accept", { key: invitee.key, body: { token } });
    expect(again.status).toBe(410);
    expect(again.body.error).toMatchObject({ type: "gone", error_code: "invite_accepted" });
    expect((await platform.call(`/teams/invites/${token}`, { key: invitee.key })).status).toBe(410);
  });

  it("only the invited address may accept", async () => {
    const owner = await platform.signup({ password: PASSWORD });
    const invitee = await platform.signup({ password: PASSWORD });
    const stranger = await platform.signup({ password: PASSWORD });
    const { token } = await invite(owner, owner.key, invitee.email);
    const { status, body } = await platform.call("/teams/invites/accept", { key: stranger.key, body: { token } });
    expect(status).toBe(403);
    expect(body.error).toMatchObject({ type: "permission_error", error_code: "invite_email_mismatch" });
    expect((await platform.call(`/teams/invites/${token}`, { key: invitee.key })).status).toBe(200);
  });

  it("an unknown token is 404; an expired one 410", async () => {
    const owner = await platform.signup({ password: PASSWORD });
    const invitee = await platform.signup({ password: PASSWORD });
    expect((await platform.call("/teams/invites/not-a-token", { key: invitee.key })).status).toBe(404);
    const { invite: created, token } = await invite(owner, owner.key, invitee.email);
    await platform.database.prisma.platformTeamInvite.update({ where: { id: created.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const preview = await platform.call(`/teams/invites/${token}`, { key: invitee.key });
    expect(preview.status).toBe(410);
    expect(preview.body.error.error_code).toBe("invite_expired");
    expect((await platform.call("/teams/invites/accept", { key: invitee.key, body: { token } })).status).toBe(410);
  });

  it("refuses to invite a member again (409) and replaces a pending invite to the same address", async () => {
    const owner = await platform.signup({ password: PASSWORD });
    const invitee = await platform.signup({ password: PASSWORD });
    const first = await invite(owner, owner.key, invitee.email);
    const second = await invite(owner, owner.key, invitee.email, "admin");
    expect((await platform.call(`/teams/invites/${first.token}`, { key: invitee.key })).body.error.error_code).toBe("invite_revoked");
    expect((await platform.call("/teams/invites/accept", { key: invitee.key, body: { token: second.token } })).status).toBe(200);
    const dup = await platform.call(`/teams/${owner.id}/invites`, { key: owner.key, body: { email: invitee.email } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.error_code).toBe("already_member");
  });

  it("validates the body, naming the field", async () => {
    const owner = await platform.signup({ password: PASSWORD });
    const noEmail = await platform.call(`/teams/${owner.id}/invites`, { key: owner.key, body: { role: "member" } });
    expect(noEmail.status).toBe(422);
    expect(noEmail.body.error.details.fields[0].field).toBe("email");
    const badRole = await platform.call(`/teams/${owner.id}/invites`, { key: owner.key, body: { email: "x@example.test", role: "king" } });
    expect(badRole.status).toBe(422);
    expect(badRole.body.error.details.fields[0].field).toBe("role");
  });

  it("DELETE /teams/invites/{id} revokes a pending invite", async () => {
    const owner = await platform.signup({ password: PASSWORD });
    const invitee = await platform.signup({ password: PASSWORD });
    const { invite: created, token } = await invite(owner, owner.key, invitee.email);
    expect((await platform.call(`/teams/invites/${created.id}`, { key: owner.key, method: "DELETE" })).status).toBe(204);
    const preview = await platform.call(`/teams/invites/${token}`, { key: invitee.key });
    expect(preview.status).toBe(410);
    expect(preview.body.error.error_code).toBe("invite_revoked");
    expect((await platform.call(`/teams/invites/${created.id}`, { key: owner.key, method: "DELETE" })).status).toBe(404);
  });

  it("keeps invite tokens out of the database: only their hash is stored", async () => {
    const owner = await platform.signup({ password: PASSWORD });
    const invitee = await platform.signup({ password: PASSWORD });
    const { invite: created, token } = await invite(owner, owner.key, invitee.email);
    const rows = await platform.database.prisma.platformTeamInvite.findMany();
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows.find((row) => row.id === created.id)?.tokenHash).toBe(sha256(token));
    // The org's export does not carry the invitee's mail.
    const exported = await platform.call("/account/export", { key: owner.key });
    expect(JSON.stringify(exported.body)).not.toContain(token);
  });
});

describe("acting as the team", () => {
  it("a member's session with org_id acts as the team's account: its agents, not the member's own", async () => {
    const owner = await platform.signup({ password: PASSWORD });
    const member = await platform.signup({ password: PASSWORD });
    await join(owner, member);
    const agent = await platform.call("/agents", { key: owner.key, query: { user_id: "u1" }, body: { name: "Team agent", instructions: "Hi." } });

    const session = await orgSession(member, owner);
    expect(session).toMatchObject({ account_id: owner.id, role: "member" });
    const read = await platform.call(`/agents/${agent.body.id}`, { key: session.access_token, query: { user_id: "u1" } });
    expect(read.status).toBe(200);
    expect(read.body.name).toBe("Team agent");
    expect((await platform.call(`/agents/${agent.body.id}`, { key: member.key, query: { user_id: "u1" } })).status).toBe(404);
  });

  it("keys and deleting the account stay with the team's owners", async () => {
    const owner = await platform.signup({ password: PASSWORD });
    const admin = await platform.signup({ password: PASSWORD });
    const coOwner = await platform.signup({ password: PASSWORD });
    await join(owner, admin, "admin");
    await join(owner, coOwner, "owner");
    const adminSession = await orgSession(admin, owner);
    for (const [path, method] of [["/keys", "POST"], ["/keys/all", "GET"], ["/keys/rotate", "POST"], ["/account", "DELETE"]] as const) {
      const refused = await platform.call(path, { key: adminSession.access_token, method, body: method === "POST" ? { name: "mine" } : undefined });
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.error.error_code).toBe("team_role_insufficient");
    }
    const ownerSession = await orgSession(coOwner, owner);
    expect(ownerSession.role).toBe("owner");
    expect((await platform.call("/keys", { key: ownerSession.access_token, body: { name: "co-owner's" } })).status).toBe(201);
  });

  it("a session for a team one is not in is 404", async () => {
    const owner = await platform.signup({ password: PASSWORD });
    const outsider = await platform.signup({ password: PASSWORD });
    const { status } = await platform.call("/account/sessions", {
      body: { email: outsider.email, password: PASSWORD, org_id: owner.id },
    });
    expect(status).toBe(404);
  });
});

describe("roles and removal", () => {
  it("enforces roles: members cannot invite or remove; admins cannot invite owners nor remove owners", async () => {
    const owner = await platform.signup({ password: PASSWORD });
    const admin = await platform.signup({ password: PASSWORD });
    const member = await platform.signup({ password: PASSWORD });
    const other = await platform.signup({ password: PASSWORD });
    await join(owner, admin, "admin");
    const memberId = await join(owner, member);
    const teamsOfOwner = await platform.call("/teams", { key: owner.key });
    const holderId = teamsOfOwner.body.data[0].members.find((m: { is_account_holder: boolean }) => m.is_account_holder).id;

    const byMember = await platform.call(`/teams/${owner.id}/invites`, { key: member.key, body: { email: other.email } });
    expect(byMember.status).toBe(403);
    expect(byMember.body.error.type).toBe("permission_error");
    const membersSees = (await platform.call("/teams", { key: member.key })).body.data.find((t: { id: number }) => t.id === owner.id);
    expect(membersSees.invites).toEqual([]);

    expect((await platform.call(`/teams/${owner.id}/invites`, { key: admin.key, body: { email: other.email, role: "owner" } })).status).toBe(403);
    const byAdmin = await platform.call(`/teams/${owner.id}/invites`, { key: admin.key, body: { email: other.email } });
    expect(byAdmin.status).toBe(201);
    expect((await platform.call(`/teams/invites/${byAdmin.body.id}`, { key: member.key, method: "DELETE" })).status).toBe(403);

    expect((await platform.call(`/teams/${owner.id}/members/${holderId}`, { key: member.key, method: "DELETE" })).status).toBe(403);
    expect((await platform.call(`/teams/${owner.id}/members/${holderId}`, { key: admin.key, method: "DELETE" })).status).toBe(403);
    const byOwner = await platform.call(`/teams/${owner.id}/members/${holderId}`, { key: owner.key, method: "DELETE" });
    expect(byOwner.status).toBe(409);
    expect(byOwner.body.error.error_code).toBe("last_owner");

    const session = await orgSession(member, owner);
    expect((await platform.call("/verify/status", { key: session.access_token })).status).toBe(200);
    expect((await platform.call(`/teams/${owner.id}/members/${memberId}`, { key: admin.key, method: "DELETE" })).status).toBe(204);
    // The removed member's session on the team ends at once; their own account is untouched.
    expect((await platform.call("/verify/status", { key: session.access_token })).status).toBe(401);
    expect((await platform.call("/teams", { key: member.key })).body.data.map((t: { id: number }) => t.id)).toEqual([member.id]);
  });

  it("a member may leave", async () => {
    const owner = await platform.signup({ password: PASSWORD });
    const member = await platform.signup({ password: PASSWORD });
    const memberId = await join(owner, member);
    expect((await platform.call(`/teams/${owner.id}/members/${memberId}`, { key: member.key, method: "DELETE" })).status).toBe(204);
    expect((await platform.call(`/teams/${owner.id}/members/${memberId}`, { key: owner.key, method: "DELETE" })).status).toBe(404);
  });
});

describe("isolation", () => {
  it("another account's team, invite and member are 404", async () => {
    const owner = await platform.signup({ password: PASSWORD });
    const member = await platform.signup({ password: PASSWORD });
    const outsider = await platform.signup({ password: PASSWORD });
    const memberId = await join(owner, member);
    const pending = await invite(owner, owner.key, "someone@example.test");

    const inviteThere = await platform.call(`/teams/${owner.id}/invites`, { key: outsider.key, body: { email: "x@example.test" } });
    expect(inviteThere.status).toBe(404);
    expect(inviteThere.body.error.type).toBe("not_found");
    expect((await platform.call(`/teams/invites/${pending.invite.id}`, { key: outsider.key, method: "DELETE" })).status).toBe(404);
    expect((await platform.call(`/teams/${owner.id}/members/${memberId}`, { key: outsider.key, method: "DELETE" })).status).toBe(404);
    // A member id of another team, under the caller's own org id.
    expect((await platform.call(`/teams/${outsider.id}/members/${memberId}`, { key: outsider.key, method: "DELETE" })).status).toBe(404);
    expect((await platform.call("/teams", { key: outsider.key })).body.data.map((t: { id: number }) => t.id)).toEqual([outsider.id]);
  });

  it("needs a credential", async () => {
    expect((await platform.call("/teams")).status).toBe(401);
    expect((await platform.call("/teams/invites/accept", { body: { token: "x" } })).status).toBe(401);
  });
});
