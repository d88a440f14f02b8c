// Account settings: GET and PATCH /settings.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform.close());

const defaults = {
  retention_mode: "standard",
  require_end_user_id: true,
  per_end_user_run_limit: null,
  per_end_user_cost_limit_cents: null,
  per_end_user_rate_per_minute: null,
  approval_email_enabled: true,
  approval_chat_enabled: true,
  company_research: true,
};

const patch = (account: Account, body?: unknown, query?: Record<string, string>) =>
  platform.call("/settings", { key: account.key, method: "PATCH", body, query });

describe("GET /settings", () => {
  it("answers the defaults of an API signup, strict mode on", async () => {
    const account = await platform.signup();
    const { status, body } = await platform.call("/settings", { key: account.key });
    expect(status).toBe(200);
    expect(body).toEqual(defaults);
  });

  it("reflects strict mode chosen at signup", async () => {
    const lax = await platform.signup({ require_end_user_id: false });
    expect((await platform.call("/settings", { key: lax.key })).body.require_end_user_id).toBe(false);
  });

  it("is account-scoped: user_id is an unknown query parameter", async () => {
    const account = await platform.signup();
    const { status, body } = await platform.call("/settings", { key: account.key, query: { user_id: "u" } });
    expect(status).toBe(400);
    expect(body.error).toMatchObject({
      type: "invalid_request_error",
      error_code: "unknown_query_parameter",
      details: { parameter: "user_id" },
    });
    expect(body.error.message).toContain("account-scoped");
  });

  it("needs a valid key", async () => {
    expect((await platform.call("/settings")).status).toBe(401);
    expect((await platform.call("/settings", { key: "sk_inlay_nope" })).status).toBe(401);
  });
});

describe("PATCH /settings", () => {
  it("changes the fields given, leaves the others and answers the whole settings", async () => {
    const account = await platform.signup();
    const { status, body } = await patch(account, {
      retention_mode: "metadata_only",
      per_end_user_run_limit: 50,
      per_end_user_cost_limit_cents: 0,
      per_end_user_rate_per_minute: 10,
      approval_email_enabled: false,
    });
    expect(status).toBe(200);
    const expected = {
      ...defaults,
      retention_mode: "metadata_only",
      per_end_user_run_limit: 50,
      per_end_user_cost_limit_cents: 0,
      per_end_user_rate_per_minute: 10,
      approval_email_enabled: false,
    };
    expect(body).toEqual(expected);
    expect((await platform.call("/settings", { key: account.key })).body).toEqual(expected);

    const second = await patch(account, { approval_chat_enabled: false, company_research: false });
    expect(second.body).toEqual({ ...expected, approval_chat_enabled: false, company_research: false });
  });

  it("removes caps set to null", async () => {
    const account = await platform.signup();
    await patch(account, { per_end_user_run_limit: 5, per_end_user_cost_limit_cents: 500, per_end_user_rate_per_minute: 3 });
    const { body } = await patch(account, {
      per_end_user_run_limit: null,
      per_end_user_cost_limit_cents: null,
      per_end_user_rate_per_minute: null,
    });
    expect(body).toEqual(defaults);
  });

  it("answers an empty change, or no body at all, with the current settings", async () => {
    const account = await platform.signup();
    await patch(account, { per_end_user_run_limit: 7 });
    const expected = { ...defaults, per_end_user_run_limit: 7 };
    const empty = await patch(account, {});
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual(expected);
    const none = await patch(account);
    expect(none.status).toBe(200);
    expect(none.body).toEqual(expected);
  });

  it("switches strict mode for the very next request", async () => {
    const account = await platform.signup();
    expect((await platform.call("/permissions", { key: account.key })).status).toBe(422);
    expect((await patch(account, { require_end_user_id: false })).body.require_end_user_id).toBe(false);
    expect((await platform.call("/permissions", { key: account.key })).status).toBe(200);
    await patch(account, { require_end_user_id: true });
    expect((await platform.call("/permissions", { key: account.key })).status).toBe(422);
  });

  it("answers 422 naming the field for values out of range or of the wrong type, and changes nothing", async () => {
    const account = await platform.signup();
    const cases: [Record<string, unknown>, string][] = [
      [{ retention_mode: "forever" }, "retention_mode"],
      [{ retention_mode: null }, "retention_mode"],
      [{ require_end_user_id: "yes" }, "require_end_user_id"],
      [{ per_end_user_run_limit: -1 }, "per_end_user_run_limit"],
      [{ per_end_user_run_limit: 2.5 }, "per_end_user_run_limit"],
      [{ per_end_user_cost_limit_cents: "100" }, "per_end_user_cost_limit_cents"],
      [{ per_end_user_cost_limit_cents: 2 ** 31 }, "per_end_user_cost_limit_cents"],
      [{ per_end_user_rate_per_minute: 0 }, "per_end_user_rate_per_minute"],
      [{ approval_email_enabled: 1 }, "approval_email_enabled"],
      [{ approval_chat_enabled: null }, "approval_chat_enabled"],
      [{ company_research: "false" }, "company_research"],
    ];
    for (const [body, field] of cases) {
      const response = await patch(account, body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(response.body.error.type).toBe("validation_error");
      expect(response.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual([field]);
    }
    expect((await platform.call("/settings", { key: account.key })).body).toEqual(defaults);
  });

  it("is account-scoped: user_id in the query string is an unknown parameter", async () => {
    const account = await platform.signup();
    const { status, body } = await patch(account, { approval_email_enabled: false }, { user_id: "u" });
    expect(status).toBe(400);
    expect(body.error.error_code).toBe("unknown_query_parameter");
    expect((await platform.call("/settings", { key: account.key })).body.approval_email_enabled).toBe(true);
  });

  it("changes only the caller's account, and needs a key", async () => {
    const mine = await platform.signup();
    const theirs = await platform.signup();
    await patch(mine, { retention_mode: "metadata_only", require_end_user_id: false });
    expect((await platform.call("/settings", { key: theirs.key })).body).toEqual(defaults);
    const anonymous = await platform.call("/settings", { method: "PATCH", body: { retention_mode: "standard" } });
    expect(anonymous.status).toBe(401);
    expect((await platform.call("/settings", { key: mine.key })).body.retention_mode).toBe("metadata_only");
  });
});
