import SwaggerParser from "@apidevtools/swagger-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform.close());

describe("GET /openapi.json", () => {
  it("answers a valid OpenAPI 3.1 document without authentication", async () => {
    const response = await platform.request("/openapi.json");
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/);
    const document = (await response.json()) as { openapi: string; servers: { url: string }[] };
    expect(document.openapi).toBe("3.1.0");
    expect(document.servers).toEqual([{ url: "/api/v2" }]);
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy();
  });

  it("lists every registered operation and nothing else", async () => {
    const document = (await (await platform.request("/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(document.paths)
      .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    // The two meta routes describe the API rather than belong to it.
    const undocumented = new Set(["GET /openapi.json", "GET /docs/errors"]);
    const registered = [
      ...new Set(
        platform.app.routes
          .filter((route) => route.method !== "ALL")
          .map((route) => `${route.method} ${route.path.replace("/api/v2", "").replace(/\/:(\w+)/g, "/{$1}")}`),
      ),
    ]
      .filter((route) => !undocumented.has(route))
      .sort();
    expect(documented).toEqual(registered);
    expect(documented.length).toBeGreaterThan(20);
  });
});

describe("unknown routes", () => {
  it("answers 404 in the error envelope", async () => {
    const response = await platform.request("/nope");
    expect(response.status).toBe(404);
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect(body).toEqual({
      error: {
        type: "not_found",
        message: expect.stringContaining("/api/v2/nope"),
        code: 404,
        request_id: response.headers.get("x-request-id"),
        doc_url: `${platform.baseUrl}/docs/errors#not_found`,
      },
    });
  });

  it("answers 405 with Allow for a known path and a wrong method", async () => {
    const response = await platform.request("/openapi.json", { method: "DELETE" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET");
    const body = (await response.json()) as { error: { type: string; code: number } };
    expect(body.error).toMatchObject({ type: "method_not_allowed", code: 405 });
  });

  it("keeps a caller's plain request id and replaces an unsafe one", async () => {
    const kept = await platform.request("/nope", { headers: { "x-request-id": "trace-123" } });
    expect(kept.headers.get("x-request-id")).toBe("trace-123");
    expect(((await kept.json()) as { error: { request_id: string } }).error.request_id).toBe("trace-123");
    const replaced = await platform.request("/nope", { headers: { "x-request-id": "bad id\twith tab" } });
    expect(replaced.headers.get("x-request-id")).toMatch(/^req_/);
  });
});

describe("GET /docs/errors", () => {
  it("serves the page every doc_url points at, with a section per error type", async () => {
    const response = await platform.request("/docs/errors");
    expect(response.status).toBe(200);
    const page = await response.text();
    for (const type of ["invalid_request_error", "authentication_error", "not_found", "method_not_allowed", "validation_error", "rate_limit_error", "api_error"]) {
      expect(page).toContain(`## ${type}`);
    }
  });
});
