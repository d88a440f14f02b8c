import { TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import { retryOnce } from "@/components/trpc/react";

const trpcError = (httpStatus: number) =>
  TRPCClientError.from({ error: { message: "no", code: -32600, data: { code: "X", httpStatus } } } as never);

describe("retryOnce", () => {
  it("retries a server error or a lost connection once", () => {
    expect(retryOnce(0, trpcError(500))).toBe(true);
    expect(retryOnce(0, new TypeError("Failed to fetch"))).toBe(true);
    expect(retryOnce(1, trpcError(503))).toBe(false);
  });

  it("never retries an answer a retry cannot change", () => {
    for (const status of [400, 401, 403, 404, 412, 422]) expect(retryOnce(0, trpcError(status))).toBe(false);
  });
});
