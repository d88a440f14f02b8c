// End-user profiles (/users): request and response contracts. A profile is the account's record of
// one of its own users, named by the caller's `user_id`.
import { z } from "zod";
import { BoundedMetadata, Metadata, Timestamp, UserId } from "./common";

const ProfileText = z
  .string()
  .trim()
  .min(1, "must not be blank (send null to clear)")
  .max(255, "must be at most 255 characters");
const ProfileEmail = z.email("must be an email address").max(255, "must be at most 255 characters");

export const EndUser = z
  .object({
    id: z.number().int().meta({ description: "The profile's id; the cursor for starting_after" }),
    user_id: z.string(),
    name: z.string().nullable(),
    email: z.string().nullable(),
    company: z.string().nullable(),
    metadata: Metadata.nullable(),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: "EndUser" });

export const CreateEndUserRequest = z.object({
  user_id: UserId,
  name: ProfileText.nullish(),
  email: ProfileEmail.nullish(),
  company: ProfileText.nullish(),
  metadata: BoundedMetadata.nullish(),
});

/** Omitted fields stay as they are; null clears one. */
export const UpdateEndUserRequest = z.object({
  name: ProfileText.nullable().optional(),
  email: ProfileEmail.nullable().optional(),
  company: ProfileText.nullable().optional(),
  metadata: BoundedMetadata.nullable().optional(),
});

export const EndUserParam = z.object({ user_id: UserId });
