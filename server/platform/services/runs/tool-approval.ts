// Which tool calls of a run need a person's approval, and what happens to them when nobody can be
// asked. One rule for every kind of tool (built-in, apps', custom tool servers'):
//
// - autonomous runs approve every tool;
// - in approval mode every tool asks, except AskUserQuestion (it is itself a question) and what the
//   person already allowed: the end-user's allow-list (POST /permissions, "always allow") and calls
//   remembered in this run (approve with remember=true);
// - a non-interactive request (a reply, an inbound email continuing a run) cannot ask anybody: a call
//   that would need approval, in approval mode or in plan mode (whose plan nobody approved), is
//   refused with a tool result saying so. It never runs unapproved.
import type { Tool, ToolExecutionOptions, ToolSet } from "ai";
import { ASK_USER_QUESTION } from "@inlay/core/schemas/runs";

export interface ApprovalRun {
  permissionMode: string;
  interactive: boolean;
}

export interface ApprovalGrants {
  /** The end-user's allow-list (auto-approved tools). */
  allowList: ReadonlySet<string>;
  /** Tools a person allowed with remember=true earlier in this run. */
  remembered: ReadonlySet<string>;
}

/** Whether any tool of the run can need approval at all (then the grants are worth reading). */
export function approvalsApply(run: ApprovalRun): boolean {
  return run.permissionMode === "approval" || (run.permissionMode === "plan" && !run.interactive);
}

/** Whether a call of `name` needs a person's approval in this run (asked, or refused when nobody can be). */
export function needsApproval(run: ApprovalRun, grants: ApprovalGrants, name: string): boolean {
  return approvalsApply(run) && name !== ASK_USER_QUESTION && !grants.allowList.has(name) && !grants.remembered.has(name);
}

/** The result a refused call returns: the model reads it and can tell the person what to do. */
export function refusalResult(name: string) {
  return {
    error:
      `Not run: ${name} needs the person's approval, and this request cannot ask for it (it is non-interactive). ` +
      "The person can allow the tool (always allow), or continue in a conversation where approvals can be given.",
    refused: "approval_required",
  };
}

type ToolApproval = Tool["needsApproval"];

async function asks(approval: ToolApproval, input: unknown, options: ToolExecutionOptions<unknown>): Promise<boolean> {
  if (approval === undefined || approval === false) return false;
  if (approval === true) return true;
  return Boolean(await (approval as (input: unknown, options: ToolExecutionOptions<unknown>) => boolean | PromiseLike<boolean>)(input, options));
}

/**
 * A non-interactive request's tools: each call that would need approval returns the refusal instead of
 * running; the others run as they are. Nothing pauses (nobody could answer).
 */
export function refuseUnapproved(tools: ToolSet): ToolSet {
  const out: ToolSet = {};
  for (const [name, definition] of Object.entries(tools)) {
    const approval = definition.needsApproval;
    const execute = definition.execute;
    if (approval === undefined || approval === false || !execute) {
      out[name] = definition;
      continue;
    }
    out[name] = {
      ...definition,
      needsApproval: false,
      execute: async (input: unknown, options: ToolExecutionOptions<unknown>) =>
        (await asks(approval, input, options)) ? refusalResult(name) : (execute as (input: unknown, options: ToolExecutionOptions<unknown>) => unknown)(input, options),
    } as (typeof tools)[string];
  }
  return out;
}
