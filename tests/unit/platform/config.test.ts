import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { platformConfigFromEnv } from "@/server/platform/config";

const modelsFrom = (source: Record<string, string>) => platformConfigFromEnv(parseEnv(source)).models;

describe("platformConfigFromEnv: models", () => {
  it("configures no provider but sim by default", () => {
    expect(modelsFrom({})).toEqual({
      provider: "sim",
      defaultModel: undefined,
      openaiConfigured: false,
      anthropicConfigured: false,
      compatibleModel: undefined,
      openai: undefined,
      anthropic: undefined,
      openaiCompatible: undefined,
      // Model connections: provA's OAuth client and API base, unset.
      connections: { provA: { apiBaseUrl: undefined, oauth: undefined } },
    });
  });

  it("carries each provider's key and base URL", () => {
    const models = modelsFrom({
      INLAY_MODEL_PROVIDER: "anthropic",
      OPENAI_API_KEY: "sk-openai",
      OPENAI_BASE_URL: "https://gateway.example.test/openai/v1",
      ANTHROPIC_API_KEY: "sk-ant",
      OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:11434/v1",
      OPENAI_COMPATIBLE_API_KEY: "ollama",
    });
    expect(models).toMatchObject({
      provider: "anthropic",
      openaiConfigured: true,
      anthropicConfigured: true,
      openai: { apiKey: "sk-openai", baseUrl: "https://gateway.example.test/openai/v1" },
      anthropic: { apiKey: "sk-ant", baseUrl: undefined },
      openaiCompatible: { baseUrl: "http://127.0.0.1:11434/v1", apiKey: "ollama" },
    });
  });

  it("names the OpenAI-compatible model after INLAY_DEFAULT_MODEL, bare or as a catalogue id", () => {
    const base = { INLAY_MODEL_PROVIDER: "openai-compatible", OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:8000/v1" };
    expect(modelsFrom(base).compatibleModel).toBe("local");
    expect(modelsFrom({ ...base, INLAY_DEFAULT_MODEL: "llama3.1" }).compatibleModel).toBe("llama3.1");
    expect(modelsFrom({ ...base, INLAY_DEFAULT_MODEL: "openai-compatible/llama3.1" }).compatibleModel).toBe("llama3.1");
    expect(modelsFrom({ ...base, INLAY_DEFAULT_MODEL: "llama3.1" }).openaiCompatible).toEqual({
      baseUrl: "http://127.0.0.1:8000/v1",
      apiKey: undefined,
    });
  });
});

describe("platformConfigFromEnv: sign-up", () => {
  it("is closed in production and open elsewhere unless INLAY_SIGNUP says", () => {
    const signupFrom = (source: Record<string, string>) => platformConfigFromEnv(parseEnv(source)).signup;
    const production = { NODE_ENV: "production", NEXTAUTH_SECRET: "a-production-secret-of-some-length" };
    expect(signupFrom(production)).toBe("closed");
    expect(signupFrom({ ...production, INLAY_SIGNUP: "invite" })).toBe("invite");
    expect(signupFrom({ ...production, INLAY_SIGNUP: "open" })).toBe("open");
    expect(signupFrom({ NODE_ENV: "development" })).toBe("open");
    expect(() => parseEnv({ INLAY_SIGNUP: "sometimes" })).toThrow(/INLAY_SIGNUP/);
  });
});
