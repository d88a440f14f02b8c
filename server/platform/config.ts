// The platform's dependencies as configured by the environment (lib/env.ts). Tests build their own.
import { env } from "@/lib/env";
import type { Database } from "@/server/db";
import type { PlatformConfig, PlatformDeps } from "./context";
import { createLimiters } from "./middleware/rate-limit";
import { recordingMailer } from "./services/mailer";

export function platformConfigFromEnv(): PlatformConfig {
  return {
    keyPrefix: env.INLAY_KEY_PREFIX,
    rateLimits: {
      accountPerMinute: env.PLATFORM_RATE_LIMIT_ACCOUNT_PER_MINUTE,
      ipPerMinute: env.PLATFORM_RATE_LIMIT_IP_PER_MINUTE,
      signupPerMinute: env.PLATFORM_RATE_LIMIT_SIGNUP_PER_MINUTE,
    },
    trustProxy: env.TRUST_PROXY,
    models: {
      provider: env.INLAY_MODEL_PROVIDER,
      defaultModel: env.INLAY_DEFAULT_MODEL,
      openaiConfigured: env.OPENAI_API_KEY !== undefined,
      anthropicConfigured: env.ANTHROPIC_API_KEY !== undefined,
      compatibleModel: env.OPENAI_COMPATIBLE_BASE_URL ? (env.INLAY_DEFAULT_MODEL ?? "local") : undefined,
    },
  };
}

export function platformDepsFromEnv(database: () => Promise<Database>): PlatformDeps {
  const config = platformConfigFromEnv();
  return {
    database,
    config,
    limiters: createLimiters({ ...config.rateLimits, store: env.RATE_LIMIT_STORE, redisUrl: env.REDIS_URL }),
    mailer: recordingMailer,
  };
}
