// Request limits (rate-limiter-flexible): per account across all its keys, per IP for requests
// without a valid key, POST /signup per IP, and password checks (session login, password change) per IP. Counters live in this process by default or in Redis
// when several instances share the load. Every response says where the caller stands
// (X-RateLimit-Limit/-Remaining/-Reset); past the limit, 429 with Retry-After.
import { Redis } from "ioredis";
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from "rate-limiter-flexible";
import type { MiddlewareHandler } from "hono";
import type { Limiters, PlatformEnv } from "../context";
import { PlatformError } from "../errors";
import { clientIp } from "./client-ip";

export interface LimiterOptions {
  accountPerMinute: number;
  ipPerMinute: number;
  signupPerMinute: number;
  /** Password attempts per IP (POST /account/sessions, /account/password); default 10, the spec's login limit. */
  loginPerMinute?: number;
  store: "memory" | "redis";
  redisUrl?: string;
  /** Keeps the counters of different test runs or deployments apart in a shared Redis. */
  keyPrefix?: string;
}

export function createLimiters(options: LimiterOptions): Limiters {
  const prefix = options.keyPrefix ?? "inlay";
  const specs = {
    account: options.accountPerMinute,
    ip: options.ipPerMinute,
    signup: options.signupPerMinute,
    login: options.loginPerMinute ?? 10,
  };
  if (options.store === "redis") {
    if (!options.redisUrl) throw new Error("RATE_LIMIT_STORE=redis needs REDIS_URL");
    const redis = new Redis(options.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
    const make = (name: string, points: number) =>
      new RateLimiterRedis({ storeClient: redis, points, duration: 60, keyPrefix: `${prefix}:rl:${name}` });
    return {
      account: make("account", specs.account),
      ip: make("ip", specs.ip),
      signup: make("signup", specs.signup),
      login: make("login", specs.login),
      close: async () => void (await redis.quit()),
    };
  }
  const make = (name: string, points: number) =>
    new RateLimiterMemory({ points, duration: 60, keyPrefix: `${prefix}:rl:${name}` });
  return {
    account: make("account", specs.account),
    ip: make("ip", specs.ip),
    signup: make("signup", specs.signup),
    login: make("login", specs.login),
    close: async () => {},
  };
}

interface Outcome {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetAt: number;
  retryAfter: number;
}

async function consume(limiter: RateLimiterAbstract, key: string): Promise<Outcome> {
  let result: RateLimiterRes;
  let allowed = true;
  try {
    result = await limiter.consume(key);
  } catch (rejection) {
    // rate-limiter-flexible rejects with the RateLimiterRes when the limit is reached, and with an
    // Error when the store fails; the latter is a server fault, not a verdict on the caller.
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    result = rejection;
    allowed = false;
  }
  return {
    allowed,
    limit: limiter.points,
    remaining: Math.max(0, result.remainingPoints),
    resetAt: Math.ceil((Date.now() + result.msBeforeNext) / 1000),
    retryAfter: Math.max(1, Math.ceil(result.msBeforeNext / 1000)),
  };
}

function setHeaders(c: Parameters<MiddlewareHandler<PlatformEnv>>[0], outcome: Outcome) {
  c.header("X-RateLimit-Limit", String(outcome.limit));
  c.header("X-RateLimit-Remaining", String(outcome.remaining));
  c.header("X-RateLimit-Reset", String(outcome.resetAt));
}

/** The general limit: the account for a valid key, the IP otherwise. Runs after authentication. */
export const rateLimit: MiddlewareHandler<PlatformEnv> = async (c, next) => {
  const { limiters, config } = c.var.deps;
  const auth = c.var.auth;
  const outcome = auth
    ? await consume(limiters.account, `a${auth.accountId}`)
    : await consume(limiters.ip, clientIp(c, config.trustProxy));
  setHeaders(c, outcome);
  if (!outcome.allowed) {
    if (!auth) {
      // The spec's one exception to the envelope: unauthenticated throttling answers {detail}.
      return c.json(
        { detail: `Request was throttled. Expected available in ${outcome.retryAfter} seconds.` },
        429,
        { "Retry-After": String(outcome.retryAfter) },
      );
    }
    throw new PlatformError({
      type: "rate_limit_error",
      message: `rate limit of ${outcome.limit} requests per minute reached; retry in ${outcome.retryAfter} s`,
      headers: { "Retry-After": String(outcome.retryAfter) },
    });
  }
  await next();
};

/** A limit per IP of its own for one kind of request, on top of the general one. */
const perIpLimit =
  (limiter: "signup" | "login", what: string): MiddlewareHandler<PlatformEnv> =>
  async (c, next) => {
    const { limiters, config } = c.var.deps;
    const outcome = await consume(limiters[limiter], clientIp(c, config.trustProxy));
    if (!outcome.allowed) {
      setHeaders(c, outcome);
      return c.json(
        { detail: `Too many ${what} from this address. Expected available in ${outcome.retryAfter} seconds.` },
        429,
        { "Retry-After": String(outcome.retryAfter) },
      );
    }
    await next();
  };

/** POST /signup's own limit per IP. */
export const signupRateLimit = perIpLimit("signup", "signups");

/** Password guesses per IP: session login and password change. */
export const loginRateLimit = perIpLimit("login", "password attempts");
