import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "@/lib/env";

describe("parseEnv", () => {
  it("gives the embedded defaults for an empty environment", () => {
    const env = parseEnv({});
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.PGLITE_DATA_DIR).toBe(".data/pglite");
    expect(env.INLAY_KEY_PREFIX).toBe("sk_inlay_");
    expect(env.INLAY_MODEL_PROVIDER).toBe("sim");
    expect(env.SEED_DEMO_DATA).toBe(true);
    expect(env.usingDevAuthSecret).toBe(true);
  });

  it("reads webhook timings as durations, defaulting to the shipped schedule", () => {
    const defaults = parseEnv({});
    expect(defaults.WEBHOOK_RETRY_SCHEDULE).toEqual([0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(defaults.WEBHOOK_DISABLE_AFTER).toBe(5 * 86_400_000);
    expect(defaults.OUTBOUND_ALLOW_LOOPBACK).toBe(false);
    const short = parseEnv({ WEBHOOK_RETRY_SCHEDULE: "0, 250ms, 1.5s", WEBHOOK_DISABLE_AFTER: "2h" });
    expect(short.WEBHOOK_RETRY_SCHEDULE).toEqual([0, 250, 1_500]);
    expect(short.WEBHOOK_DISABLE_AFTER).toBe(7_200_000);
    expect(() => parseEnv({ WEBHOOK_RETRY_SCHEDULE: "0,5,5m" })).toThrow(/WEBHOOK_RETRY_SCHEDULE: expected durations/);
    expect(() => parseEnv({ WEBHOOK_DISABLE_AFTER: "1d,2d" })).toThrow(/WEBHOOK_DISABLE_AFTER: expected one duration/);
  });

  it("refuses outbound calls to loopback in production", () => {
    expect(() => parseEnv({ NODE_ENV: "production", NEXTAUTH_SECRET: "s".repeat(32), OUTBOUND_ALLOW_LOOPBACK: "true" })).toThrow(
      /OUTBOUND_ALLOW_LOOPBACK: must not be set in production/,
    );
  });

  it("treats blank values as unset", () => {
    expect(parseEnv({ DATABASE_URL: "  ", PLATFORM_BASE_URL: "" }).DATABASE_URL).toBeUndefined();
  });

  it("parses flags and rejects values that are not booleans", () => {
    expect(parseEnv({ SEED_DEMO_DATA: "off" }).SEED_DEMO_DATA).toBe(false);
    expect(() => parseEnv({ SEED_DEMO_DATA: "maybe" })).toThrow(/SEED_DEMO_DATA: expected true or false/);
  });

  it("takes an OAuth provider's id and secret together, or neither", () => {
    expect(parseEnv({ GITHUB_CLIENT_ID: "id", GITHUB_CLIENT_SECRET: "secret" }).GITHUB_CLIENT_ID).toBe("id");
    expect(() => parseEnv({ GITHUB_CLIENT_ID: "id" })).toThrow(/GITHUB_CLIENT_SECRET: set both/);
    expect(() => parseEnv({ GOOGLE_CLIENT_SECRET: "secret" })).toThrow(/GOOGLE_CLIENT_ID: set both/);
  });

  it("rejects a DATABASE_URL that is not PostgreSQL", () => {
    expect(() => parseEnv({ DATABASE_URL: "mysql://localhost/x" })).toThrow(EnvError);
  });

  it("requires NEXTAUTH_SECRET in production but not while building", () => {
    expect(() => parseEnv({ NODE_ENV: "production" })).toThrow(/NEXTAUTH_SECRET: is required in production/);
    expect(parseEnv({ NODE_ENV: "production", NEXT_PHASE: "phase-production-build" }).NODE_ENV).toBe("production");
    expect(parseEnv({ NODE_ENV: "production", NEXTAUTH_SECRET: "s3cret" }).usingDevAuthSecret).toBe(false);
  });

  it("requires the key of the chosen model provider", () => {
    expect(() => parseEnv({ INLAY_MODEL_PROVIDER: "openai" })).toThrow(/OPENAI_API_KEY/);
    expect(() => parseEnv({ INLAY_MODEL_PROVIDER: "openai-compatible" })).toThrow(/OPENAI_COMPATIBLE_BASE_URL/);
    expect(parseEnv({ INLAY_MODEL_PROVIDER: "anthropic", ANTHROPIC_API_KEY: "k" }).INLAY_MODEL_PROVIDER).toBe(
      "anthropic",
    );
  });

  it("requires a key with a remote platform", () => {
    expect(() => parseEnv({ PLATFORM_BASE_URL: "http://127.0.0.1:4010/api/v2" })).toThrow(/PLATFORM_API_KEY/);
  });

  it("runs the app role only on a remote platform and PostgreSQL", () => {
    expect(() => parseEnv({ INLAY_ROLE: "app" })).toThrow(/PLATFORM_BASE_URL: is required with INLAY_ROLE=app[\s\S]*DATABASE_URL: is required/);
    const remote = { INLAY_ROLE: "app", PLATFORM_BASE_URL: "http://127.0.0.1:4010/api/v2", PLATFORM_API_KEY: "sk_inlay_x", DATABASE_URL: "postgres://127.0.0.1/app" };
    expect(parseEnv(remote).INLAY_ROLE).toBe("app");
  });

  it("gives the embedded framework account $1,000 unless told otherwise, and refuses a negative credit", () => {
    expect(parseEnv({}).FRAMEWORK_OPERATOR_CREDIT_MICROS).toBe(1_000_000_000);
    expect(parseEnv({ FRAMEWORK_OPERATOR_CREDIT_MICROS: "0" }).FRAMEWORK_OPERATOR_CREDIT_MICROS).toBe(0);
    expect(() => parseEnv({ FRAMEWORK_OPERATOR_CREDIT_MICROS: "-1" })).toThrow(/FRAMEWORK_OPERATOR_CREDIT_MICROS/);
  });

  it("gives sign-up workspaces small limits by default, a number or none when set, and refuses anything else", () => {
    const defaults = parseEnv({});
    expect([
      defaults.SIGNUP_WORKSPACE_RUNS_PER_MONTH,
      defaults.SIGNUP_WORKSPACE_COST_PER_MONTH_CENTS,
      defaults.SIGNUP_WORKSPACE_CONCURRENT_RUNS,
      defaults.SIGNUP_WORKSPACE_TURNS_PER_MINUTE,
    ]).toEqual([100, 500, 2, 10]);
    const set = parseEnv({ SIGNUP_WORKSPACE_RUNS_PER_MONTH: "0", SIGNUP_WORKSPACE_COST_PER_MONTH_CENTS: " None ", SIGNUP_WORKSPACE_CONCURRENT_RUNS: "" });
    expect([set.SIGNUP_WORKSPACE_RUNS_PER_MONTH, set.SIGNUP_WORKSPACE_COST_PER_MONTH_CENTS, set.SIGNUP_WORKSPACE_CONCURRENT_RUNS]).toEqual([0, null, 2]);
    expect(() => parseEnv({ SIGNUP_WORKSPACE_TURNS_PER_MINUTE: "-3" })).toThrow(/SIGNUP_WORKSPACE_TURNS_PER_MINUTE: expected a whole number or "none"/);
  });
});
