"use client";
// One component per kind of message part: tool calls, approval, question and plan cards, structured
// output and error banners. They render the typed ChatMessage parts; what a button does comes in
// through `actions` (packages/react/src/use-chat-actions.ts).
import { useState } from "react";
import type { DynamicToolUIPart } from "ai";
import { PLAN_APPROVAL, type ChatDataTypes, type ChatError } from "@inlay/core/chat/types";
import { Markdown } from "./markdown";

export interface CardActions {
  approve(request: { requestId: string; toolName: string }, decision: "allow" | "deny", scope?: "once" | "run" | "always"): Promise<void>;
  answer(requestId: string, answers: Record<string, string>): Promise<void>;
  /** Connect the app a run waits for (a popup); the run resumes by itself once it is connected. */
  connect(request: ChatDataTypes["connection"]): Promise<void>;
  /** Requests this browser has acted on but the stream has not confirmed yet: requestId → label. */
  local: Record<string, string>;
  /** The action error to show on a card, by request id. */
  errors: Record<string, string>;
}

/** Small stroke icons (no emoji: hosts may lack an emoji font). */
export function Icon({ path }: { path: string }) {
  return (
    <svg width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden>
      <path d={path} />
    </svg>
  );
}
export const icons = {
  lock: "M6 11h12v10H6zM8 11V7a4 4 0 0 1 8 0v4",
  question: "M9.1 9a3 3 0 0 1 5.8 1c0 2-3 2.5-3 4.5M12 18h.01M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20z",
  plan: "M9 6h11M9 12h11M9 18h11M4 6h.01M4 12h.01M4 18h.01",
  result: "M4 4h16v16H4zM4 10h16M10 10v10",
  file: "M14 3H6a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V9zM14 3v6h6",
  alert: "M12 9v4M12 17h.01M10.3 3.9 1.8 18a2 2 0 0 0 1.7 3h17a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0z",
  clock: "M12 7v5l3 2M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20z",
  plug: "M9 2v6M15 2v6M6 8h12v4a6 6 0 0 1-12 0zM12 18v4",
};

const pretty = (value: unknown) => {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
};

const toolStates: Record<DynamicToolUIPart["state"], [label: string, state: string]> = {
  "input-streaming": ["Preparing", "running"],
  "input-available": ["Running", "running"],
  "approval-requested": ["Needs approval", "pending"],
  "approval-responded": ["Approved", "allowed"],
  "output-available": ["Done", "done"],
  "output-error": ["Failed", "error"],
  "output-denied": ["Denied", "denied"],
};

export function ToolCall({ part, awaitingApproval = false }: { part: DynamicToolUIPart; awaitingApproval?: boolean }) {
  // The platform pauses before the tool runs: the call has its input, but waits on the person.
  const [label, state] = awaitingApproval && part.state === "input-available" ? ["Waiting for approval", "pending"] : (toolStates[part.state] ?? ["", "running"]);
  return (
    <details className="ic-tool">
      <summary>
        <span className="ic-tool-name">{part.toolName}</span>
        <span className="ic-badge" data-state={state}>
          {label}
        </span>
      </summary>
      <div className="ic-tool-body">
        <div>
          <div className="ic-label">Input</div>
          <pre className="ic-json">{pretty(part.input)}</pre>
        </div>
        {part.state === "output-available" && (
          <div>
            <div className="ic-label">Result</div>
            <pre className="ic-json">{pretty(part.output)}</pre>
          </div>
        )}
        {part.state === "output-error" && (
          <div>
            <div className="ic-label">Error</div>
            <pre className="ic-json">{part.errorText}</pre>
          </div>
        )}
      </div>
    </details>
  );
}

const approvalLabels = { pending: "Waiting for you", allowed: "Allowed", denied: "Denied", expired: "No longer needed" } as const;

