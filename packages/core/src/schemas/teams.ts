// Teams: an account (the org) and the people who may act as it, with roles, and emailed invites.
// The spec shows neither the response shapes nor the roles: docs/platform-api.md, "Teams".
import { z } from "zod";
import { IntId, Timestamp } from "./common";

export const TEAM_ROLES = ["owner", "admin", "member"] as const;
export const TeamRole = z.enum(TEAM_ROLES, { error: "must be owner, admin or member" });

export const TeamMember = z
  .object({
    id: z.number().int().meta({ description: "The membership's id (DELETE /teams/{org_id}/members/{member_id})" }),
    account_id: z.number().int(),
    email: z.string(),
    first_name: z.string(),
    role: TeamRole,
    is_account_holder: z.boolean().meta({ description: "The org's own account holder: always an owner, never removable" }),
    joined_at: Timestamp,
  })
  .meta({ id: "TeamMember" });

export const TeamInvite = z
  .object({
    id: z.number().int(),
    org_id: z.number().int(),
    email: z.string(),
    role: TeamRole,
    invited_by: z.string().nullable().meta({ description: "The inviter's email (null once that account is gone)" }),
    status: z.enum(["pending", "accepted", "revoked", "expired"]),
    expires_at: Timestamp,
    created_at: Timestamp,
  })
  .meta({ id: "TeamInvite" });

export const Team = z
  .object({
    id: z.number().int().meta({ description: "org_id: the team's account id" }),
    name: z.string(),
    owner_email: z.string(),
    role: TeamRole.meta({ description: "The caller's role in this team" }),
    members: z.array(TeamMember),
    invites: z.array(TeamInvite).meta({ description: "Pending invites; empty for a caller with role member" }),
  })
  .meta({ id: "Team" });

export const TeamList = z.object({ data: z.array(Team) }).meta({ id: "TeamList" });

export const CreateInviteRequest = z.object({
  email: z.email("must be an email address").max(255),
  role: TeamRole.optional().meta({ description: "Default member" }),
});

export const InvitePreview = z
  .object({
    org_id: z.number().int(),
    org_name: z.string(),
    invited_by: z.string().nullable(),
    inviter_name: z.string().nullable(),
    email: z.string(),
    role: TeamRole,
    expires_at: Timestamp,
  })
  .meta({ id: "TeamInvitePreview" });

export const AcceptInviteRequest = z.object({ token: z.string().min(1, "must not be blank").max(255) });

export const OrgIdParam = z.object({ org_id: IntId });
// GET /teams/invites/<token> and DELETE /teams/invites/<invite_id> (spec) are one path template: one
// parameter name, read as a token by the preview and as an id by the revoke.
export const InviteIdParam = z.object({ invite: IntId.meta({ description: "The invite's id (the spec's invite_id)" }) });
export const InviteTokenParam = z.object({ invite: z.string().min(1).max(255).meta({ description: "The invite's token (the spec's token)" }) });
export const MemberParams = z.object({ org_id: IntId, member_id: IntId });
