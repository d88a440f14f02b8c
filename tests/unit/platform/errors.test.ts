import { describe, expect, it } from "vitest";
import { PlatformError, errorEnvelope, errorTypeForStatus } from "@/server/platform/errors";

describe("errorEnvelope", () => {
  it("writes the spec's fields, with the status derived from the type", () => {
    const envelope = errorEnvelope(
      new PlatformError({ type: "not_found", message: "no such agent" }),
      "req_1",
      "http://x/api/v2",
    );
    expect(envelope).toEqual({
      error: {
        type: "not_found",
        message: "no such agent",
        code: 404,
        request_id: "req_1",
        doc_url: "http://x/api/v2/docs/errors#not_found",
      },
    });
  });

  it("repeats a semantic code in details, beside the extra context", () => {
    const envelope = errorEnvelope(
      new PlatformError({
        type: "rate_limit_error",
        message: "slow down",
        errorCode: "END_USER_RATE_LIMITED",
        details: { end_user_id: "u1", limit_per_minute: 5, retry_after: 12 },
      }),
      "req_2",
      "http://x/api/v2",
    );
    expect(envelope.error.code).toBe(429);
    expect(envelope.error.error_code).toBe("END_USER_RATE_LIMITED");
    expect(envelope.error.details).toEqual({
      end_user_id: "u1",
      limit_per_minute: 5,
      retry_after: 12,
      error_code: "END_USER_RATE_LIMITED",
    });
  });

  it("lets a billing-class error carry its own status", () => {
    expect(new PlatformError({ type: "billing_error", message: "m", status: 402 }).status).toBe(402);
  });
});

describe("errorTypeForStatus", () => {
  it("maps known statuses and falls back by class", () => {
    expect(errorTypeForStatus(413)).toBe("payload_too_large");
    expect(errorTypeForStatus(418)).toBe("invalid_request_error");
    expect(errorTypeForStatus(502)).toBe("api_error");
  });
});