export function ApprovalCard({ data, actions }: { data: ChatDataTypes["approval"]; actions: CardActions }) {
  // The person's choice shows until the stream confirms (or overrules) it.
  const local = data.state === "pending" ? actions.local[data.requestId] : undefined;
  const pending = data.state === "pending" && !local;
  return (
    <section className="ic-card" data-tone={pending ? "attention" : undefined} aria-label={`Approve ${data.toolName}`}>
      <div className="ic-card-head">
        <Icon path={icons.lock} />
        <span>
          Allow <code className="ic-tool-name">{data.toolName}</code>?
        </span>
        <span className="ic-badge" data-state={local ? "running" : data.state}>
          {local ?? approvalLabels[data.state]}
        </span>
      </div>
      <div className="ic-card-body">
        <div className="ic-label">The agent wants to run it with</div>
        <pre className="ic-json">{pretty(data.input)}</pre>
        {actions.errors[data.requestId] && <p role="alert">{actions.errors[data.requestId]}</p>}
      </div>
      {pending && (
        <div className="ic-card-actions">
          <button type="button" className="ic-btn" data-variant="primary" onClick={() => void actions.approve(data, "allow", "once")}>
            Allow once
          </button>
          <button type="button" className="ic-btn" onClick={() => void actions.approve(data, "allow", "always")}>
            Always allow
          </button>
          <button type="button" className="ic-btn" data-variant="danger" onClick={() => void actions.approve(data, "deny")}>
            Deny
          </button>
        </div>
      )}
    </section>
  );
}

const connectionLabels = { pending: "Waiting for you", connected: "Connected", declined: "Not connected", expired: "No longer needed" } as const;

/** Once connected the card says so: "isn't connected" beside a Connected badge read as a failure. */
function connectionHeadline(data: ChatDataTypes["connection"]): string {
  if (data.state === "connected") return `${data.appName} is connected`;
  return data.reason === "expired" ? `${data.appName}'s access has expired` : `${data.appName} isn't connected`;
}

/**
 * The key of a connect card's progress in CardActions.local: its request may turn into the call's
 * approval (same request id) once the app is connected, and that card has progress of its own.
 */
export const connectionKey = (requestId: string) => `connection:${requestId}`;

export function ConnectionCard({ data, actions }: { data: ChatDataTypes["connection"]; actions: CardActions }) {
  const local = data.state === "pending" ? (actions.local[connectionKey(data.requestId)] ?? actions.local[data.requestId]) : undefined;
  const pending = data.state === "pending" && !local;
  const state = data.state === "connected" ? "allowed" : data.state === "declined" ? "denied" : data.state;
  return (
    <section className="ic-card" data-tone={pending ? "attention" : undefined} aria-label={`Connect ${data.appName}`} data-testid="connection-card">
      <div className="ic-card-head">
        <Icon path={icons.plug} />
        <span>{connectionHeadline(data)}</span>
        <span className="ic-badge" data-state={local ? "running" : state}>
          {local ?? connectionLabels[data.state]}
        </span>
      </div>
      <div className="ic-card-body">
        {data.state === "pending" ? (
          <p>
            Connect to continue: the agent needs <code className="ic-tool-name">{data.toolName}</code>.
          </p>
        ) : null}
        {actions.errors[data.requestId] && <p role="alert">{actions.errors[data.requestId]}</p>}
      </div>
      {data.state === "pending" && (!local || local === "Connecting…") && (
        <div className="ic-card-actions">
          <button type="button" className="ic-btn" data-variant="primary" onClick={() => void actions.connect(data)}>
            {data.reason === "expired" ? "Reconnect" : "Connect"}
          </button>
          <button type="button" className="ic-btn" disabled={!!local} onClick={() => void actions.approve(data, "deny")}>
            Not now
          </button>
        </div>
      )}
    </section>
  );
}

