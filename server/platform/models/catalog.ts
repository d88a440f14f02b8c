// The model catalogue (GET /models): the deterministic `sim` model, always, plus the models of every
// provider configured by the environment. Agents and runs name a model by id or short alias.

export type Effort = "low" | "medium" | "high" | "xhigh" | "max";
export const EFFORTS: readonly Effort[] = ["low", "medium", "high", "xhigh", "max"];

export type ProviderSlug = "inlay" | "openai" | "anthropic" | "openai-compatible";

export interface ModelEntry {
  id: string;
  name: string;
  author: ProviderSlug;
  aliases: string[];
  curated: boolean;
  /** Provider-level zero-data-retention capability only. */
  zdr_supported: boolean;
  zdr_providers: string[];
  max_effort: "high" | "max";
  context_window: number;
  /** USD per million tokens, as decimal strings. */
  pricing: { input_per_million: string; output_per_million: string; cache_read_per_million: string };
}

export interface ModelSettings {
  provider: "sim" | "openai" | "anthropic" | "openai-compatible";
  defaultModel?: string;
  /** List the OpenAI models in the catalogue. */
  openaiConfigured: boolean;
  /** List the Anthropic models in the catalogue. */
  anthropicConfigured: boolean;
  /** The model served by an OpenAI-compatible server (Ollama, vLLM), when one is configured. */
  compatibleModel?: string;
  // What the run runtime needs to call each provider (server/platform/models/providers.ts).
  // The flags above decide what GET /models lists; these decide whether a listed model can be called.
  // Kept apart so tests can list a provider without holding a key; from the environment, both come
  // from the same variables. An unset base URL means the provider's public endpoint.
  openai?: { apiKey: string; baseUrl?: string };
  anthropic?: { apiKey: string; baseUrl?: string };
  /** The server behind `compatibleModel`; the key is optional (Ollama needs none). */
  openaiCompatible?: { baseUrl: string; apiKey?: string };
  /** Accounts' own model connections (services/models/model-connections.ts). */
  connections?: ModelConnectionSettings;
}

/**
 * The provider whose tokens can be pasted (`provA`): its authorization flow (authorization code with
 * PKCE; the person pastes the code the provider shows), when the deployment registered a client with
 * it, and where its tokens are used.
 */
export interface ModelConnectionSettings {
  provA?: {
    /** The OAuth client; without one, provA can only be pasted. */
    oauth?: { clientId: string; clientSecret?: string; authorizationUrl: string; tokenUrl: string; redirectUri: string; scopes: string[] };
    /** The Anthropic-compatible API its tokens call; default the Anthropic endpoint. */
    apiBaseUrl?: string;
  };
}

const price = (input: string, output: string, cacheRead: string) => ({
  input_per_million: input,
  output_per_million: output,
  cache_read_per_million: cacheRead,
});

const SIM: ModelEntry = {
  id: "inlay/sim",
  name: "Inlay sim (deterministic, offline)",
  author: "inlay",
  aliases: ["sim"],
  curated: true,
  zdr_supported: true,
  zdr_providers: ["inlay"],
  max_effort: "max",
  context_window: 1_000_000,
  // A nominal price, like a small hosted model's, so metering, the ledger and the caps work the same
  // with the sim as with a paid provider; the signup credit pays for thousands of sim runs.
  pricing: price("1.00", "2.00", "0.10"),
};

// List prices as published by the providers; the runs work meters cost from these.
const OPENAI: ModelEntry[] = [
  { id: "openai/gpt-4.1", name: "GPT-4.1", aliases: ["gpt-4.1"], curated: true, context_window: 1_047_576, pricing: price("2.00", "8.00", "0.50") },
  { id: "openai/gpt-4.1-mini", name: "GPT-4.1 mini", aliases: ["gpt-4.1-mini"], curated: true, context_window: 1_047_576, pricing: price("0.40", "1.60", "0.10") },
  { id: "openai/gpt-4o-mini", name: "GPT-4o mini", aliases: ["gpt-4o-mini"], curated: false, context_window: 128_000, pricing: price("0.15", "0.60", "0.075") },
  { id: "openai/o4-mini", name: "o4-mini", aliases: ["o4-mini"], curated: false, context_window: 200_000, pricing: price("1.10", "4.40", "0.275") },
].map((entry) => ({ ...entry, author: "openai" as const, zdr_supported: true, zdr_providers: ["openai"], max_effort: "high" as const }));

