// What a new run is for, decided before services/runs/runs.ts createRun starts it: its scope, its agent (found,
// or created when POST /runs names none), and what the agent decides of it (permission mode and
// human_in_the_loop, forced skill, model and effort). Every check of the request runs before an agent is
// created, so an invalid request leaves no agent behind; admission (in createRun) comes after, and a run
// it refuses keeps its new agent.
import type { z } from "zod";
import type { RunCreate } from "@inlay/core/schemas/runs";
import { PlatformError } from "../../errors";
import type { AgentRow } from "../../repositories/agents";
import type { NewRunFile } from "../../repositories/run-files";
import type { RunServiceContext } from "./run-context";
import type { KeyClaim } from "../idempotency";
import { createAgent, findAccountAgent, findScopedAgent, NEW_AGENT_DEFAULTS } from "../agents/agents";
import type { AuthContext } from "../account/auth";
import { clampEffort, defaultEffort, defaultModel, findModel, type Effort } from "../../models/catalog";
import { preferredDefaultModel } from "../models/model-connections";
import { createRun, type RunTarget } from "./runs";
import { resolveScope, type Scope } from "../scope";
import { resolveForcedSkill, type SkillAgent } from "../agents/skills";

type RunInput = z.infer<typeof RunCreate>;

/**
 * Where a run comes from when it is not a caller's own POST /runs (internal; no request body sets it).
 * A task's run (services/tasks/tasks.ts runTask) runs in the task's scope, taken as is, and carries its id.
 */
export interface RunOrigin {
  task: { id: number; scope: Scope };
}

/** The agent's fields a run's settings are decided from. */
type DecidingAgent = SkillAgent & Pick<AgentRow, "defaultPermissionMode" | "model" | "effort">;

const invalid = (field: string, message: string) =>
  new PlatformError({ type: "validation_error", message: `${field}: ${message}`, details: { field } });

/** resolveRunTarget, then createRun: a run as POST /runs (and every path that starts one like it) asks for it. */
export async function requestRun(
  ctx: RunServiceContext,
  auth: AuthContext,
  userId: string | undefined,
  input: RunInput,
  attachments: NewRunFile[] = [],
  claim?: KeyClaim,
  origin?: RunOrigin,
) {
  return createRun(ctx, await resolveRunTarget(ctx, auth, userId, input, origin), input, attachments, claim);
}

export async function resolveRunTarget(
  ctx: RunServiceContext,
  auth: AuthContext,
  userId: string | undefined,
  input: RunInput,
  origin?: RunOrigin,
): Promise<RunTarget> {
  // Strict mode covers run creation; without user_id the run inherits the agent's scope. A task's
  // run has the task's scope, which its caller checked.
  let scope = origin?.task.scope ?? (await resolveScope(ctx, auth, userId, { strict: true }));
  const scoped = origin !== undefined || userId !== undefined;
  const taskId = origin?.task.id ?? null;
  if (input.teammate_id !== undefined) {
    if (input.email_inbox !== undefined) throw invalid("email_inbox", "is only accepted when creating a new agent");
    const agent = scoped
      ? await findScopedAgent(ctx, scope, input.teammate_id)
      : await findAccountAgent(ctx, auth.accountId, input.teammate_id);
    if (!agent) throw new PlatformError({ type: "not_found", message: `agent ${input.teammate_id} not found` });
    if (!scoped && agent.endUser) {
      scope = { accountId: auth.accountId, endUserId: agent.endUserId, userId: agent.endUser.externalId };
    }
    if (agent.status !== "enabled") {
      throw new PlatformError({ type: "conflict_error", message: `agent ${agent.id} is ${agent.status}; enable it first` });
    }
    const permission = permissionOf(agent, input);
    const skill = await skillOf(ctx, scope, agent, input);
    return { scope, agent, taskId, ...permission, skill, ...(await modelOf(ctx, scope, agent, input)) };
  }
  if (input.name === undefined) {
    throw invalid("teammate_id", "is required unless name is given to create an agent");
  }
  // Decided from what a new agent gets, before it exists: it has no skill of scope agent yet (id 0
  // names no agent). The checks keep the order they always had here: the skill first.
  const prospective: DecidingAgent = { id: 0, ...NEW_AGENT_DEFAULTS };
  const skill = await skillOf(ctx, scope, prospective, input);
  const permission = permissionOf(prospective, input);
  const model = await modelOf(ctx, scope, prospective, input);
  const created = await createAgent(ctx, scope, { name: input.name, instructions: input.instructions, email_inbox: input.email_inbox });
  const agent = await findScopedAgent(ctx, scope, created.id);
  if (!agent) throw new Error("the agent just created is gone");
  return { scope, agent, taskId, ...permission, skill, ...model };
}

function permissionOf(agent: DecidingAgent, input: RunInput) {
  const permissionMode = input.permission_mode ?? (agent.defaultPermissionMode as RunTarget["permissionMode"]);
  const humanInTheLoop = input.human_in_the_loop ?? permissionMode !== "autonomous";
  if (!humanInTheLoop && permissionMode !== "autonomous") {
    throw new PlatformError({
      type: "invalid_request_error",
      message: "human_in_the_loop: false is only valid with permission_mode autonomous",
    });
  }
  return { permissionMode, humanInTheLoop };
}

// The caller's route already read a leading /slug of the message into `skill` (requestedSkill).
const skillOf = async (ctx: RunServiceContext, scope: Scope, agent: DecidingAgent, input: RunInput) =>
  input.skill === undefined ? null : await resolveForcedSkill(ctx, scope, agent, input.skill);

async function modelOf(ctx: RunServiceContext, scope: Scope, agent: DecidingAgent, input: RunInput) {
  // The account's preferred model connection (POST /model-connections/<provider>/apply-default) comes
  // before the platform default.
  const modelName =
    input.model ?? agent.model ?? (await preferredDefaultModel(ctx, scope.accountId)) ?? defaultModel(ctx.config.models).id;
  const model = findModel(ctx.config.models, modelName);
  if (!model) throw invalid("model", `unknown model "${modelName}"; see GET /models`);
  const requestedEffort = (input.effort ?? agent.effort ?? defaultEffort(model)) as Effort;
  return { model: model.id, effort: clampEffort(requestedEffort, model) };
}
