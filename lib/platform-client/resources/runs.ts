// client.runs: start runs (streaming or not), read them, answer the people-in-the-loop requests, and
// follow a run's event log. Every run-creating call goes through startRun(), so the endpoints still
// to come (reply, first-session, with-files, task runs) are one small method each.
import { TERMINAL_STATUSES } from "../../schemas/runs";
import { IdempotentReplayTerminalError } from "../errors";
import { collect, type PagePromise } from "../pagination";
import { RunStream } from "../streaming";
import { parseJson, type Operation, type RequestOptions } from "../transport";
import type {
  AnswerParams,
  AnswerResult,
  ApprovalResult,
  ApproveParams,
  NeedsYouParams,
  NeedsYouRun,
  Page,
  PermissionRequest,
  Run,
  RunActivity,
  RunCheck,
  RunCreateParams,
  RunListItem,
  RunListParams,
  RunReplyParams,
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

const isTerminal = (run: Run) => (TERMINAL_STATUSES as readonly string[]).includes(run.status);

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
    return this.startRun({ path: "/runs", body: params, userId: "body" }, params.user_id, options);
  }

  /**
   * POST /runs/{run_id}/reply: a new message on a finished run (the same run goes on). Streams by
   * default, only the reply's frames; with `stream: false`, resolves to the run. Idempotent like create.
   */
  reply(runId: number, params: JsonParams<RunReplyParams>, options?: RequestOptions): Promise<CreatedRun>;
  reply(runId: number, params: StreamingParams<RunReplyParams>, options?: RequestOptions): Promise<RunStream>;
  reply(runId: number, params: RunReplyParams, options?: RequestOptions): Promise<CreatedRun | RunStream> {
    return this.startRun({ path: `/runs/${segment(runId)}/reply`, body: params, userId: "query" }, undefined, options);
  }

  /**
   * POST /runs/with-files: a streaming run with attachments (`files`: text, images, PDF; at most 10).
   * `params` is the POST /runs JSON, sent as the form's `payload`.
   */
  createWithFiles(params: RunCreateParams, files: readonly File[], options?: RequestOptions): Promise<RunStream> {
    return this.startRun(
      { path: "/runs/with-files", body: withFiles(params, files), userId: "query" },
      undefined,
      options,
    ) as Promise<RunStream>;
  }

  /** POST /runs/{run_id}/reply/with-files: a streaming reply with attachments. */
  replyWithFiles(runId: number, params: RunReplyParams, files: readonly File[], options?: RequestOptions): Promise<RunStream> {
    return this.startRun(
      { path: `/runs/${segment(runId)}/reply/with-files`, body: withFiles(params, files), userId: "query" },
      undefined,
      options,
    ) as Promise<RunStream>;
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

  /**
   * Every run-creating POST: Idempotency-Key, retries, and the answer as a run or a RunStream.
   * A streaming call answered by a replay (JSON) follows the run's event log from its first frame;
   * a replay of a finished run on the first attempt (you reused a key) is IdempotentReplayTerminalError.
   */
  private async startRun(
    operation: Omit<Operation, "method" | "createsRun" | "stream"> & { body: { stream?: boolean } },
    explicitUserId: string | undefined,
    options: RequestOptions = {},
  ): Promise<CreatedRun | RunStream> {
    const base: Operation = { ...operation, method: "POST", createsRun: true };
    if (operation.body.stream === false) {
      const answer = await this.transport.send(base, options);
      const run = parseJson<Run>(answer);
      if (answer.replay) {
        const kind = isTerminal(run) ? "idempotent_replay_terminal" : "idempotent_replay";
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
      if (answer.attempts === 1 && isTerminal(run)) throw new IdempotentReplayTerminalError(run, answer.response.headers);
      return new RunStream({ transport: this.transport, runId: run.id, userId: run.user_id, controller, options: streaming });
    }
    const sameKey = { ...streaming, idempotencyKey: answer.idempotencyKey };
    return new RunStream({
      transport: this.transport,
      initial: answer,
      userId: explicitUserId ?? this.transport.userId,
      // The same request with the same key answers the run as JSON: its id and its scope.
      resolveRun: async () => parseJson<Run>(await this.transport.send(base, sameKey)),
      controller,
      options: streaming,
    });
  }
}

/** The with-files form: the JSON as `payload`, each file as `files`. Always streams. */
function withFiles(params: object, files: readonly File[]): FormData & { stream?: boolean } {
  const form = new FormData();
  form.set("payload", JSON.stringify({ ...params, stream: true }));
  for (const file of files) form.append("files", file, file.name);
  return form;
}

function linkSignal(signal: AbortSignal | undefined, controller: AbortController) {
  if (!signal) return;
  if (signal.aborted) controller.abort();
  else signal.addEventListener("abort", () => controller.abort(), { once: true });
}