export function QuestionCard({ data, actions }: { data: ChatDataTypes["question"]; actions: CardActions }) {
  const [chosen, setChosen] = useState<Record<string, string>>({});
  const [other, setOther] = useState<Record<string, string>>({});
  const local = data.state === "pending" ? actions.local[data.requestId] : undefined;
  const pending = data.state === "pending" && !local;
  const answers = data.answers ?? {};
  const ready = data.questions.every((question) => (chosen[question.question] ?? other[question.question] ?? "").trim() !== "");
  const submit = () => {
    const result = Object.fromEntries(
      data.questions.map((question) => [question.question, (other[question.question]?.trim() || chosen[question.question]) ?? ""]),
    );
    void actions.answer(data.requestId, result);
  };
  const toggle = (question: string, label: string, multi: boolean | undefined) =>
    setChosen((current) => {
      if (!multi) return { ...current, [question]: label };
      const set = new Set((current[question] ?? "").split(", ").filter(Boolean));
      if (set.has(label)) set.delete(label);
      else set.add(label);
      return { ...current, [question]: [...set].join(", ") };
    });
  return (
    <section className="ic-card" data-tone={pending ? "attention" : undefined} aria-label="Question from the agent">
      <div className="ic-card-head">
        <Icon path={icons.question} />
        <span>The agent asks</span>
        <span className="ic-badge" data-state={local ? "running" : data.state}>
          {local ?? (data.state === "pending" ? "Waiting for you" : data.state === "answered" ? "Answered" : "No longer needed")}
        </span>
      </div>
      <div className="ic-card-body">
        {data.questions.map((question) => (
          <fieldset key={question.question} className="ic-question" style={{ border: 0, padding: 0, margin: 0 }}>
            <legend className="ic-question-text">{question.header ? `${question.header}: ` : ""}{question.question}</legend>
            {pending ? (
              <>
                <div className="ic-options" role={question.multiSelect ? "group" : "radiogroup"}>
                  {question.options.map((option) => {
                    const selected = (chosen[question.question] ?? "").split(", ").includes(option.label);
                    return (
                      <button
                        key={option.label}
                        type="button"
                        className="ic-btn"
                        role={question.multiSelect ? "checkbox" : "radio"}
                        aria-checked={selected}
                        data-selected={selected}
                        onClick={() => toggle(question.question, option.label, question.multiSelect)}
                      >
                        {option.label}
                        {option.description && <span className="ic-option-hint">{option.description}</span>}
                      </button>
                    );
                  })}
                </div>
                <input
                  className="ic-input"
                  aria-label={`Another answer to: ${question.question}`}
                  placeholder={question.options.length ? "Or type another answer" : "Your answer"}
                  value={other[question.question] ?? ""}
                  onChange={(event) => setOther((current) => ({ ...current, [question.question]: event.target.value }))}
                  onKeyDown={(event) => {
                    if (event.key === "Enter" && ready) submit();
                  }}
                />
              </>
            ) : (
              <div>
                {answers[question.question] ? (
                  <strong>{answers[question.question]}</strong>
                ) : (
                  <span className="ic-option-hint">{question.options.map((option) => option.label).join(" · ")}</span>
                )}
              </div>
            )}
          </fieldset>
        ))}
        {actions.errors[data.requestId] && <p role="alert">{actions.errors[data.requestId]}</p>}
      </div>
      {pending && (
        <div className="ic-card-actions">
          <button type="button" className="ic-btn" data-variant="primary" disabled={!ready} onClick={submit}>
            Send answer
          </button>
        </div>
      )}
    </section>
  );
}

