// A run's timeline for the run view, from what the platform keeps of it: the person's turns
// (GET /runs/{id}/messages), each request's frames (its event log) and the permission requests with
// their outcomes. Pure, so it is tested alone; run-view.ts does the reading.
import type { PermissionRequest, Run, RunFrame, RunMessage } from "@/lib/platform-client";
import type { TimelineEntry } from "@/lib/schemas/run-view";
import { isSettledStatus } from "@/lib/schemas/runs";

/**
 * The timeline: each person's turn, then what the agent did for it (its text, tool calls with their
 * results, requests for a person and pauses), in order. Requests take their outcome from the run's
 * permission list; one not seen in the frames read (the current request of a going run) comes last.
 */
export function buildTimeline(
  turns: RunMessage[],
  requests: RunFrame[][],
  permissions: PermissionRequest[],
  run: Pick<Run, "status" | "error">,
): TimelineEntry[] {
  const byId = new Map(permissions.map((request) => [request.request_id, request]));
  const shown = new Set<string>();
  const userTurns = turns.filter((turn) => turn.role === "user");
  const entries: TimelineEntry[] = [];
  const requestEntry = (request: PermissionRequest): TimelineEntry => ({
    type: "request",
    kind: request.kind,
    requestId: request.request_id,
    toolName: request.tool_name,
    input: request.input,
    app: request.app,
    status: request.status,
    answer: request.answer ?? null,
    createdAt: request.created_at,
    resolvedAt: request.resolved_at,
  });

  for (const [index, frames] of requests.entries()) {
    const turn = userTurns[index];
    if (turn) entries.push({ type: "message", role: "user", text: turn.text });
    let text = "";
    const flush = () => {
      if (text.trim()) entries.push({ type: "message", role: "assistant", text });
      text = "";
    };
    const calls = new Map<string, Extract<TimelineEntry, { type: "tool_call" }>>();
    for (const frame of frames) {
      switch (frame.type) {
        case "content_block_delta":
          text += frame.delta.text;
          break;
        case "tool_use": {
          flush();
          const call = { type: "tool_call" as const, id: frame.id, name: frame.name, input: frame.input, result: null as unknown, done: false };
          calls.set(frame.id, call);
          entries.push(call);
          break;
        }
        case "tool_result": {
          const call = calls.get(frame.tool_use_id);
          if (call) Object.assign(call, { result: frame.result ?? frame.content, done: true });
          break;
        }
        case "permission_request": {
          flush();
          shown.add(frame.request_id);
          const known = byId.get(frame.request_id);
          entries.push(
            known
              ? requestEntry(known)
              : { type: "request", kind: frame.kind, requestId: frame.request_id, toolName: frame.tool_name, input: frame.input, app: frame.app ?? null, status: "pending", answer: null, createdAt: null, resolvedAt: null },
          );
          break;
        }
        case "run_status":
          // "running" again after a pause is the pause's end: the request entry already says how.
          if (frame.status !== "running") {
            flush();
            entries.push({ type: "status", status: frame.status, error: frame.error ?? null });
          }
          break;
        case "done":
          flush();
          break;
      }
    }
    flush();
  }
  // Turns after the requests read (a going run's current one), and what it waits on.
  for (const turn of userTurns.slice(requests.length)) entries.push({ type: "message", role: "user", text: turn.text });
  for (const request of permissions) if (!shown.has(request.request_id)) entries.push(requestEntry(request));
  const last = entries.at(-1);
  if (!isSettledStatus(run.status) && !(last?.type === "status" && last.status === run.status)) {
    entries.push({ type: "status", status: run.status, error: run.error });
  }
  return entries;
}
