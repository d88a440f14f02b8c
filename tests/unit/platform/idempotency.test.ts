import { describe, expect, it } from "vitest";
import { PlatformError } from "@/server/platform/errors";
import { canonicalJson, checkIdempotencyKey, requestHash } from "@/server/platform/services/idempotency";

const base = { method: "POST", path: "/api/v2/runs", query: [["user_id", "u1"]] as [string, string][], body: '{"a":1,"b":{"c":2,"d":[1,{"f":1,"e":2}]}}' };

describe("requestHash", () => {
  it("ignores the order of JSON keys at every depth, and of query parameters", () => {
    expect(canonicalJson({ b: 1, a: { d: 1, c: 2 } })).toBe('{"a":{"c":2,"d":1},"b":1}');
    const reordered = { ...base, body: '{ "b": {"d":[1,{"e":2,"f":1}], "c":2}, "a":1 }' };
    expect(requestHash(reordered)).toBe(requestHash(base));
    const twoParams = { ...base, query: [["x", "1"], ["user_id", "u1"]] as [string, string][] };
    expect(requestHash({ ...twoParams, query: [...twoParams.query].reverse() })).toBe(requestHash(twoParams));
  });

  it("tells apart a different body, array order, query, path or method", () => {
    const hash = requestHash(base);
    expect(requestHash({ ...base, body: '{"a":2,"b":{"c":2,"d":[1,{"f":1,"e":2}]}}' })).not.toBe(hash);
    expect(requestHash({ ...base, body: '{"a":1,"b":{"c":2,"d":[{"f":1,"e":2},1]}}' })).not.toBe(hash);
    expect(requestHash({ ...base, query: [["user_id", "u2"]] })).not.toBe(hash);
    expect(requestHash({ ...base, path: "/api/v2/runs/first-session" })).not.toBe(hash);
    expect(requestHash({ ...base, method: "PUT" })).not.toBe(hash);
  });

  it("hashes a body that is not JSON as sent", () => {
    expect(requestHash({ ...base, body: "{not json" })).toBe(requestHash({ ...base, body: "{not json" }));
    expect(requestHash({ ...base, body: "{not json" })).not.toBe(requestHash({ ...base, body: "{not json " }));
  });
});

describe("checkIdempotencyKey", () => {
  it("accepts 1-255 printable ASCII characters and refuses the rest with a 422", () => {
    expect(() => checkIdempotencyKey("a")).not.toThrow();
    expect(() => checkIdempotencyKey("x".repeat(255))).not.toThrow();
    for (const bad of ["", "x".repeat(256), "tab\there", "caf\u00e9"]) {
      let thrown: unknown;
      try {
        checkIdempotencyKey(bad);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(PlatformError);
      expect((thrown as PlatformError).status).toBe(422);
    }
  });
});
