// Permissions (/permissions): the tool allow-list of one end-user (tools auto-approved in approval
// mode), request and response contracts.
import { z } from "zod";
import { IntId, PageQuery, Timestamp, UserId } from "./common";

export const Permission = z
  .object({
    id: z.number().int(),
    user_id: z.string(),
    tool: z.string(),
    created_at: Timestamp,
  })
  .meta({ id: "Permission" });

export const CreatePermissionRequest = z.object({
  // Optional here only because it may come in the query string instead; required in one place.
  user_id: UserId.optional().meta({ description: "The end-user (required: here or in the query string)" }),
  tool: z.string().trim().min(1, "must not be blank").max(255, "must be at most 255 characters"),
});

export const ListPermissionsQuery = PageQuery.extend({
  user_id: UserId.optional().meta({
    description: "The end-user; without it (and strict mode off) every permission of the account",
  }),
});

export const DeletePermissionRequest = z.object({
  user_id: UserId.optional().meta({ description: "Guards against deleting another end-user's permission" }),
});

export const PermissionIdParam = z.object({ permission_id: IntId });
