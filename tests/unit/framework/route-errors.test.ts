// The framework's own route handlers (app/api/embed/*) answer its domain errors in one place
// (handleRoute): a refused input is 422 naming its field, the other codes their HTTP status.
import { describe, expect, it } from "vitest";
import { handleRoute, RouteError } from "@/server/framework/http/route-member";
import { TenancyError } from "@/server/framework/tenancy/errors";

const answer = async (error: Error) => {
  const response = await handleRoute(async () => {
    throw error;
  });
  return { status: response.status, body: await response.json() };
};

describe("handleRoute", () => {
  it("answers a TenancyError with its status and field", async () => {
    expect(await answer(new TenancyError("BAD_REQUEST", "views.x: bad", "views"))).toEqual({ status: 422, body: { error: { message: "views.x: bad", field: "views" } } });
    expect(await answer(new TenancyError("NOT_FOUND", "no such agent"))).toEqual({ status: 404, body: { error: { message: "no such agent" } } });
    expect((await answer(new TenancyError("FORBIDDEN", "admins only"))).status).toBe(403);
    expect((await answer(new TenancyError("CONFLICT", "taken"))).status).toBe(409);
    expect((await answer(new TenancyError("TOO_MANY_REQUESTS", "slow down"))).status).toBe(429);
  });

  it("answers a RouteError as it says, and lets anything else through to the framework's 500", async () => {
    expect(await answer(new RouteError(403, "no", { code: "origin_not_allowed" }))).toEqual({ status: 403, body: { error: { message: "no", code: "origin_not_allowed" } } });
    await expect(handleRoute(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
  });
});