export function PlanCard({ data, actions }: { data: ChatDataTypes["plan"]; actions: CardActions }) {
  const local = data.state === "pending" ? actions.local[data.requestId] : undefined;
  const pending = data.state === "pending" && !local;
  const approve = data.options.find((option) => option === "Approve") ?? data.options[0] ?? "Approve";
  const sendBack = data.options.find((option) => option !== approve) ?? "Revise";
  const labels = { pending: "Waiting for you", approved: "Approved", revised: "Sent back", expired: "No longer needed" } as const;
  return (
    <section className="ic-card" data-tone={pending ? "attention" : undefined} aria-label="Proposed plan">
      <div className="ic-card-head">
        <Icon path={icons.plan} />
        <span>Proposed plan</span>
        <span className="ic-badge" data-state={local ? "running" : data.state}>
          {local ?? labels[data.state]}
        </span>
      </div>
      <div className="ic-card-body">
        <Markdown text={data.plan || "_The agent proposes to go ahead._"} />
        {actions.errors[data.requestId] && <p role="alert">{actions.errors[data.requestId]}</p>}
      </div>
      {pending && (
        <div className="ic-card-actions">
          <button type="button" className="ic-btn" data-variant="primary" onClick={() => void actions.answer(data.requestId, { [PLAN_APPROVAL]: approve })}>
            Approve plan
          </button>
          <button type="button" className="ic-btn" onClick={() => void actions.answer(data.requestId, { [PLAN_APPROVAL]: sendBack })}>
            Send back
          </button>
        </div>
      )}
    </section>
  );
}

export function OutputView({ data }: { data: ChatDataTypes["output"] }) {
  const entries = data.data ? Object.entries(data.data) : [];
  const flat = entries.every(([, value]) => value === null || ["string", "number", "boolean"].includes(typeof value));
  return (
    <section className="ic-card" aria-label="Structured result">
      <div className="ic-card-head">
        <Icon path={icons.result} />
        <span>Result</span>
      </div>
      <div className="ic-card-body">
        {data.data === null ? (
          <p>The agent did not produce a result in the expected shape.</p>
        ) : flat ? (
          <table className="ic-output-table">
            <tbody>
              {entries.map(([key, value]) => (
                <tr key={key}>
                  <th scope="row">{key}</th>
                  <td>{String(value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <pre className="ic-json">{pretty(data.data)}</pre>
        )}
      </div>
    </section>
  );
}

const errorTitles: Record<ChatError["kind"], string> = {
  cap_reached: "Limit reached",
  balance_depleted: "Out of credit",
  rate_limited: "Slow down",
  verification_required: "Verification needed",
  run_failed: "The agent ran into a problem",
  connection: "Connection lost",
  not_found: "Not found",
  conflict: "Not possible right now",
  unauthorized: "Not allowed",
  token_expired: "Signing in again",
  invalid: "Message not accepted",
  unavailable: "Chat unavailable",
  unknown: "Something went wrong",
};

export function ErrorBanner({ error, onRetry }: { error: ChatError; onRetry?: () => void }) {
  const warning = error.kind === "rate_limited" || error.kind === "cap_reached" || error.kind === "connection";
  const resets = error.resetsAt ? new Date(error.resetsAt) : undefined;
  return (
    <div className="ic-banner" role="alert" data-tone={warning ? "warning" : undefined}>
      <span style={{ color: warning ? "var(--ic-warning)" : "var(--ic-danger)", paddingTop: 2 }}>
        <Icon path={warning ? icons.clock : icons.alert} />
      </span>
      <div>
        <div className="ic-banner-title">{errorTitles[error.kind]}</div>
        <div>{error.message}</div>
        {error.kind === "rate_limited" && error.retryAfterSeconds !== undefined && (
          <div className="ic-banner-meta">You can try again in {error.retryAfterSeconds} s.</div>
        )}
        {resets && !Number.isNaN(resets.getTime()) && (
          <div className="ic-banner-meta">Resets {resets.toLocaleDateString(undefined, { month: "long", day: "numeric" })}.</div>
        )}
        {error.topupUrl && (
          <div className="ic-banner-meta">
            <a href={error.topupUrl} target="_blank" rel="noopener noreferrer">
              Top up the balance
            </a>
          </div>
        )}
        {error.requestId && <div className="ic-banner-meta">Reference: {error.requestId}</div>}
        {onRetry && (
          <div style={{ marginTop: "0.5rem" }}>
            <button type="button" className="ic-btn" onClick={onRetry}>
              {error.kind === "connection" ? "Reconnect" : "Try again"}
            </button>
          </div>
        )}
      </div>
    </div>
  );
}
