// How the framework reaches the platform. Two modes:
//
// - Remote (PLATFORM_BASE_URL and PLATFORM_API_KEY set): that platform, with that key, unchanged.
// - Embedded (the default): the platform mounted at /api/v2 of this same app, called in-process: the
//   client's `fetch` hands each Request straight to the Hono app's fetch, so there is no network hop,
//   no port to know and no loopback socket, yet every call still goes through the platform's full HTTP
//   layer (auth, rate limits, validation, errors) exactly as a remote one would. On first start the
//   framework signs up its own platform account (POST /signup through the client) and keeps the key
//   sealed with AES-256-GCM in framework_platform_accounts. Several instances starting at once
//   converge on one account: the first to insert the row holds the claim and signs up; the others
//   wait for the key; a claim left unfinished for CLAIM_STALE_MS is taken over. Since this is the
//   vendor's own installation, the account is marked verified and credited through the platform's
//   services (operator-only functions, not reachable through the API).
import { randomBytes, randomUUID } from "node:crypto";
import { logger } from "@/lib/logger";
import { createPlatformClient, signup, type CallReport, type ClientOptions, type PlatformClient } from "@inlay/core/platform-client";
import type { Db } from "@/server/shared/db";
import {
  completeFrameworkAccount,
  findFrameworkAccount,
  insertFrameworkAccountClaim,
  takeOverFrameworkAccountClaim,
} from "./platform-repository";
import { openWithKeys, seal } from "@/server/shared/secret-box";
import { keysFor, PLATFORM_API_KEY } from "./sealing";
import { tracedFetch } from "../tracing";

export interface PlatformConnection {
  mode: "embedded" | "remote";
  /** The account view (no user scope): settings, /users, usage. Bind with forUser for member calls. */
  client: PlatformClient;
  /** The options the client was made with (its key and base URL; the key stays in memory only). */
  options: ClientOptions;
}

/** Base URL of in-process calls: the host is never resolved, the path is what the Hono app routes. */
export const EMBEDDED_BASE_URL = "http://embedded.inlay.internal/api/v2";
const CLAIM_STALE_MS = 60_000;
const WAIT_STEP_MS = 200;

export interface EmbeddedOptions {
  prisma: Db;
  /** The platform app's fetch (Hono's app.fetch). */
  appFetch: (request: Request) => Response | Promise<Response>;
  /** Key material for the sealed API key: the current secret first, then the ones it replaced. */
  secrets: readonly string[];
  /** Embedded only: make the provisioned account usable (verified, with a balance). */
  prepareAccount?: (accountId: number) => Promise<void>;
  now?: () => Date;
  /** Told of every call the client makes (the app's metrics). */
  onCall?: (call: CallReport) => void;
}

export function inProcessFetch(appFetch: EmbeddedOptions["appFetch"]): typeof fetch {
  return async (input, init) => appFetch(new Request(input, init));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Connects to the embedded platform, provisioning the framework's account on first use. */
export async function connectEmbedded(options: EmbeddedOptions): Promise<PlatformConnection> {
  const { prisma } = options;
  const now = options.now ?? (() => new Date());
  const keys = keysFor(PLATFORM_API_KEY, options.secrets);
  const base = { baseUrl: EMBEDDED_BASE_URL, fetch: tracedFetch(inProcessFetch(options.appFetch)), onCall: options.onCall };
  const connect = (apiKey: string): PlatformConnection => {
    const clientOptions = { ...base, apiKey };
    return { mode: "embedded", client: createPlatformClient(clientOptions), options: clientOptions };
  };

  const deadline = Date.now() + 2 * CLAIM_STALE_MS;
  for (;;) {
    const row = await findFrameworkAccount(prisma);
    if (row?.apiKeyCipher) return connect(openWithKeys(keys, row.apiKeyCipher).value);

    const claimToken = randomUUID();
    const claimed = row
      ? now().getTime() - row.claimedAt.getTime() > CLAIM_STALE_MS &&
        (await takeOverFrameworkAccountClaim(prisma, row.claimToken, claimToken, now()))
      : await insertFrameworkAccountClaim(prisma, claimToken, now());
    if (claimed) {
      const email = `framework-${randomBytes(6).toString("hex")}@inlay.example`;
      // Nobody signs in with this password: the key is what the framework keeps.
      const { account, api_key } = await signup(base, {
        email,
        first_name: "Inlay framework",
        password: randomBytes(24).toString("base64url"),
        product: "inlay-framework",
      });
      await options.prepareAccount?.(account.id);
      if (await completeFrameworkAccount(prisma, claimToken, { accountId: account.id, email, apiKeyCipher: seal(keys[0]!, api_key) })) {
        logger.info({ accountId: account.id }, "provisioned the framework's platform account");
        return connect(api_key);
      }
      // Our claim was taken over while we worked (we were too slow): use the winner's account.
    }
    if (Date.now() > deadline) throw new Error("timed out waiting for the framework's platform account to be provisioned");
    await sleep(WAIT_STEP_MS);
  }
}

export function connectRemote(baseUrl: string, apiKey: string, onCall?: (call: CallReport) => void): PlatformConnection {
  const options = { baseUrl, apiKey, onCall, fetch: tracedFetch((input, init) => globalThis.fetch(input, init)) };
  return { mode: "remote", client: createPlatformClient(options), options };
}