// The Claude family is the one whose effort goes up to `max` (extended thinking).
const ANTHROPIC: ModelEntry[] = [
  { id: "anthropic/claude-sonnet-4-5", name: "Claude Sonnet 4.5", aliases: ["sonnet", "claude-sonnet-4-5"], curated: true, context_window: 200_000, pricing: price("3.00", "15.00", "0.30") },
  { id: "anthropic/claude-haiku-4-5", name: "Claude Haiku 4.5", aliases: ["haiku", "claude-haiku-4-5"], curated: true, context_window: 200_000, pricing: price("1.00", "5.00", "0.10") },
  { id: "anthropic/claude-opus-4-1", name: "Claude Opus 4.1", aliases: ["opus", "claude-opus-4-1"], curated: false, context_window: 200_000, pricing: price("15.00", "75.00", "1.50") },
].map((entry) => ({ ...entry, author: "anthropic" as const, zdr_supported: true, zdr_providers: ["anthropic"], max_effort: "max" as const }));

function compatibleEntry(model: string): ModelEntry {
  return {
    id: `openai-compatible/${model}`,
    name: `${model} (OpenAI-compatible server)`,
    author: "openai-compatible",
    aliases: [model],
    curated: true,
    // A server you run yourself keeps nothing with a third party.
    zdr_supported: true,
    zdr_providers: ["self-hosted"],
    max_effort: "high",
    context_window: 128_000,
    pricing: price("0", "0", "0"),
  };
}

export interface CatalogEntry extends ModelEntry {
  default: boolean;
}

export function modelCatalog(settings: ModelSettings): CatalogEntry[] {
  const entries = [
    SIM,
    ...(settings.openaiConfigured ? OPENAI : []),
    ...(settings.anthropicConfigured ? ANTHROPIC : []),
    ...(settings.compatibleModel ? [compatibleEntry(settings.compatibleModel)] : []),
  ];
  const preferred =
    (settings.defaultModel && entries.find((entry) => matches(entry, settings.defaultModel!))) ||
    entries.find((entry) => entry.author === providerSlug(settings.provider)) ||
    SIM;
  return entries.map((entry) => ({ ...entry, default: entry.id === preferred.id }));
}

function providerSlug(provider: ModelSettings["provider"]): ProviderSlug {
  return provider === "sim" ? "inlay" : provider;
}

const matches = (entry: ModelEntry, name: string) => entry.id === name || entry.aliases.includes(name);

/** The catalogue entry an id or alias names, or undefined. */
export function findModel(settings: ModelSettings, name: string): CatalogEntry | undefined {
  return modelCatalog(settings).find((entry) => matches(entry, name));
}

export function defaultModel(settings: ModelSettings): CatalogEntry {
  const entry = modelCatalog(settings).find((candidate) => candidate.default);
  if (!entry) throw new Error("the model catalogue has no default entry");
  return entry;
}

/** xhigh and max are clamped to high on models whose ceiling is high; never rejected. */
export function clampEffort(effort: Effort, model: ModelEntry): Effort {
  if (model.max_effort === "high" && (effort === "xhigh" || effort === "max")) return "high";
  return effort;
}

/** The effort a run uses when nobody set one: max on the max family, high elsewhere. */
export const defaultEffort = (model: ModelEntry): Effort => (model.max_effort === "max" ? "max" : "high");

// ---------------------------------------------------------------------------------------------
// Cost. A price in USD per million tokens is exactly micro-USD per token, so a model call's cost in
// micro-USD is tokens × price; prices carry up to six decimals, so the sum is exact in millionths of
// a micro-USD and rounded up once per call.

const PRICE_SCALE = 1_000_000n;

/** "0.075" → 75_000n: the price in millionths of a micro-USD per token. */
export function priceUnits(price: string): bigint {
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(price);
  if (!match) throw new Error(`not a price with at most six decimals: "${price}"`);
  return BigInt(match[1]!) * PRICE_SCALE + BigInt((match[2] ?? "").padEnd(6, "0"));
}

export interface CallTokens {
  /** Every input token, cached or not (the AI SDK's inputTokens). */
  inputTokens: number;
  outputTokens: number;
  /** The part of inputTokens read from the provider's cache (priced at cache_read_per_million). */
  cacheReadTokens: number;
}

/** The cost of one model call in micro-USD, rounded up. Cache writes are priced as input. */
export function callCostMicros(pricing: ModelEntry["pricing"], tokens: CallTokens): bigint {
  const cacheRead = BigInt(Math.min(tokens.cacheReadTokens, tokens.inputTokens));
  const uncached = BigInt(tokens.inputTokens) - cacheRead;
  const units =
    uncached * priceUnits(pricing.input_per_million) +
    cacheRead * priceUnits(pricing.cache_read_per_million) +
    BigInt(tokens.outputTokens) * priceUnits(pricing.output_per_million);
  return (units + PRICE_SCALE - 1n) / PRICE_SCALE;
}

/**
 * The price a run is metered at: its catalogue entry. A model no longer listed (a provider's env was
 * removed while its runs existed) is priced like the sim rather than for free.
 */
export function pricingOf(settings: ModelSettings, modelId: string): ModelEntry["pricing"] {
  return (findModel(settings, modelId) ?? SIM).pricing;
}
