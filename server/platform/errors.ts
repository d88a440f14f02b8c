// The platform's one error family. Services throw PlatformError; app.ts maps every error, once, to
// the spec's envelope: {error: {type, message, code, request_id, doc_url, error_code?, details?}}.

export const errorTypeStatus = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict_error: 409,
  gone: 410,
  payload_too_large: 413,
  validation_error: 422,
  rate_limit_error: 429,
  // 500 and above, 503 included (the spec's table: "500+ | api_error"); a 503 sets `status`.
  api_error: 500,
} as const;

export type ErrorType = keyof typeof errorTypeStatus;

export interface PlatformErrorInit {
  type: ErrorType;
  message: string;
  /** Defaults to the status of `type`. */
  status?: number;
  /** The semantic code clients branch on (TOKEN_BALANCE_DEPLETED, unknown_query_parameter, …). */
  errorCode?: string;
  /** Extra context; `error_code` is added to it when there is one. */
  details?: Record<string, unknown>;
  /** Response headers that belong to the error (Retry-After, Allow). */
  headers?: Record<string, string>;
  /** Fields the spec puts beside `type` and `message` in the envelope (TOKEN_BALANCE_DEPLETED's topup_url). */
  extra?: Record<string, unknown>;
}

export class PlatformError extends Error {
  override name = "PlatformError";
  readonly type: ErrorType;
  readonly status: number;
  readonly errorCode?: string;
  readonly details?: Record<string, unknown>;
  readonly headers: Record<string, string>;
  readonly extra?: Record<string, unknown>;

  constructor(init: PlatformErrorInit) {
    super(init.message);
    this.type = init.type;
    this.status = init.status ?? errorTypeStatus[init.type];
    this.errorCode = init.errorCode;
    this.details = init.details;
    this.headers = init.headers ?? {};
    this.extra = init.extra;
  }
}

export interface ErrorEnvelope {
  error: {
    type: ErrorType;
    message: string;
    code: number;
    request_id: string;
    doc_url: string;
    error_code?: string;
    details?: Record<string, unknown>;
    [extra: string]: unknown;
  };
}

export function errorEnvelope(error: PlatformError, requestId: string, docBaseUrl: string): ErrorEnvelope {
  const details =
    error.errorCode !== undefined || error.details !== undefined
      ? { ...error.details, ...(error.errorCode !== undefined ? { error_code: error.errorCode } : {}) }
      : undefined;
  return {
    error: {
      // First, so the envelope's own fields always win.
      ...error.extra,
      type: error.type,
      message: error.message,
      code: error.status,
      request_id: requestId,
      doc_url: `${docBaseUrl}/docs/errors#${error.type}`,
      ...(error.errorCode !== undefined ? { error_code: error.errorCode } : {}),
      ...(details !== undefined ? { details } : {}),
    },
  };
}

/** The status a thrown Hono HTTPException (body limit, malformed JSON) maps to. */
export function errorTypeForStatus(status: number): ErrorType {
  const match = (Object.entries(errorTypeStatus) as [ErrorType, number][]).find(([, code]) => code === status);
  if (match) return match[0];
  return status >= 500 ? "api_error" : "invalid_request_error";
}
