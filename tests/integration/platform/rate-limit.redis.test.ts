// Several instances behind a load balancer share one allowance when the limiter's counters are in Redis.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

// The machine runs Redis on loopback for every session and for CI.
// eslint-disable-next-line no-restricted-properties -- test infrastructure, not app configuration
const redisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

describe("rate limits with RATE_LIMIT_STORE=redis", () => {
  let first: PlatformHarness;
  let second: PlatformHarness;
  const keyPrefix = `rl-test-${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    const options = { store: "redis" as const, redisUrl, limiterKeyPrefix: keyPrefix, rateLimits: { ipPerMinute: 4 } };
    first = await startPlatform(options);
    second = await startPlatform(options);
  });
  afterAll(async () => {
    await first.close();
    await second.close();
  });

  it("counts requests from one IP across instances", async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await first.request("/openapi.json")).status);
      statuses.push((await second.request("/openapi.json")).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    const refused = await second.request("/openapi.json");
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("x-request-id")).toMatch(/^req_/);
  });
});
