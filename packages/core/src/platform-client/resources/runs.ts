// client.runs: start runs (streaming or not), read them, answer the people-in-the-loop requests, and
// follow a run's event log. Every run-creating call (create, reply, firstSession, the with-files
// forms) goes through startRun(): one Idempotency-Key, the retries, and the stream.
import { isTerminalStatus } from "../../schemas/runs";
import { IdempotentReplayTerminalError } from "../errors";
import { collect, type PagePromise } from "../pagination";
import { RunStream } from "../streaming";
import { parseJson, type Operation, type RequestOptions } from "../transport";
import type {
  AnswerParams,
  AnswerResult,
  Attachment,
  ApprovalResult,
  ApproveParams,
  FirstSessionParams,
  NeedsYouParams,
  NeedsYouRun,
  Page,
  PermissionMode,
  PermissionRequest,
  Run,
  RunActivity,
  RunCheck,
  RunCreateParams,
  RunCreateWithFilesParams,
  RunListItem,
  RunListParams,
  RunMessages,
  RunReplyParams,
  RunReplyWithFilesParams,
  RunSummary,
} from "../types";
import { Resource, segment } from "./resource";

/**
 * A non-streaming run-creating call's answer: the run, plus `idempotentReplay` when the platform
 * answered with the run an earlier request with the same Idempotency-Key created (the client's own
 * retry after a dropped connection, or your repeat of an idempotencyKey). `"idempotent_replay_terminal"`
 * (the spec's name) means that run has already finished. The property is not enumerable, so the
 * object serialises and compares exactly as the API's run.
 */
export type CreatedRun = Run & { readonly idempotentReplay?: "idempotent_replay" | "idempotent_replay_terminal" };


type StreamingParams<P> = P & { stream?: true };
type JsonParams<P> = P & { stream: false };

export class RunPermissions extends Resource {
  /** GET /runs/{run_id}/permissions: the run's permission requests, pending and resolved. */
  list(runId: number, options?: RequestOptions): Promise<Page<PermissionRequest>> {
    return this.transport.json({ method: "GET", path: `/runs/${segment(runId)}/permissions`, userId: "query" }, options);
  }
}

export class Runs extends Resource {
  readonly permissions = new RunPermissions(this.transport);

  /**
   * POST /runs. Streams by default (as the API does): resolves, once the platform accepted the run, to
   * a RunStream of typed frames that resumes by itself. With `stream: false`, resolves to the run
   * (status running) to poll with get(). Always sends an Idempotency-Key (`options.idempotencyKey`, or
   * a fresh crypto.randomUUID()), so it is retried like a GET.
   */
  create(params: JsonParams<RunCreateParams>, options?: RequestOptions): Promise<CreatedRun>;
  create(params: StreamingParams<RunCreateParams>, options?: RequestOptions): Promise<RunStream>;
  create(params: RunCreateParams, options?: RequestOptions): Promise<CreatedRun | RunStream> {
    return this.startRun({ path: "/runs", body: params, userId: "body" }, params, options);
  }

  /**
   * POST /runs/{run_id}/reply: a new message on a finished run, which continues as the same run (non-
   * interactive from then on). Streams the reply's frames only (to the reply's done frame), or with
   * `stream: false` answers the run, running again. Idempotency-Key and retries as on create; a
   * dropped stream resumes from the last frame seen, never from the run's first request.
   */
  reply(runId: number, params: JsonParams<RunReplyParams>, options?: RequestOptions): Promise<CreatedRun>;
  reply(runId: number, params: StreamingParams<RunReplyParams>, options?: RequestOptions): Promise<RunStream>;
  reply(runId: number, params: RunReplyParams, options?: RequestOptions): Promise<CreatedRun | RunStream> {
    return this.startRun({ path: `/runs/${segment(runId)}/reply`, body: params, userId: "query" }, params, options, true);
  }

  /** POST /runs/first-session: a new run in which the agent introduces itself. Like create. */
  firstSession(params: JsonParams<FirstSessionParams>, options?: RequestOptions): Promise<CreatedRun>;
  firstSession(params: StreamingParams<FirstSessionParams>, options?: RequestOptions): Promise<RunStream>;
  firstSession(params: FirstSessionParams, options?: RequestOptions): Promise<CreatedRun | RunStream> {
    return this.startRun({ path: "/runs/first-session", body: params, userId: "body" }, params, options);
  }

