// Model connections (/model-connections): an account's own credentials for a model provider. Its runs
// on that provider's models use them and settle on the own_sub meter, not the balance. Secrets are
// write-only: no response carries one.
import { z } from "zod";
import { IntId, Timestamp } from "./common";

/**
 * The provider slugs. `provA` is the spec's neutral name of the provider whose tokens can be pasted
 * (and that offers an authorization flow); it runs the catalogue's `anthropic` models.
 */
export const MODEL_CONNECTION_PROVIDERS = ["openai", "anthropic", "openai-compatible", "provA"] as const;
export type ModelConnectionProvider = (typeof MODEL_CONNECTION_PROVIDERS)[number];

export const MODEL_CONNECTION_METHODS = ["api_key", "paste", "authorization"] as const;
export const MODEL_AUTHORIZATION_STATUSES = ["pending", "completed", "cancelled", "expired", "failed"] as const;

/** Provider-side accounts one connection may hold. */
export const MAX_PROVIDER_ACCOUNTS = 5;
/** Authorizations an account may have pending at once. */
export const MAX_PENDING_AUTHORIZATIONS = 5;
/** How long an authorization waits for its code. */
export const AUTHORIZATION_TTL_MS = 10 * 60_000;
export const API_KEY_MAX_CHARS = 4_096;
export const TOKEN_MAX_CHARS = 8_192;
export const LABEL_MAX_CHARS = 100;

export const ProviderParam = z.object({
  provider: z.string().meta({ description: `A provider slug: ${MODEL_CONNECTION_PROVIDERS.join(", ")}` }),
});
export const ProviderAccountParam = ProviderParam.extend({
  account_id: IntId.meta({ description: "The id of one provider-side account of the connection (accounts[].id)" }),
});
export const AuthorizationParam = ProviderParam.extend({
  state: z.string().min(1).max(200).meta({ description: "The state the start call returned" }),
});

export const ProviderAccount = z
  .object({
    id: z.number().int(),
    method: z.enum(MODEL_CONNECTION_METHODS).meta({ description: "How the credentials were captured" }),
    label: z.string().nullable(),
    status: z.enum(["connected", "expired", "failed"]).meta({
      description: "connected; expired (past expires_at, no refresh token); failed (a refresh was refused: connect again)",
    }),
    base_url: z.string().nullable().meta({ description: "The API base URL the account's calls go to; null = the provider's own" }),
    expires_at: Timestamp.nullable(),
    last_error: z.string().nullable(),
    created_at: Timestamp,
  })
  .meta({ id: "ModelProviderAccount" });

export const ModelConnection = z
  .object({
    provider: z.enum(MODEL_CONNECTION_PROVIDERS),
    status: z.enum(["connected", "not_connected", "expired", "failed"]).meta({
      description: "connected when one of its accounts is usable; else the state of its newest account, or not_connected",
    }),
    connected: z.boolean(),
    methods: z.array(z.enum(MODEL_CONNECTION_METHODS)).meta({ description: "The ways this provider can be connected here" }),
    serves: z.string().meta({ description: "The catalogue author (GET /models) whose models this connection runs" }),
    default_model: z.string().nullable().meta({ description: "Set by PATCH …/default-model; null = the provider's platform default" }),
    effective_default_model: z.string().nullable().meta({ description: "The model a run without a model uses when this provider is the preferred default" }),
    preferred_default: z.boolean(),
    accounts: z.array(ProviderAccount),
    connected_at: Timestamp.nullable(),
  })
  .meta({ id: "ModelConnection" });
export type ModelConnection = z.infer<typeof ModelConnection>;

export const ModelConnectionList = z
  .object({
    data: z.array(ModelConnection),
    preferred_default: z.enum(MODEL_CONNECTION_PROVIDERS).nullable(),
  })
  .meta({ id: "ModelConnectionList" });
export type ModelConnectionList = z.infer<typeof ModelConnectionList>;

export const PasteConnectionRequest = z.object({
  access_token: z.string().trim().min(1, "must not be blank").max(TOKEN_MAX_CHARS, `must be at most ${TOKEN_MAX_CHARS} characters`),
  refresh_token: z.string().trim().min(1, "must not be blank").max(TOKEN_MAX_CHARS, `must be at most ${TOKEN_MAX_CHARS} characters`).optional(),
  expires_at_ms: z.number().int("must be an integer (epoch milliseconds)").positive("must be epoch milliseconds").optional(),
});
export type PasteConnectionRequest = z.infer<typeof PasteConnectionRequest>;

export const ApiKeyConnectionRequest = z.object({
  api_key: z.string().trim().min(1, "must not be blank").max(API_KEY_MAX_CHARS, `must be at most ${API_KEY_MAX_CHARS} characters`),
  base_url: z.string().trim().max(2_048).url("must be a URL").optional().meta({
    description: "Required for openai-compatible; optional for openai and anthropic (a gateway). Checked by the outbound guard.",
  }),
  label: z.string().trim().min(1).max(LABEL_MAX_CHARS).optional().meta({
    description: "Names the provider-side account; a key with a label already present replaces that account's key (default \"default\")",
  }),
});
export type ApiKeyConnectionRequest = z.infer<typeof ApiKeyConnectionRequest>;

export const DefaultModelRequest = z.object({
  model: z
    .string({ error: "is required: a model id or alias of this provider, or null" })
    .trim()
    .min(1, "must not be blank")
    .nullable()
    .meta({ description: "A known id or alias of the provider's models; null restores its platform default" }),
});

export const ModelAuthorization = z
  .object({
    state: z.string(),
    provider: z.enum(MODEL_CONNECTION_PROVIDERS),
    status: z.enum(MODEL_AUTHORIZATION_STATUSES),
    authorization_url: z.string().nullable().meta({ description: "Where the person signs in; null once the authorization is no longer pending" }),
    expires_at: Timestamp,
    error: z.string().nullable(),
    account_id: z.number().int().nullable().meta({ description: "The provider-side account it connected (status completed)" }),
    created_at: Timestamp,
  })
  .meta({ id: "ModelAuthorization" });
export type ModelAuthorization = z.infer<typeof ModelAuthorization>;

export const CompleteAuthorizationRequest = z.object({
  code: z.string().trim().min(1, "must not be blank").max(TOKEN_MAX_CHARS),
  project_id: z.string().trim().min(1, "must not be blank").max(200).optional(),
});
