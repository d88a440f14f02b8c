// What every endpoint shares: request ids, body rules, unknown query parameters, keys, rate limits,
// the access line.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { currentLogContext } from "@/lib/log-context";
import { logger } from "@/lib/logger";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform.close());

describe("request bodies", () => {
  it("answers malformed JSON with 400 invalid_request_error", async () => {
    const response = await platform.request("/signup", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { type: string; code: number } };
    expect(body.error).toMatchObject({ type: "invalid_request_error", code: 400 });
  });

  it("answers a body over 256 KB with 413", async () => {
    const response = await platform.request("/signup", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "a@b.test", first_name: "x".repeat(300 * 1024) }),
    });
    expect(response.status).toBe(413);
    const body = (await response.json()) as { error: { type: string; code: number; request_id: string } };
    expect(body.error).toMatchObject({ type: "payload_too_large", code: 413 });
    expect(body.error.request_id).toBe(response.headers.get("x-request-id"));
  });

  it("reads a body sent in chunks without a length, within the limit", async () => {
    const whole = new TextEncoder().encode(JSON.stringify({ email: "chunked@example.test", first_name: "C".repeat(40 * 1024) }));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < whole.length; at += 8 * 1024) controller.enqueue(whole.subarray(at, at + 8 * 1024));
        controller.close();
      },
    });
    const response = await platform.request("/signup", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    // Read whole and validated: the 40 KB first name is what the contract refuses, by name.
    expect(response.status).toBe(422);
    const error = ((await response.json()) as { error: { type: string; message: string } }).error;
    expect(error).toMatchObject({ type: "validation_error" });
    expect(error.message).toMatch(/^first_name: /);
  });

  it("refuses a body that is not JSON", async () => {
    const response = await platform.request("/signup", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "email=a@b.test",
    });
    expect(response.status).toBe(415);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
  });

  it("names the failing field in a 422", async () => {
    const { status, body } = await platform.call("/signup", { body: { email: "not-an-email", first_name: "A" } });
    expect(status).toBe(422);
    expect(body.error.type).toBe("validation_error");
    expect(body.error.message).toMatch(/^email: /);
    expect(body.error.details.fields).toEqual([{ field: "email", message: expect.any(String) }]);
  });
});

describe("query parameters", () => {
  it("rejects one the endpoint does not accept, with error_code unknown_query_parameter", async () => {
    const { status, body } = await platform.call("/signup", {
      body: { email: "q@example.test", first_name: "Q" },
      query: { sort: "x" },
    });
    expect(status).toBe(400);
    expect(body.error).toMatchObject({
      type: "invalid_request_error",
      error_code: "unknown_query_parameter",
      details: { error_code: "unknown_query_parameter", parameter: "sort" },
    });
  });
});

describe("API keys", () => {
  it("refuse a missing key, a malformed one and a well-formed unknown one with 401", async () => {
    const { key } = await platform.signup();
    // Same shape and prefix, one character changed: the checksum no longer matches.
    const flipped = key.slice(0, 20) + (key[20] === "A" ? "B" : "A") + key.slice(21);
    for (const header of [undefined, "Bearer nonsense", `Bearer ${flipped}`, `Basic ${key}`, "Bearer "]) {
      const { status, body } = await platform.call("/verify/status", { headers: header ? { authorization: header } : {} });
      expect(status, String(header)).toBe(401);
      expect(body.error).toMatchObject({ type: "authentication_error", code: 401 });
    }
    expect((await platform.call("/verify/status", { key })).status).toBe(200);
  });

  it("charge an account's requests to the account, shared by all its keys", async () => {
    const limited = await startPlatform({ rateLimits: { accountPerMinute: 2, ipPerMinute: 100 } });
    try {
      const { key } = await limited.signup();
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await limited.call("/verify/status", { key })).status);
      expect(statuses).toEqual([200, 200, 429]);
      const limitedCall = await limited.call("/verify/status", { key });
      expect(limitedCall.body.error).toMatchObject({ type: "rate_limit_error", code: 429 });
      expect(Number(limitedCall.headers.get("retry-after"))).toBeGreaterThan(0);
      // Another account has its own allowance.
      const other = await limited.signup();
      expect((await limited.call("/verify/status", { key: other.key })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe("rate-limit headers", () => {
  it("come with every response, including errors", async () => {
    const response = await platform.request("/nope");
    expect(response.headers.get("x-ratelimit-limit")).toBe("10000");
    expect(Number(response.headers.get("x-ratelimit-remaining"))).toBeLessThan(10_000);
    expect(Number(response.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
  });
});

describe("unauthenticated limit per IP", () => {
  it("answers 429 with {detail} and Retry-After past the limit", async () => {
    const limited = await startPlatform({ rateLimits: { ipPerMinute: 3 } });
    try {
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 4; i++) {
        last = await limited.request("/openapi.json");
        statuses.push(last.status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(last!.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(last!.headers.get("x-request-id")).toMatch(/^req_/);
      const body = (await last!.json()) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(["detail"]);
    } finally {
      await limited.close();
    }
  });
});

describe("access log", () => {
  it("writes one line per request: method, route template (never the path), status, duration, request id", async () => {
    const lines: { fields: Record<string, unknown>; context: unknown; message: unknown }[] = [];
    const spy = vi.spyOn(logger, "info").mockImplementation(((fields: Record<string, unknown>, message?: string) => {
      if (message === "request") lines.push({ fields, context: { ...currentLogContext() }, message });
    }) as typeof logger.info);
    try {
      const { key } = await platform.signup();
      lines.length = 0;
      const status = await platform.request("/verify/status", { headers: { authorization: `Bearer ${key}` } });
      const hook = await platform.request("/hooks/agents/not-a-real-token", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect([status.status, hook.status]).toEqual([200, 404]);
      expect(lines).toEqual([
        {
          message: "request",
          fields: { method: "GET", route: "/api/v2/verify/status", status: 200, ms: expect.any(Number) },
          context: expect.objectContaining({ requestId: status.headers.get("x-request-id"), accountId: expect.any(Number) }),
        },
        {
          message: "request",
          fields: { method: "POST", route: "/api/v2/hooks/agents/:token", status: 404, ms: expect.any(Number) },
          context: expect.objectContaining({ requestId: hook.headers.get("x-request-id") }),
        },
      ]);
    } finally {
      spy.mockRestore();
    }
  });
});
