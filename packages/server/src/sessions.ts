// Minting a chat session from the vendor's backend: the embed secret (Inlay's Admin → Embed) names the
// workspace, the body names the vendor's user. The token it answers is short-lived (at most 10
// minutes) and bound to one page origin; the browser components ask your backend again before it
// expires, so your route stays the one place that decides who may chat.
import type { EmbedSessionInput } from "@inlay/core/schemas/embed";

export interface InlayServerOptions {
  /** Inlay's origin, e.g. https://inlay.example.com (the app, not its /api/v2). */
  url: string;
  /** An embed secret of the workspace (inlay_es_…). Keep it on the server. */
  secret: string;
  /** The fetch to send with (the global one by default). */
  fetch?: typeof fetch;
}

export interface MintSessionInput {
  /** Your own id of the user: the same id is the same member of the workspace, made on first use. */
  userId: string;
  email: string;
  name?: string;
  /** A workspace agent (its name or id); the session then opens only that one. */
  agent?: string;
  /** The page's origin the chat runs on; may be left out when the workspace allows exactly one. */
  origin?: string;
  /** 30 to 600 seconds (default 300). */
  ttlSeconds?: number;
}

export interface MintedSession {
  token: string;
  /** ISO 8601. */
  expires_at: string;
  /** The workspace's slug. */
  tenant: string;
  origin: string;
  agent?: string;
  /** Whose conversations @inlay/react keeps in the browser (opaque): a reload shows them again. */
  storage_scope: string;
}

/** Inlay refused the mint: `code` says why (invalid_secret, agent_not_found, origin_not_allowed, …). */
export class InlaySessionError extends Error {
  override name = "InlaySessionError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The input field the refusal is about. */
    readonly field?: string,
  ) {
    super(message);
  }
}

export interface InlayServer {
  sessions: {
    /** A session for your user, or InlaySessionError. Answer it to your page as JSON as it is. */
    create(input: MintSessionInput): Promise<MintedSession>;
  };
}

const FIELDS: Record<string, keyof MintSessionInput> = { user_id: "userId", ttl_seconds: "ttlSeconds" };

/**
 * Reads nothing until a session is minted, so it may be made at module level from the environment
 * (a framework's build imports the module without the run-time environment): a missing url or
 * secret is said then, naming it.
 */
export function createInlayServer(options: InlayServerOptions): InlayServer {
  const send = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  return {
    sessions: {
      async create(input) {
        if (!options.url) throw new TypeError("createInlayServer: url (Inlay's origin) is missing");
        if (!options.secret) throw new TypeError("createInlayServer: secret (an embed secret from Admin → Embed) is missing");
        const base = options.url.replace(/\/+$/, "");
        const body: EmbedSessionInput = {
          user_id: input.userId,
          email: input.email,
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.agent !== undefined ? { agent: input.agent } : {}),
          ...(input.origin !== undefined ? { origin: input.origin } : {}),
          ...(input.ttlSeconds !== undefined ? { ttl_seconds: input.ttlSeconds } : {}),
        };
        const response = await send(`${base}/api/embed/sessions`, {
          method: "POST",
          headers: { authorization: `Bearer ${options.secret}`, "content-type": "application/json" },
          body: JSON.stringify(body),
          cache: "no-store",
        });
        const answer = (await response.json().catch(() => null)) as
          | (MintedSession & { error?: undefined })
          | { error?: { message?: string; code?: string; field?: string } }
          | null;
        if (response.ok && answer && !answer.error) return answer as MintedSession;
        const error = answer?.error;
        const field = error?.field === undefined ? undefined : (FIELDS[error.field] ?? error.field);
        throw new InlaySessionError(
          response.status,
          error?.code ?? "unexpected_response",
          error?.message ?? `Inlay answered ${response.status} without an error body`,
          field,
        );
      },
    },
  };
}
