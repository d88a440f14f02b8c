// The client's one error family. Every failure a call can end in is a PlatformApiError: an answer of
// the platform (one subclass per status family, parsed from the spec's envelope), or a call that got no
// answer (connection, timeout, abort). Branch on `errorCode` (or the class), never on `message`.
import { ErrorEnvelope } from "../schemas/common";
import type { Run } from "./types";

export interface PlatformApiErrorInit {
  message: string;
  status?: number;
  type?: string;
  errorCode?: string;
  requestId?: string | null;
  details?: Record<string, unknown>;
  docUrl?: string;
  headers?: Headers;
  cause?: unknown;
}

/** Marks an error made by any copy of this module (a registered symbol is the same in every copy). */
const BRAND = Symbol.for("inlay.platform-client.error");

export class PlatformApiError extends Error {
  /**
   * A bundle may hold two copies of this module (Next.js gave server chunks one each), and an error
   * made by one copy fails the other's prototype check: a platform 404 then read as an unknown error
   * (a 500). So `instanceof` also accepts a branded error whose class, by name, is this one or below it.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    if (typeof value !== "object" || value === null || !(BRAND in value)) return false;
    const wanted = CLASS_NAMES.get(this);
    const own = (value as { name?: unknown }).name;
    for (let name = typeof own === "string" ? own : undefined; name !== undefined; name = PARENT_NAMES[name]) {
      if (name === wanted) return true;
    }
    return false;
  }

  override name = "PlatformApiError";
  /** The HTTP status; undefined when no answer arrived (connection, timeout, abort). */
  readonly status: number | undefined;
  /** The envelope's `error.type` (`not_found`, `validation_error`, …). */
  readonly type: string | undefined;
  /** The semantic code (`error.error_code`, else `error.details.error_code`): branch on this. */
  readonly errorCode: string | undefined;
  /** The request id to quote to support (`error.request_id`, else the x-request-id header). */
  readonly requestId: string | null;
  readonly details: Record<string, unknown> | undefined;
  readonly docUrl: string | undefined;
  readonly headers: Headers | undefined;

