// What people decided while a run waited (approvals, answers to questions), turned into the tool
// message the model's next turn reads and the frames readers see. The decision itself is pure
// (decisionsFor); feedBackDecisions reads the requests it needs.
import type { JSONValue, ModelMessage } from "ai";
import { ASK_USER_QUESTION, type RunFrame } from "@inlay/core/schemas/runs";
import type { Db } from "../repositories/db";
import { clearAnswers, resolvedRequests } from "../repositories/permission-requests";

type ToolMessage = Extract<ModelMessage, { role: "tool" }>;
type AssistantPart = Exclude<Extract<ModelMessage, { role: "assistant" }>["content"], string>[number];
type ToolCallPart = Extract<AssistantPart, { type: "tool-call" }>;
type ApprovalRequestPart = Extract<AssistantPart, { type: "tool-approval-request" }>;

const toolNameOf = (outstanding: ReturnType<typeof outstandingCalls>, toolCallId: string) =>
  outstanding.calls.find((call) => call.toolCallId === toolCallId)?.toolName ?? "";

/** A person's decision on one request, as stored (repositories/permission-requests.ts). */
export interface Decision {
  status: string;
  answer?: JSONValue;
}

export interface Decisions {
  /** The tool message answering the approvals and questions; the approved calls' results join it later. */
  message?: ToolMessage;
  /** Tool calls a person approved: the SDK runs them before the model's next step. */
  approvedCallIds: Set<string>;
  /** What readers see of the answers (questions' results). */
  frames: RunFrame[];
}

/** Tool calls of the last assistant message that have neither a result nor an approval answer yet. */
export function outstandingCalls(messages: ModelMessage[]): { calls: ToolCallPart[]; approvals: ApprovalRequestPart[] } {
  const last = messages.at(-1);
  if (!last || last.role !== "assistant" || typeof last.content === "string") return { calls: [], approvals: [] };
  const calls = last.content.filter((part): part is ToolCallPart => part.type === "tool-call");
  const approvals = last.content.filter((part): part is ApprovalRequestPart => part.type === "tool-approval-request");
  return { calls, approvals };
}

/**
 * The decisions on what the run waited for, keyed by approval id or question call id. A run only
 * resumes once every request is decided: one still pending is an error, never a guess.
 */
export function decisionsFor(outstanding: ReturnType<typeof outstandingCalls>, decided: Map<string, Decision>): Decisions {
  const content: ToolMessage["content"] = [];
  const frames: RunFrame[] = [];
  const approvedCallIds = new Set<string>();
  for (const approval of outstanding.approvals) {
    const request = decided.get(approval.approvalId);
    if (!request || request.status === "pending") throw new Error("resumed with an undecided approval");
    const approved = request.status === "allowed";
    content.push({ type: "tool-approval-response", approvalId: approval.approvalId, approved });
    if (approved) approvedCallIds.add(approval.toolCallId);
    // A denied call's result is stored with the answer: the SDK gives the model one for this pass but
    // keeps it out of the response messages, and a later request (a reply) needs every call answered.
    else content.push({ type: "tool-result", toolCallId: approval.toolCallId, toolName: toolNameOf(outstanding, approval.toolCallId), output: { type: "execution-denied" } });
  }
  for (const call of outstanding.calls) {
    if (call.toolName !== ASK_USER_QUESTION) continue;
    const request = decided.get(call.toolCallId);
    if (!request || request.status === "pending") throw new Error("resumed with an unanswered question");
    const answer = { answers: request.answer ?? null };
    content.push({ type: "tool-result", toolCallId: call.toolCallId, toolName: call.toolName, output: { type: "json", value: answer } });
    frames.push({ type: "tool_result", tool_use_id: call.toolCallId, content: JSON.stringify(answer), result: answer });
  }
  return { ...(content.length > 0 ? { message: { role: "tool", content } } : {}), approvedCallIds, frames };
}

/** Reads the decisions on the run's outstanding requests (none when it waited for nothing). */
export async function feedBackDecisions(
  prisma: Db,
  runId: number,
  messages: ModelMessage[],
  options: { metadataOnly: boolean },
): Promise<Decisions> {
  const outstanding = outstandingCalls(messages);
  if (outstanding.calls.length === 0 && outstanding.approvals.length === 0) return { approvedCallIds: new Set(), frames: [] };
  const ids = [...outstanding.approvals.map((part) => part.approvalId), ...outstanding.calls.map((part) => part.toolCallId)];
  const decided = new Map((await resolvedRequests(prisma, runId, ids)).map((row) => [row.toolCallId, row]));
  const decisions = decisionsFor(outstanding, decided);
  // Under metadata_only the answers were stored only until the run picked them up.
  if (options.metadataOnly) await clearAnswers(prisma, runId);
  return decisions;
}
