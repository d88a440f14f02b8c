// What the chat tells the person for each failure: from the client's error classes and codes.
import { describe, expect, it } from "vitest";
import { BillingError, ConnectionError, RateLimitError, errorFromResponse } from "@inlay/core/platform-client/errors";
import { admissionError, chatErrorFrom } from "@inlay/core/chat/errors";

const envelope = (status: number, type: string, code: string, details: Record<string, unknown> = {}) =>
  JSON.stringify({ error: { type, message: "refused", code: status, request_id: "req_1", doc_url: "x", error_code: code, details: { error_code: code, ...details } } });

describe("chatErrorFrom", () => {
  it("reads a depleted balance, with where to top up", () => {
    const error = errorFromResponse(402, new Headers(), envelope(402, "billing_error", "TOKEN_BALANCE_DEPLETED", { topup_url: "http://127.0.0.1/topup" }));
    expect(error).toBeInstanceOf(BillingError);
    expect(chatErrorFrom(error)).toMatchObject({ kind: "balance_depleted", code: "TOKEN_BALANCE_DEPLETED", topupUrl: "http://127.0.0.1/topup", requestId: "req_1" });
  });

  it("reads the end-user's run and cost caps as a cap reached, with when it resets", () => {
    const runs = errorFromResponse(402, new Headers(), envelope(402, "billing_error", "RUN_LIMIT_REACHED", { period_end: "2026-12-01T00:00:00Z" }));
    expect(chatErrorFrom(runs)).toMatchObject({ kind: "cap_reached", code: "RUN_LIMIT_REACHED", resetsAt: "2026-12-01T00:00:00Z" });
    const cost = errorFromResponse(402, new Headers(), envelope(402, "billing_error", "COST_LIMIT_REACHED"));
    expect(chatErrorFrom(cost)).toMatchObject({ kind: "cap_reached", code: "COST_LIMIT_REACHED" });
  });

  it("reads a rate limit with the Retry-After seconds", () => {
    const error = errorFromResponse(429, new Headers({ "retry-after": "17" }), envelope(429, "rate_limit_error", "END_USER_RATE_LIMITED"));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(chatErrorFrom(error)).toMatchObject({ kind: "rate_limited", retryAfterSeconds: 17, code: "END_USER_RATE_LIMITED" });
  });

  it("reads a lost connection, and anything else as unknown without leaking its message", () => {
    expect(chatErrorFrom(new ConnectionError())).toMatchObject({ kind: "connection" });
    expect(chatErrorFrom(new Error("secret internals"))).toEqual({ kind: "unknown", message: "Something went wrong. Please try again." });
  });
});

describe("admissionError", () => {
  it("reads the framework's turn limit as a rate limit and its caps as caps", () => {
    const resetsAt = new Date(Date.now() + 30_000).toISOString();
    expect(admissionError({ limit: "turns_per_minute", used: 5, max: 5, resetsAt, message: "slow down" })).toMatchObject({
      kind: "rate_limited",
      code: "turns_per_minute",
    });
    expect(admissionError({ limit: "turns_per_minute", used: 5, max: 5, resetsAt, message: "m" }).retryAfterSeconds).toBeGreaterThanOrEqual(29);
    expect(admissionError({ limit: "member_runs", used: 3, max: 3, resetsAt: null, message: "cap" })).toEqual({
      kind: "cap_reached",
      message: "cap",
      code: "member_runs",
      resetsAt: null,
    });
  });
});