  /**
   * POST /runs/with-files: create with attachments (`files`: Blobs or Files; text files reach the model
   * as text, images and PDF as files). Sent as multipart, `payload` holding the rest. Like create.
   */
  createWithFiles(params: JsonParams<RunCreateWithFilesParams>, options?: RequestOptions): Promise<CreatedRun>;
  createWithFiles(params: StreamingParams<RunCreateWithFilesParams>, options?: RequestOptions): Promise<RunStream>;
  createWithFiles(params: RunCreateWithFilesParams, options?: RequestOptions): Promise<CreatedRun | RunStream> {
    const { files, ...payload } = params;
    return this.startRun({ path: "/runs/with-files", form: form(payload, files), userId: "body" }, payload, options);
  }

  /** POST /runs/{run_id}/reply/with-files: reply with attachments. Like reply. */
  replyWithFiles(runId: number, params: JsonParams<RunReplyWithFilesParams>, options?: RequestOptions): Promise<CreatedRun>;
  replyWithFiles(runId: number, params: StreamingParams<RunReplyWithFilesParams>, options?: RequestOptions): Promise<RunStream>;
  replyWithFiles(runId: number, params: RunReplyWithFilesParams, options?: RequestOptions): Promise<CreatedRun | RunStream> {
    const { files, user_id, ...payload } = params;
    return this.startRun(
      { path: `/runs/${segment(runId)}/reply/with-files`, query: { user_id }, form: form(payload, files), userId: "query" },
      params,
      options,
      true,
    );
  }

  /**
   * PATCH /runs/{run_id}/permission-mode: applies from the run's next start of the agent loop (a resume
   * or a reply); 409 ConflictError once the run is over. Sent once (a PATCH).
   */
  setPermissionMode(runId: number, mode: PermissionMode, options?: RequestOptions): Promise<Run> {
    return this.transport.json(
      { method: "PATCH", path: `/runs/${segment(runId)}/permission-mode`, body: { permission_mode: mode }, userId: "query" },
      options,
    );
  }

  /** GET /runs: one page, or every run when iterated. `fields: "summary"` lists summaries. */
  list(params: RunListParams & { fields: "summary" }, options?: RequestOptions): PagePromise<RunSummary>;
  list(params?: RunListParams, options?: RequestOptions): PagePromise<RunListItem>;
  list(params?: RunListParams, options?: RequestOptions): PagePromise<RunListItem> | PagePromise<RunSummary> {
    return this.paged<RunListItem>({ path: "/runs", userId: "query" }, params, options);
  }
  listAll(params: RunListParams & { fields: "summary" }, options?: RequestOptions): Promise<RunSummary[]>;
  listAll(params?: RunListParams, options?: RequestOptions): Promise<RunListItem[]>;
  listAll(params?: RunListParams, options?: RequestOptions): Promise<(RunListItem | RunSummary)[]> {
    return collect<RunListItem | RunSummary>(this.list(params, options));
  }

  /** GET /runs/{run_id} */
  get(runId: number, options?: RequestOptions): Promise<Run> {
    return this.transport.json({ method: "GET", path: `/runs/${segment(runId)}`, userId: "query" }, options);
  }

  /**
   * GET /runs/{run_id}/messages (an Inlay extension): the run's conversation as turns, in order: each
   * user turn (the start message, then every reply, with its files' names and types) followed by the
   * agent's text for it. A metadata_only run answers no turns (`retention: "metadata_only"`).
   */
  messages(runId: number, options?: RequestOptions): Promise<RunMessages> {
    return this.transport.json({ method: "GET", path: `/runs/${segment(runId)}/messages`, userId: "query" }, options);
  }

  /** POST /runs/{run_id}/cancel (409 ConflictError once the run is completed, failed or cancelled). */
  cancel(runId: number, options?: RequestOptions): Promise<Run> {
    return this.transport.json({ method: "POST", path: `/runs/${segment(runId)}/cancel`, userId: "query" }, options);
  }

  /** POST /runs/{run_id}/answer: a question's answers (plan approval: {"Plan Approval": "Approve"}). */
  answer(runId: number, params: AnswerParams, options?: RequestOptions): Promise<AnswerResult> {
    return this.transport.json(
      { method: "POST", path: `/runs/${segment(runId)}/answer`, body: params, userId: "query" },
      options,
    );
  }

