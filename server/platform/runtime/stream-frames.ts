// The model's stream, one part at a time, as the run's frames: text deltas, tool calls and results.
// It also collects what the pass ends on (the questions and approvals to ask) and the results of calls
// a person approved before the pass, which the SDK leaves out of its response messages. Text is
// redacted here as it streams (secret-redactor.ts); the sink redacts every other frame. No I/O: the
// executor writes the frames and meters each finished step.
import type { TextStreamPart, ToolResultPart, ToolSet } from "ai";
import { ASK_USER_QUESTION, PLAN_APPROVAL, type RunFrame } from "@inlay/core/schemas/runs";
import { type NewRequest, newRequestId } from "../repositories/permission-requests";
import type { ConnectionNeeded } from "./app-tools";
import { SecretRedactor, type TextRedactor } from "../infrastructure/secret-redactor";

// Stream parts that neither say nor do anything a reader sees: text may go on after them.
const QUIET_PARTS = new Set(["start", "start-step", "text-start", "text-delta", "text-end", "reasoning-start", "reasoning-delta", "reasoning-end", "raw"]);

export interface StreamFramesOptions {
  /** The pass's tools: a question pauses the run only when AskUserQuestion is among them. */
  tools: ToolSet;
  /** Calls approved before this pass, whose results the SDK produces first (resume-decisions.ts). */
  approvedCallIds: ReadonlySet<string>;
  /** App tool calls that wait for a connection, by tool call id (app-tools.ts). */
  connectionNeeded: ReadonlyMap<string, ConnectionNeeded>;
  /** Values that must not leave the run: text is redacted as it streams. */
  redactor?: SecretRedactor;
  newId?: () => string;
}

export class StreamFrames {
  /** Questions and plan approvals the model asked (AskUserQuestion calls). */
  readonly questions: NewRequest[] = [];
  /** Tool calls that wait for a person's approval or for an app connection. */
  readonly approvals: NewRequest[] = [];
  /** Which app a connection request waits for, by request id (its permission_request frame says). */
  readonly connections = new Map<string, ConnectionNeeded>();
  /** Results of the calls approved before this pass. */
  readonly approvedResults: ToolResultPart[] = [];
  /** The stream's error part: the pass fails with it once the frames before it are written. */
  failure?: Error;
  private readonly calls = new Map<string, { toolName: string; input: unknown }>();
  private readonly newId: () => string;
  private readonly redactor: SecretRedactor;
  /** Text blocks whose redactor may hold back a tail, by block id. */
  private readonly texts = new Map<string, TextRedactor>();

  constructor(private readonly options: StreamFramesOptions) {
    this.newId = options.newId ?? newRequestId;
    this.redactor = options.redactor ?? SecretRedactor.none;
  }

  /** The requests the pass pauses for, approvals first. */
  get requests(): NewRequest[] {
    return [...this.approvals, ...this.questions];
  }

  /** The frames one part adds (none for what readers do not see). An error part sets `failure`. */
  read(part: TextStreamPart<ToolSet>): RunFrame[] {
    const frames: RunFrame[] = [];
    if (!QUIET_PARTS.has(part.type)) {
      // Something else is said: the text held back goes first.
      frames.push(...this.end());
    }
    switch (part.type) {
      case "text-delta": {
        let text = part.text;
        if (this.redactor.active) {
          let stream = this.texts.get(part.id);
          if (!stream) this.texts.set(part.id, (stream = this.redactor.stream()));
          text = stream.push(text);
        }
        frames.push(...this.text(part.id, text));
        break;
      }
      case "text-end": {
        const stream = this.texts.get(part.id);
        this.texts.delete(part.id);
        if (stream) frames.push(...this.text(part.id, stream.end()));
        break;
      }
      case "tool-call":
        this.calls.set(part.toolCallId, { toolName: part.toolName, input: part.input });
        frames.push({ type: "tool_use", id: part.toolCallId, name: part.toolName, input: part.input });
        // Only a question the run offered pauses it (a reply withholds AskUserQuestion; a call to it then
        // comes back as an unknown-tool error).
        if (part.toolName === ASK_USER_QUESTION && this.options.tools[ASK_USER_QUESTION]) {
          const title = (part.input as { questions?: { question?: string }[] }).questions?.[0]?.question;
          this.questions.push({
            id: this.newId(),
            kind: title === PLAN_APPROVAL ? "plan" : "question",
            toolName: ASK_USER_QUESTION,
            toolCallId: part.toolCallId,
            input: part.input,
          });
        }
        break;
      case "tool-result":
        if (this.options.approvedCallIds.has(part.toolCallId)) {
          this.approvedResults.push({ type: "tool-result", toolCallId: part.toolCallId, toolName: part.toolName, output: { type: "json", value: part.output as never } });
        }
        frames.push({ type: "tool_result", tool_use_id: part.toolCallId, content: JSON.stringify(part.output), result: part.output });
        break;
      case "tool-error":
        if (this.options.approvedCallIds.has(part.toolCallId)) {
          this.approvedResults.push({ type: "tool-result", toolCallId: part.toolCallId, toolName: part.toolName, output: { type: "error-text", value: String(part.error) } });
        }
        frames.push({ type: "tool_result", tool_use_id: part.toolCallId, content: String(part.error), result: { error: String(part.error) } });
        break;
      case "tool-approval-request": {
        const call = this.calls.get(part.toolCall.toolCallId) ?? { toolName: part.toolCall.toolName, input: part.toolCall.input };
        const connection = this.options.connectionNeeded.get(part.toolCall.toolCallId);
        const request: NewRequest = {
          id: this.newId(),
          kind: connection ? "connection" : "tool",
          ...(connection ? { app: connection.app } : {}),
          toolName: call.toolName,
          // The approval id is what the model's next turn must answer.
          toolCallId: part.approvalId,
          input: call.input,
        };
        this.approvals.push(request);
        if (connection) this.connections.set(request.id, connection);
        break;
      }
      case "error":
        this.failure = part.error instanceof Error ? part.error : new Error(String(part.error));
        break;
      default:
        break;
    }
    return frames;
  }

  /** The text every block still holds back (the stream ended or something else is said). */
  end(): RunFrame[] {
    const frames = [...this.texts].flatMap(([id, stream]) => this.text(id, stream.end()));
    this.texts.clear();
    return frames;
  }

  private text(id: string, text: string): RunFrame[] {
    // A redactor holding the whole delta back leaves nothing to say yet.
    if (text === "" && this.redactor.active) return [];
    return [{ type: "content_block_delta", id, delta: { type: "text_delta", text } }];
  }

  /** The frames that pause the run: one permission_request per request, then the status. */
  pauseFrames(): RunFrame[] {
    return [
      ...this.requests.map((request): RunFrame => {
        const connection = this.connections.get(request.id);
        return {
          type: "permission_request",
          request_id: request.id,
          tool_name: request.toolName,
          input: request.input,
          kind: request.kind,
          ...(connection ? { app: connection.app, app_name: connection.appName, connection_status: connection.status } : {}),
        };
      }),
      { type: "run_status", status: "awaiting_approval" },
    ];
  }
}
