// Catalogues: models, built-in tools, agent templates.
import { z } from "zod";
import { IntId, QueryBoolean, UserId } from "./common";

export const ModelEntry = z
  .object({
    id: z.string(),
    name: z.string(),
    author: z.string(),
    aliases: z.array(z.string()),
    default: z.boolean(),
    curated: z.boolean(),
    zdr_supported: z.boolean(),
    zdr_providers: z.array(z.string()),
    max_effort: z.enum(["high", "max"]),
    context_window: z.number().int(),
    pricing: z.object({
      input_per_million: z.string(),
      output_per_million: z.string(),
      cache_read_per_million: z.string(),
    }),
  })
  .meta({ id: "Model" });

export const ModelListQuery = z.object({
  zdr: QueryBoolean.optional(),
  author: z.string().max(100).optional(),
  curated: QueryBoolean.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(500),
});

export const BuiltInToolEntry = z
  .object({
    name: z.string(),
    description: z.string(),
    category: z.string(),
    configurable: z.boolean(),
    agent_toggle: z.string().nullable(),
    run_toggle: z.string().nullable(),
    enabled: z.boolean().meta({ description: "Resolved for teammate_id when given; else the platform default" }),
  })
  .meta({ id: "BuiltInTool" });

export const BuiltInToolQuery = z.object({ teammate_id: IntId.optional(), user_id: UserId.optional() });

const TemplateTask = z.object({
  slug: z.string(),
  name: z.string(),
  instructions: z.string(),
  schedule: z.string().optional(),
});

export const AgentTemplate = z
  .object({
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    logo_ref: z.string(),
    required_integrations: z.array(z.string()),
    role: z.string(),
    goals: z.string(),
    instructions: z.string(),
    default_tasks: z.array(TemplateTask),
    bootstrap_tasks: z.array(TemplateTask),
    questions: z.array(
      z.object({
        key: z.string(),
        label: z.string(),
        type: z.enum(["text", "choice"]),
        options: z.array(z.string()).optional(),
        required: z.boolean(),
      }),
    ),
  })
  .meta({ id: "AgentTemplate" });

export const TemplateListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  starting_after: z.string().max(100).optional().meta({ description: "The slug of the last template received" }),
});
