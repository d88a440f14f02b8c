// What a failure means for the person chatting: the client's error classes and error codes, and the
// framework's refused admissions, read into one ChatError the UI can explain. Branches on class and
// code, never on message text.
import {
  AuthenticationError,
  BillingError,
  ConflictError,
  ConnectionError,
  NotFoundError,
  PermissionDeniedError,
  PlatformApiError,
  RateLimitError,
  ValidationError,
} from "../platform-client";
import type { ChatError } from "./types";

/** The framework's refused admission (server/framework/tenancy LimitExceededDetails), as plain data. */
export interface AdmissionRefusal {
  limit: string;
  used: number;
  max: number;
  resetsAt: string | null;
  message: string;
}

const str = (value: unknown) => (typeof value === "string" ? value : undefined);
const num = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : undefined);

export function admissionError(refusal: AdmissionRefusal): ChatError {
  if (refusal.limit === "turns_per_minute") {
    const seconds = refusal.resetsAt ? Math.max(1, Math.ceil((Date.parse(refusal.resetsAt) - Date.now()) / 1000)) : 60;
    return { kind: "rate_limited", message: refusal.message, retryAfterSeconds: seconds, code: refusal.limit, resetsAt: refusal.resetsAt };
  }
  return { kind: "cap_reached", message: refusal.message, code: refusal.limit, resetsAt: refusal.resetsAt };
}

export function chatErrorFrom(error: unknown): ChatError {
  if (!(error instanceof PlatformApiError)) {
    return { kind: "unknown", message: "Something went wrong. Please try again." };
  }
  const base = { code: error.errorCode, requestId: error.requestId };
  const details = error.details ?? {};
  if (error instanceof BillingError) {
    switch (error.errorCode) {
      case "TOKEN_BALANCE_DEPLETED":
        return {
          ...base,
          kind: "balance_depleted",
          message: "The token balance is used up. Top it up to keep chatting.",
          topupUrl: str(details.topup_url),
        };
      case "EMAIL_VERIFICATION_REQUIRED":
        return { ...base, kind: "verification_required", message: "The account must verify its email before more runs." };
      case "RUN_LIMIT_REACHED":
        return { ...base, kind: "cap_reached", message: "You have used all your runs for this month.", resetsAt: str(details.period_end) ?? null };
      case "COST_LIMIT_REACHED":
        return { ...base, kind: "cap_reached", message: "You have reached your spending cap for this month.", resetsAt: str(details.period_end) ?? null };
      default:
        return { ...base, kind: "cap_reached", message: error.message };
    }
  }
  if (error instanceof RateLimitError) {
    const seconds = error.retryAfter ?? num(details.retry_after);
    return {
      ...base,
      kind: "rate_limited",
      message: "Too many messages at once. Wait a moment and try again.",
      retryAfterSeconds: seconds === undefined ? undefined : Math.ceil(seconds),
    };
  }
  if (error instanceof ConnectionError) {
    return { ...base, kind: "connection", message: "The connection to the agent was lost." };
  }
  if (error instanceof NotFoundError) return { ...base, kind: "not_found", message: "This conversation or agent was not found." };
  if (error instanceof ConflictError) return { ...base, kind: "conflict", message: error.message };
  if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) {
    return { ...base, kind: "unauthorized", message: "This chat is not authorised to reach the agent." };
  }
  if (error instanceof ValidationError) return { ...base, kind: "invalid", message: error.message };
  return { ...base, kind: "unknown", message: "The agent platform had a problem. Please try again." };
}
