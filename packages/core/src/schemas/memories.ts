// Memories (/memories): facts saved for one end-user, request and response contracts.
import { z } from "zod";
import { IntId, PageQuery, Timestamp, UserId } from "./common";

export const MEMORY_CONTENT_MAX_CHARS = 10_000;

export const Memory = z
  .object({
    id: z.number().int(),
    user_id: z.string().nullable().meta({ description: "The end-user it belongs to; null for account-level memories" }),
    content: z.string(),
    source: z.string().meta({ description: "api (saved through this API), agent (the memory tool) or onboarding" }),
    created_at: Timestamp,
  })
  .meta({ id: "Memory" });

// user_id is optional here only because it may come in the query string instead; the service
// refuses a call that gives it in neither place.
const UserIdInBody = UserId.optional().meta({
  description: "The end-user (required: here or in the query string)",
});

export const CreateMemoryRequest = z.object({
  user_id: UserIdInBody,
  content: z
    .string()
    .trim()
    .min(1, "must not be blank")
    .max(MEMORY_CONTENT_MAX_CHARS, `must be at most ${MEMORY_CONTENT_MAX_CHARS} characters`),
});

export const ListMemoriesQuery = PageQuery.extend({
  user_id: UserId.optional().meta({ description: "The end-user (required)" }),
});

export const DeleteMemoryRequest = z.object({ user_id: UserIdInBody });

export const MemoryIdParam = z.object({ memory_id: IntId });
