// Teams (/teams): the caller's teams, invites and members. The caller is a person: a session's, or a
// key's account holder. Team ids are account ids (org_id).
import type { RequestOptions } from "../transport";
import type { Team, TeamInvite, TeamInviteParams, TeamInvitePreview } from "../types";
import { Resource, segment } from "./resource";

export class Teams extends Resource {
  /** GET /teams: your own team first, then every team you belong to, with members (and invites for admins). */
  async list(options?: RequestOptions): Promise<Team[]> {
    return (await this.transport.json<{ data: Team[] }>({ method: "GET", path: "/teams" }, options)).data;
  }
  /** POST /teams/{org_id}/invites: mails a single-use invite (owners and admins). */
  invite(orgId: number, params: TeamInviteParams, options?: RequestOptions): Promise<TeamInvite> {
    return this.transport.json({ method: "POST", path: `/teams/${segment(orgId)}/invites`, body: params }, options);
  }
  /** GET /teams/invites/{token}: what the invite offers. */
  previewInvite(token: string, options?: RequestOptions): Promise<TeamInvitePreview> {
    return this.transport.json({ method: "GET", path: `/teams/invites/${segment(token)}` }, options);
  }
  /** POST /teams/invites/accept: join, as the invited address's account. */
  acceptInvite(token: string, options?: RequestOptions): Promise<Team> {
    return this.transport.json({ method: "POST", path: "/teams/invites/accept", body: { token } }, options);
  }
  /** DELETE /teams/invites/{invite_id} */
  async revokeInvite(inviteId: number, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: `/teams/invites/${segment(inviteId)}` }, options);
  }
  /** DELETE /teams/{org_id}/members/{member_id}: remove a member, or leave. */
  async removeMember(orgId: number, memberId: number, options?: RequestOptions): Promise<void> {
    await this.transport.json({ method: "DELETE", path: `/teams/${segment(orgId)}/members/${segment(memberId)}` }, options);
  }
}
