// A run's timeline for the run view, from what the platform keeps of it: the person's turns
// (GET /runs/{id}/messages), each request's frames (its event log) and the permission requests with
// their outcomes. Pure, so it is tested alone; run-view.ts does the reading.
//
// The log's order is the order things happened (its ids are monotonic), so the entries follow it, a
// tool's result included: a call that waited for an approval shows the call, the approval and the
// pause, the resume, then the result. Each entry has its start and duration, as a trace's waterfall:
// frames carry `at` (the platform's extension); text deltas do not, so the agent's text runs from the
// frame before it to the frame that ends it (the model's step).
import type { PermissionRequest, Run, RunFrame, RunMessage } from "@inlay/core/platform-client";
import type { TimelineEntry } from "@inlay/core/schemas/run-view";
import { isSettledStatus, WAITING_STATUSES } from "@inlay/core/schemas/runs";

const isPause = (status: string) => (WAITING_STATUSES as readonly string[]).includes(status);

/** Milliseconds from one ISO time to another; null when either is not known. */
export function span(from: string | null | undefined, to: string | null | undefined): number | null {
  if (!from || !to) return null;
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) ? Math.max(0, ms) : null;
}

const timeOf = (frame: RunFrame): string | null => (frame.type === "content_block_delta" ? null : (frame.at ?? null));

type StatusEntry = Extract<TimelineEntry, { type: "status" }>;

/**
 * The timeline: each person's turn, then what the agent did for it (its text, tool calls and their
 * results, requests for a person, pauses and resumes), in the order they happened. Requests take
 * their outcome from the run's permission list; one not seen in the frames read (the current request
 * of a going run) comes last.
 */
export function buildTimeline(
  turns: RunMessage[],
  requests: RunFrame[][],
  permissions: PermissionRequest[],
  run: Pick<Run, "status" | "error" | "created_at">,
): TimelineEntry[] {
  const byId = new Map(permissions.map((request) => [request.request_id, request]));
  const shown = new Set<string>();
  const userTurns = turns.filter((turn) => turn.role === "user");
  const entries: TimelineEntry[] = [];
  // A request asked for in the frames read starts with its frame (the log's clock, as the pause after
  // it); one not in them with its record.
  const requestEntry = (request: PermissionRequest, at: string | null = request.created_at): TimelineEntry => ({
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
    at,
    durationMs: span(at, request.resolved_at),
  });
  // The pause in progress (awaiting_approval, paused): it lasts until the next status change.
  let pause: StatusEntry | undefined;

  for (const [index, frames] of requests.entries()) {
    // The run's first request starts at its creation (its "running" frame is stamped just before the
    // row's clock); a reply's with its "running" frame.
    const start = index === 0 ? run.created_at : (frames.map(timeOf).find((at) => at !== null) ?? null);
    const turn = userTurns[index];
    if (turn) entries.push({ type: "message", role: "user", text: turn.text, at: start, durationMs: null });
    let last = start;
    let text = "";
    let textAt: string | null = null;
    const flush = (end: string | null) => {
      if (text.trim()) entries.push({ type: "message", role: "assistant", text, at: textAt, durationMs: span(textAt, end) });
      text = "";
    };
    const calls = new Map<string, Extract<TimelineEntry, { type: "tool_call" }>>();
    for (const frame of frames) {
      const at = timeOf(frame);
      switch (frame.type) {
        case "content_block_delta":
          if (!text) textAt = last;
          text += frame.delta.text;
          break;
        case "tool_use": {
          flush(at);
          const call = { type: "tool_call" as const, id: frame.id, name: frame.name, input: frame.input, done: false, at, durationMs: null as number | null };
          calls.set(frame.id, call);
          entries.push(call);
          break;
        }
        case "tool_result": {
          flush(at);
          const call = calls.get(frame.tool_use_id);
          if (call) Object.assign(call, { done: true, durationMs: span(call.at, at) });
          entries.push({ type: "tool_result", id: frame.tool_use_id, name: call?.name ?? "", result: frame.result ?? frame.content, at, durationMs: null });
          break;
        }
        case "permission_request": {
          flush(at);
          shown.add(frame.request_id);
          const known = byId.get(frame.request_id);
          entries.push(
            known
              ? requestEntry(known, at ?? known.created_at)
              : { type: "request", kind: frame.kind, requestId: frame.request_id, toolName: frame.tool_name, input: frame.input, app: frame.app ?? null, status: "pending", answer: null, createdAt: at, resolvedAt: null, at, durationMs: null },
          );
          break;
        }
        case "run_status": {
          flush(at);
          const paused = pause;
          if (paused) paused.durationMs = span(paused.at, at);
          pause = undefined;
          if (frame.status === "running") {
            // "running" again after a pause is when it resumed; a request's first one is its start
            // (the turn shows it), and a process's resume after a crash says nothing to the reader.
            if (paused && !frame.resumed) entries.push({ type: "status", status: "running", error: null, resumed: true, at, durationMs: null });
            break;
          }
          const entry: StatusEntry = { type: "status", status: frame.status, error: frame.error ?? null, at, durationMs: null };
          entries.push(entry);
          if (isPause(frame.status)) pause = entry;
          break;
        }
        case "done":
          flush(at);
          break;
      }
      if (at !== null && (last === null || Date.parse(at) > Date.parse(last))) last = at;
    }
    flush(null);
  }
  // Turns after the requests read (a going run's current one), and what it waits on.
  for (const turn of userTurns.slice(requests.length)) entries.push({ type: "message", role: "user", text: turn.text, at: null, durationMs: null });
  for (const request of permissions) if (!shown.has(request.request_id)) entries.push(requestEntry(request));
  const final = entries.at(-1);
  if (!isSettledStatus(run.status) && !(final?.type === "status" && final.status === run.status)) {
    entries.push({ type: "status", status: run.status, error: run.error, at: null, durationMs: null });
  }
  return entries;
}