  constructor(init: PlatformApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.type = init.type;
    this.errorCode = init.errorCode;
    this.requestId = init.requestId ?? null;
    this.details = init.details;
    this.docUrl = init.docUrl;
    this.headers = init.headers;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/** 400 and 422: the request was malformed or a parameter is invalid (the message names the field). */
export class ValidationError extends PlatformApiError {
  override name = "ValidationError";
}
/** 401: the key is missing, unknown, revoked or expired. */
export class AuthenticationError extends PlatformApiError {
  override name = "AuthenticationError";
}
/** 402: balance, run limit, email verification or a per-end-user cap. */
export class BillingError extends PlatformApiError {
  override name = "BillingError";
}
/** 403: the credential may not do this. */
export class PermissionDeniedError extends PlatformApiError {
  override name = "PermissionDeniedError";
}
/** 404: no such resource in the caller's scope (another end-user's or account's looks the same). */
export class NotFoundError extends PlatformApiError {
  override name = "NotFoundError";
}
/** 409: duplicate, not active, run already terminal, idempotency key reused. */
export class ConflictError extends PlatformApiError {
  override name = "ConflictError";
}
/** 429: too many requests. Thrown once the client's retries are spent. */
export class RateLimitError extends PlatformApiError {
  override name = "RateLimitError";
  /** Seconds the platform asked to wait (the Retry-After header), when it said. */
  get retryAfter(): number | undefined {
    const ms = parseRetryAfterMs(this.headers);
    return ms === undefined ? undefined : ms / 1000;
  }
}
/**
 * The platform answered and refused (a 4xx): it did nothing, so a run it was asked to start does not
 * exist. A 5xx or no answer at all leaves that unknown.
 */
export const isRefusal = (error: unknown): error is PlatformApiError =>
  error instanceof PlatformApiError && error.status !== undefined && error.status >= 400 && error.status < 500;

/** 500 and above. Thrown once the client's retries (where the method allows them) are spent. */
export class InternalServerError extends PlatformApiError {
  override name = "InternalServerError";
}

/** No answer: the connection failed or dropped before the platform answered. */
export class ConnectionError extends PlatformApiError {
  override name = "ConnectionError";
  constructor(init: { message?: string; cause?: unknown } = {}) {
    super({ message: init.message ?? "connection error", cause: init.cause });
  }
}
/** No answer within `timeoutMs`. */
export class ConnectionTimeoutError extends ConnectionError {
  override name = "ConnectionTimeoutError";
  constructor(timeoutMs: number) {
    super({ message: `request timed out after ${timeoutMs} ms` });
  }
}
/** The caller aborted the call through its `signal`. */
export class UserAbortError extends PlatformApiError {
  override name = "UserAbortError";
  constructor() {
    super({ message: "request aborted" });
  }
}

/**
 * A streaming run-creating call whose Idempotency-Key an earlier call already used, for a run that has
 * finished: the spec's `idempotent_replay_terminal`. There is nothing to stream; `run` is its state
 * (fetch it again with `runs.get(runId)`, its frames with `runs.events(runId)`).
 */
export class IdempotentReplayTerminalError extends PlatformApiError {
  override name = "IdempotentReplayTerminalError";
  readonly run: Run;
  constructor(run: Run, headers: Headers) {
    super({
      message: `run ${run.id} was already created with this Idempotency-Key and is ${run.status}`,
      status: 200,
      type: "idempotent_replay",
      errorCode: "idempotent_replay_terminal",
      requestId: headers.get("x-request-id"),
      headers,
    });
    this.run = run;
  }
  get runId(): number {
    return this.run.id;
  }
}

/** Retry-After (seconds or an HTTP date) in milliseconds, when the header is there and readable. */
export function parseRetryAfterMs(headers: Headers | undefined): number | undefined {
  const value = headers?.get("retry-after");
  if (value === null || value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

const byStatus: Record<number, typeof PlatformApiError> = {
  400: ValidationError,
  401: AuthenticationError,
  402: BillingError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: ValidationError,
  429: RateLimitError,
};

/** The error for a non-2xx answer: the spec's envelope, or `{detail}` (unauthenticated throttling). */
export function errorFromResponse(status: number, headers: Headers, text: string): PlatformApiError {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const Class = byStatus[status] ?? (status >= 500 ? InternalServerError : PlatformApiError);
  const envelope = ErrorEnvelope.safeParse(json);
  if (envelope.success) {
    const { error } = envelope.data;
    const detailsCode = error.details?.error_code;
    return new Class({
      message: error.message,
      status,
      type: error.type,
      errorCode: error.error_code ?? (typeof detailsCode === "string" ? detailsCode : undefined),
      requestId: error.request_id,
      details: error.details,
      docUrl: error.doc_url,
      headers,
    });
  }
  const detail = (json as { detail?: unknown } | undefined)?.detail;
  return new Class({
    message: typeof detail === "string" ? detail : text.slice(0, 500) || `HTTP ${status}`,
    status,
    requestId: headers.get("x-request-id"),
    headers,
  });
}

// Each class by the name its instances carry (string literals, which minifiers keep), and the name of
// the class above it: what PlatformApiError[Symbol.hasInstance] walks.
const CLASS_NAMES = new Map<unknown, string>([
  [PlatformApiError, "PlatformApiError"],
  [ValidationError, "ValidationError"],
  [AuthenticationError, "AuthenticationError"],
  [BillingError, "BillingError"],
  [PermissionDeniedError, "PermissionDeniedError"],
  [NotFoundError, "NotFoundError"],
  [ConflictError, "ConflictError"],
  [RateLimitError, "RateLimitError"],
  [InternalServerError, "InternalServerError"],
  [ConnectionError, "ConnectionError"],
  [ConnectionTimeoutError, "ConnectionTimeoutError"],
  [UserAbortError, "UserAbortError"],
  [IdempotentReplayTerminalError, "IdempotentReplayTerminalError"],
]);
const PARENT_NAMES: Record<string, string | undefined> = {
  ValidationError: "PlatformApiError",
  AuthenticationError: "PlatformApiError",
  BillingError: "PlatformApiError",
  PermissionDeniedError: "PlatformApiError",
  NotFoundError: "PlatformApiError",
  ConflictError: "PlatformApiError",
  RateLimitError: "PlatformApiError",
  InternalServerError: "PlatformApiError",
  ConnectionError: "PlatformApiError",
  ConnectionTimeoutError: "ConnectionError",
  UserAbortError: "PlatformApiError",
  IdempotentReplayTerminalError: "PlatformApiError",
};