  /** POST /runs/{run_id}/approve: `decision` allow or deny a pending tool call. */
  approve(runId: number, params: ApproveParams, options?: RequestOptions): Promise<ApprovalResult> {
    return this.transport.json(
      { method: "POST", path: `/runs/${segment(runId)}/approve`, body: params, userId: "query" },
      options,
    );
  }

  /**
   * GET /runs/{run_id}/events: the run's frames from `lastEventId` (else from the start) to its done
   * frame, resuming by itself like a created run's stream. Connects when iteration starts.
   */
  events(runId: number, params: { lastEventId?: string } = {}, options: RequestOptions = {}): RunStream {
    const controller = new AbortController();
    linkSignal(options.signal, controller);
    return new RunStream({
      transport: this.transport,
      runId,
      lastEventId: params.lastEventId,
      controller,
      options,
    });
  }

  /** GET /runs/activity: open runs by status and today's outcomes. */
  activity(options?: RequestOptions): Promise<RunActivity> {
    return this.transport.json({ method: "GET", path: "/runs/activity", userId: "query" }, options);
  }

  /** GET /runs/check: a cheap freshness check to poll. */
  check(options?: RequestOptions): Promise<RunCheck> {
    return this.transport.json({ method: "GET", path: "/runs/check", userId: "query" }, options);
  }

  /** GET /runs/needs-you: runs waiting for a person, with their pending requests. */
  needsYou(params?: NeedsYouParams, options?: RequestOptions): PagePromise<NeedsYouRun> {
    return this.paged({ path: "/runs/needs-you", userId: "query" }, params, options);
  }

  /** @internal POST /tasks/{task_id}/runs: use client.tasks.run (it shares startRun with create). */
  startTaskRun(taskId: number, params: { stream?: boolean; user_id?: string }, options?: RequestOptions): Promise<CreatedRun | RunStream> {
    return this.startRun({ path: `/tasks/${segment(taskId)}/runs`, body: params, userId: "body" }, params, options);
  }

  /**
   * Every run-creating POST: Idempotency-Key, retries, and the answer as a run or a RunStream.
   * A streaming call answered by a replay (JSON) follows the run's event log from its first frame (a
   * reply's: from the first frame of the run's latest request);
   * a replay of a finished run on the first attempt (you reused a key) is IdempotentReplayTerminalError.
   */
  private async startRun(
    operation: Omit<Operation, "method" | "createsRun" | "stream">,
    params: { stream?: boolean; user_id?: string },
    options: RequestOptions = {},
    /** A reply: its stream covers the run's latest request, not the run from its start. */
    reply = false,
  ): Promise<CreatedRun | RunStream> {
    const base: Operation = { ...operation, method: "POST", createsRun: true };
    if (params.stream === false) {
      const answer = await this.transport.send(base, options);
      const run = parseJson<Run>(answer);
      if (answer.replay) {
        const kind = isTerminalStatus(run.status) ? "idempotent_replay_terminal" : "idempotent_replay";
        Object.defineProperty(run, "idempotentReplay", { value: kind, enumerable: false });
      }
      return run;
    }
    const controller = new AbortController();
    linkSignal(options.signal, controller);
    const streaming = { ...options, signal: controller.signal };
    const answer = await this.transport.send({ ...base, stream: true }, streaming);
    if (!answer.connection) {
      const run = parseJson<Run>(answer);
      if (answer.attempts === 1 && isTerminalStatus(run.status)) throw new IdempotentReplayTerminalError(run, answer.response.headers);
      return new RunStream({
        transport: this.transport,
        runId: run.id,
        userId: run.user_id,
        latestRequest: reply,
        controller,
        options: streaming,
      });
    }
    const sameKey = { ...streaming, idempotencyKey: answer.idempotencyKey };
    return new RunStream({
      transport: this.transport,
      initial: answer,
      userId: params.user_id ?? this.transport.userId,
      latestRequest: reply,
      // The same request with the same key answers the run as JSON: its id and its scope.
      resolveRun: async () => parseJson<Run>(await this.transport.send(base, sameKey)),
      controller,
      options: streaming,
    });
  }
}

/** A with-files form: the JSON payload and the files (the transport builds the FormData per attempt). */
const form = (payload: object, files: readonly Attachment[]) => ({ payload, files });

function linkSignal(signal: AbortSignal | undefined, controller: AbortController) {
  if (!signal) return;
  if (signal.aborted) controller.abort();
  else signal.addEventListener("abort", () => controller.abort(), { once: true });
}
