// The language model behind a catalogue id: the real provider packages for OpenAI, Anthropic and
// OpenAI-compatible servers, and the sim model (built elsewhere, passed in) for `inlay/sim`.
//
// Credentials and endpoints come from ModelSettings only. Every provider is given its key and base
// URL explicitly, because the provider packages otherwise fall back to reading process.env
// themselves (OPENAI_API_KEY, ANTHROPIC_BASE_URL, …), and lib/env.ts is the one place that may.
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3, LanguageModelV4 } from "@ai-sdk/provider";
import { guardedStreamingFetch, type OutboundOptions } from "../outbound/guarded-fetch";
import { findModel, type ModelSettings } from "./catalog";

/** The providers' public endpoints, used when no base URL is configured. */
export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";
export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com/v1";

/** What the runtime runs: the providers speak the SDK's v4 model interface, the sim model v3. */
export type RuntimeModel = LanguageModelV3 | LanguageModelV4;

export interface LanguageModelSources {
  /** Builds the model behind `inlay/sim` (server/platform/models/sim.ts). */
  sim?: () => LanguageModelV3;
}

/** A model id the catalogue does not list, or a listed model with no credentials to call it. */
export class ModelUnavailableError extends Error {
  override name = "ModelUnavailableError";
  readonly modelId: string;

  constructor(modelId: string, message: string) {
    super(message);
    this.modelId = modelId;
  }
}

/**
 * The provider model for a catalogue id or alias (`openai/gpt-4.1-mini`, `sonnet`,
 * `openai-compatible/llama3.1`, `inlay/sim`). Throws ModelUnavailableError for an id the catalogue
 * does not list under these settings, or whose provider has no credentials.
 */
export function languageModelFor(
  settings: ModelSettings,
  modelId: string,
  sources: LanguageModelSources = {},
): RuntimeModel {
  const entry = findModel(settings, modelId);
  if (!entry) {
    throw new ModelUnavailableError(
      modelId,
      `Unknown model "${modelId}": not in this deployment's catalogue (GET /models lists the configured models).`,
    );
  }
  // The catalogue id is `<provider>/<the provider's own model name>`.
  const providerModel = entry.id.slice(entry.author.length + 1);

  switch (entry.author) {
    case "inlay": {
      if (!sources.sim) {
        throw new ModelUnavailableError(entry.id, `Model "${entry.id}" needs the sim model, and none was supplied.`);
      }
      return sources.sim();
    }
    case "openai": {
      const openai = settings.openai;
      if (!openai) throw missingCredentials(entry.id, "OPENAI_API_KEY");
      // Chat Completions rather than the Responses API: it is stateless (the Responses API stores
      // responses by default), and it is the dialect that proxies and gateways behind
      // OPENAI_BASE_URL speak.
      return createOpenAI({ apiKey: openai.apiKey, baseURL: openai.baseUrl ?? OPENAI_DEFAULT_BASE_URL }).chat(
        providerModel,
      );
    }
    case "anthropic": {
      const anthropic = settings.anthropic;
      if (!anthropic) throw missingCredentials(entry.id, "ANTHROPIC_API_KEY");
      return createAnthropic({
        apiKey: anthropic.apiKey,
        baseURL: anthropic.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL,
      }).messages(providerModel);
    }
    case "openai-compatible": {
      const compatible = settings.openaiCompatible;
      if (!compatible) throw missingCredentials(entry.id, "OPENAI_COMPATIBLE_BASE_URL");
      return createOpenAICompatible({
        name: "openai-compatible",
        baseURL: compatible.baseUrl,
        apiKey: compatible.apiKey,
        // Ask for the usage chunk at the end of a stream (stream_options.include_usage), so runs can
        // meter tokens; Ollama, vLLM and llama.cpp's server all send it.
        includeUsage: true,
      }).chatModel(providerModel);
    }
  }
}

function missingCredentials(modelId: string, variable: string): ModelUnavailableError {
  return new ModelUnavailableError(
    modelId,
    `Model "${modelId}" is listed but its provider is not configured: set ${variable} (see .env.example).`,
  );
}

/** What an account's own model connection gives a run (services/models/model-connections.ts). */
export interface OwnCredentials {
  api: "openai" | "anthropic" | "openai-compatible";
  apiKey?: string;
  /** A bearer token in place of an API key (a pasted or authorized provA connection). */
  authToken?: string;
  baseUrl: string | null;
  outbound: OutboundOptions;
  /** The provider refused the credentials (401 or 403): the connection's account is marked failed. */
  onRejected?: (status: number) => Promise<void>;
  /** Names the connection in the run's error. */
  provider?: string;
}

/**
 * A refusal of the account's own credentials fails the run with a clear error (and no retries, which
 * the SDK would make of its own API error), never a fallback to the platform's funding.
 */
function rejectingFetch(inner: typeof fetch, own: OwnCredentials): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.status === 401 || response.status === 403) {
      await response.body?.cancel();
      await own.onRejected?.(response.status).catch(() => {});
      throw new Error(
        `MODEL_CONNECTION_REJECTED: ${own.provider ?? own.api} refused the account's own credentials (HTTP ${response.status}); connect it again (PUT or POST /model-connections/…)`,
      );
    }
    return response;
  };
}

/**
 * The provider model for `modelId` called with an account's own credentials. The base URL is the
 * account's (or the operator's), so every request leaves through the outbound guard.
 */
export function ownLanguageModel(settings: ModelSettings, modelId: string, own: OwnCredentials): RuntimeModel {
  const entry = findModel(settings, modelId);
  if (!entry) throw new ModelUnavailableError(modelId, `Unknown model "${modelId}": not in this deployment's catalogue.`);
  const providerModel = entry.id.slice(entry.author.length + 1);
  // Connecting and the response headers within 2 minutes; a stream may then last as long as it is never silent.
  const fetch = rejectingFetch(guardedStreamingFetch({ ...own.outbound, timeoutMs: 120_000 }), own);
  switch (own.api) {
    case "openai":
      return createOpenAI({ apiKey: own.apiKey, baseURL: own.baseUrl ?? OPENAI_DEFAULT_BASE_URL, fetch }).chat(providerModel);
    case "anthropic":
      return createAnthropic({
        ...(own.authToken ? { authToken: own.authToken } : { apiKey: own.apiKey }),
        baseURL: own.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL,
        fetch,
      }).messages(providerModel);
    case "openai-compatible":
      if (!own.baseUrl) throw new ModelUnavailableError(entry.id, `Model "${entry.id}" needs the connection's base_url.`);
      return createOpenAICompatible({ name: "openai-compatible", baseURL: own.baseUrl, apiKey: own.apiKey, includeUsage: true, fetch }).chatModel(providerModel);
  }
}
