// /model-connections over real HTTP: every endpoint, its validation and limits, isolation between
// accounts, secrets never returned nor stored in plain text, the provA authorization flow against the
// loopback OAuth server, and runs on an account's own connection through loopback fake providers:
// metered own_sub, the balance untouched.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addLedgerEntry } from "@/server/platform/repositories/billing";
import { openSecret } from "@/server/platform/services/sealed-secrets";
import { preferredDefaultModel, resolveOwnModelConnection } from "@/server/platform/services/models/model-connections";
import { activatePlan } from "@/server/platform/services/billing/plans";
import { startOAuthServer, type OAuthServer } from "../../helpers/oauth-server";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";
import { pollUntil } from "../../helpers/poll";
import { startProviderServer, type ProviderServer } from "../../helpers/provider-servers";

let platform: PlatformHarness;
let oauthServer: OAuthServer;
let openaiFake: ProviderServer;
let anthropicFake: ProviderServer;
let account: Account;
let other: Account;

const REDIRECT_URI = "http://127.0.0.1:9/provA/code";
const OPENAI_KEY = "sk-own-openai-key-0123456789";
const PASTED_TOKEN = "provA-pasted-access-token-0123456789";
const PASTED_REFRESH = "provA-pasted-refresh-token-0123456789";

beforeAll(async () => {
  oauthServer = await startOAuthServer();
  oauthServer.register([REDIRECT_URI]);
  openaiFake = await startProviderServer({
    wire: "openai-chat",
    basePath: "/v1",
    turns: [
      { kind: "text", text: "Answered with your own key.", usage: { input: 30, output: 7 } },
      { kind: "text", text: "Answered again.", usage: { input: 31, output: 3 } },
    ],
  });
  anthropicFake = await startProviderServer({
    wire: "anthropic-messages",
    basePath: "/v1",
    turns: [{ kind: "text", text: "Answered with your pasted token.", usage: { input: 20, output: 6 } }],
  });
  platform = await startPlatform({
    models: {
      openaiConfigured: true,
      anthropicConfigured: true,
      connections: {
        provA: {
          apiBaseUrl: anthropicFake.baseUrl,
          oauth: {
            clientId: oauthServer.client.clientId,
            clientSecret: oauthServer.client.clientSecret,
            authorizationUrl: oauthServer.authorizationUrl,
            tokenUrl: oauthServer.tokenUrl,
            redirectUri: REDIRECT_URI,
            scopes: ["openid", "offline_access"],
          },
        },
      },
    },
  });
  account = await platform.signup();
  other = await platform.signup();
}, 60_000);

afterAll(async () => {
  await platform?.close();
  await oauthServer?.close();
  await openaiFake?.close();
  await anthropicFake?.close();
});

const connectionOf = (body: any, provider: string) => body.data.find((entry: any) => entry.provider === provider);
const list = (key = account.key) => platform.call("/model-connections", { key });
const putKey = (provider: string, body: unknown, key = account.key) =>
  platform.call(`/model-connections/${provider}`, { key, method: "PUT", body });

async function storedSecrets(): Promise<string> {
  const prisma = platform.database.prisma;
  const rows = [
    ...(await prisma.platformModelProviderAccount.findMany()),
    ...(await prisma.platformModelAuthorization.findMany()),
  ];
  return JSON.stringify(rows);
}

async function runToEnd(key: string, body: Record<string, unknown>) {
  const started = await platform.call("/runs", { key, query: { user_id: "u1" }, body: { stream: false, permission_mode: "autonomous", ...body } });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  return ended(key, started.body.id, "u1");
}

/** The run once it is no longer running (finished, or paused for an answer). */
const ended = (key: string, runId: number, userId: string) =>
  pollUntil(async () => (await platform.call(`/runs/${runId}`, { key, query: { user_id: userId } })).body, (run) => run.status !== "running", `run ${runId} to end`);

const fieldsOf = (body: any): string[] => body.error.details.fields.map((entry: { field: string }) => entry.field);
const balanceOf = async (key: string) => (await platform.call("/billing/balance", { key })).body;

describe("GET /model-connections", () => {
  it("lists every provider, none connected, and no preferred default", async () => {
    const { status, body } = await list(other.key);
    expect(status).toBe(200);
    expect(body.preferred_default).toBeNull();
    expect(body.data.map((entry: any) => entry.provider)).toEqual(["openai", "anthropic", "openai-compatible", "provA"]);
    for (const entry of body.data) {
      expect(entry).toMatchObject({ status: "not_connected", connected: false, accounts: [], default_model: null, preferred_default: false });
    }
    expect(connectionOf(body, "provA")).toMatchObject({ serves: "anthropic", methods: ["paste", "authorization"] });
    expect(connectionOf(body, "openai").effective_default_model).toBe("openai/gpt-4.1");
  });

  it("needs an API key", async () => {
    expect((await platform.call("/model-connections", { key: null })).status).toBe(401);
  });
});

describe("PUT /model-connections/<provider> (API key)", () => {
  it("connects openai with a key and a base URL, and never returns the key", async () => {
    const { status, body } = await putKey("openai", { api_key: OPENAI_KEY, base_url: openaiFake.baseUrl });
    expect(status).toBe(200);
    expect(body).toMatchObject({ provider: "openai", status: "connected", connected: true });
    expect(body.accounts).toHaveLength(1);
    expect(body.accounts[0]).toMatchObject({ method: "api_key", label: "default", status: "connected", base_url: openaiFake.baseUrl });
    expect(JSON.stringify(body)).not.toContain(OPENAI_KEY);
    expect(JSON.stringify((await list()).body)).not.toContain(OPENAI_KEY);
    expect(await storedSecrets()).not.toContain(OPENAI_KEY);
  });

  it("replaces the key of an account with the same label", async () => {
    const { status, body } = await putKey("openai", { api_key: OPENAI_KEY, base_url: openaiFake.baseUrl, label: "default" });
    expect(status).toBe(200);
    expect(body.accounts).toHaveLength(1);
  });

  it("validates the key, the base URL and the provider", async () => {
    const missing = await putKey("openai", {});
    expect(missing.status).toBe(422);
    expect(fieldsOf(missing.body)).toContain("api_key");
    const notUrl = await putKey("openai", { api_key: "k", base_url: "not a url" });
    expect(notUrl.status).toBe(422);
    expect(fieldsOf(notUrl.body)).toContain("base_url");
    const blocked = await putKey("openai", { api_key: "k", base_url: "http://10.0.0.1/v1" });
    expect(blocked.status).toBe(422);
    expect(fieldsOf(blocked.body)).toContain("base_url");
    const tooLong = await putKey("anthropic", { api_key: "k".repeat(4_097) });
    expect(tooLong.status).toBe(422);
    const compatible = await putKey("openai-compatible", { api_key: "k" });
    expect(compatible.status).toBe(422);
    expect(fieldsOf(compatible.body)).toContain("base_url");
    const provA = await putKey("provA", { api_key: "k" });
    expect(provA.status).toBe(400);
    expect(provA.body.error.error_code).toBe("METHOD_NOT_SUPPORTED");
    expect((await putKey("nope", { api_key: "k" })).status).toBe(404);
  });

  it("holds at most 5 accounts per connection", async () => {
    const limited = await platform.signup();
    for (let i = 1; i <= 5; i++) expect((await putKey("anthropic", { api_key: `key-${i}`, label: `k${i}` }, limited.key)).status).toBe(200);
    const sixth = await putKey("anthropic", { api_key: "key-6", label: "k6" }, limited.key);
    expect(sixth.status).toBe(409);
    expect(sixth.body.error.error_code).toBe("MODEL_ACCOUNT_LIMIT");
    // Replacing an existing label is not a new account.
    expect((await putKey("anthropic", { api_key: "key-1b", label: "k1" }, limited.key)).status).toBe(200);
  });
});

describe("POST /model-connections/provA/paste", () => {
  it("pastes a token pair, sealed and never returned", async () => {
    const expires = Date.now() + 3_600_000;
    const { status, body } = await platform.call("/model-connections/provA/paste", {
      key: account.key,
      body: { access_token: PASTED_TOKEN, refresh_token: PASTED_REFRESH, expires_at_ms: expires },
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({ provider: "provA", status: "connected", serves: "anthropic" });
    expect(body.accounts[0]).toMatchObject({ method: "paste", status: "connected", expires_at: new Date(expires).toISOString() });
    expect(JSON.stringify(body)).not.toContain(PASTED_TOKEN);
    const stored = await storedSecrets();
    expect(stored).not.toContain(PASTED_TOKEN);
    expect(stored).not.toContain(PASTED_REFRESH);
  });

  it("validates the body", async () => {
    const paste = (body: unknown) => platform.call("/model-connections/provA/paste", { key: other.key, body });
    const missing = await paste({ refresh_token: "r" });
    expect(missing.status).toBe(422);
    expect(fieldsOf(missing.body)).toContain("access_token");
    const notInt = await paste({ access_token: "a", expires_at_ms: "soon" });
    expect(notInt.status).toBe(422);
    expect(fieldsOf(notInt.body)).toContain("expires_at_ms");
    const expired = await paste({ access_token: "a", expires_at_ms: Date.now() - 1000 });
    expect(expired.status).toBe(422);
    expect(fieldsOf(expired.body)).toContain("expires_at_ms");
    expect(connectionOf((await list(other.key)).body, "provA").connected).toBe(false);
  });
});

describe("PATCH /model-connections/<provider>/default-model", () => {
  const patch = (provider: string, body: unknown, key = account.key) =>
    platform.call(`/model-connections/${provider}/default-model`, { key, method: "PATCH", body });

  it("takes an id or an alias of the provider's models, and null restores the platform default", async () => {
    const alias = await patch("openai", { model: "gpt-4.1-mini" });
    expect(alias.status).toBe(200);
    expect(alias.body).toMatchObject({ default_model: "openai/gpt-4.1-mini", effective_default_model: "openai/gpt-4.1-mini" });
    const provA = await patch("provA", { model: "anthropic/claude-haiku-4-5" });
    expect(provA.status).toBe(200);
    expect(provA.body.default_model).toBe("anthropic/claude-haiku-4-5");
    const reset = await patch("provA", { model: null });
    expect(reset.body).toMatchObject({ default_model: null, effective_default_model: "anthropic/claude-sonnet-4-5" });
  });

  it("refuses another provider's model, an unknown one, or none (422 naming model)", async () => {
    for (const body of [{ model: "sonnet" }, { model: "no-such-model" }, {}, { model: 3 }]) {
      const { status, body: error } = await patch("openai", body);
      expect(status).toBe(422);
      expect(fieldsOf(error)).toContain("model");
    }
  });

  it("answers 404 for a provider the account has not connected, or an unknown one", async () => {
    expect((await patch("openai", { model: "gpt-4.1" }, other.key)).status).toBe(404);
    expect((await patch("nope", { model: "gpt-4.1" })).status).toBe(404);
  });
});

describe("preferred default", () => {
  it("POST …/apply-default makes one connection the preferred default; DELETE …/preferred-default clears it", async () => {
    const applied = await platform.call("/model-connections/provA/apply-default", { key: account.key, method: "POST" });
    expect(applied.status).toBe(200);
    expect(applied.body.preferred_default).toBe(true);
    const openai = await platform.call("/model-connections/openai/apply-default", { key: account.key, method: "POST" });
    expect(openai.body.preferred_default).toBe(true);
    const listed = (await list()).body;
    expect(listed.preferred_default).toBe("openai");
    expect(listed.data.filter((entry: any) => entry.preferred_default).map((entry: any) => entry.provider)).toEqual(["openai"]);

    expect((await platform.call("/model-connections/preferred-default", { key: account.key, method: "DELETE" })).status).toBe(204);
    expect((await list()).body.preferred_default).toBeNull();
  });

  it("answers 404 for a provider not connected", async () => {
    expect((await platform.call("/model-connections/anthropic/apply-default", { key: other.key, method: "POST" })).status).toBe(404);
  });

  it("a run start reads it from the process's cache, and every write through the API is seen by the next one", async () => {
    const own = await platform.signup();
    const ctx = { prisma: platform.database.prisma, cache: (await platform.runtime()).cache, config: platform.config };
    const preferred = () => preferredDefaultModel(ctx, own.id);
    const call = (path: string, method: string, body?: unknown) => platform.call(`/model-connections${path}`, { key: own.key, method, body });
    expect(await preferred()).toBeNull();
    expect((await call("/openai", "PUT", { api_key: OPENAI_KEY })).status).toBe(200);
    expect(await preferred()).toBeNull();

    expect((await call("/openai/default-model", "PATCH", { model: "gpt-4.1" })).status).toBe(200);
    expect((await call("/openai/apply-default", "POST")).status).toBe(200);
    expect(await preferred()).toBe("openai/gpt-4.1");
    // Cached: a write behind the API's back (no signal) is not seen...
    await platform.database.prisma.platformModelConnection.updateMany({ where: { accountId: own.id }, data: { defaultModel: "openai/gpt-4.1-nano" } });
    expect(await preferred()).toBe("openai/gpt-4.1");
    // ...one through it is, at once.
    expect((await call("/openai/default-model", "PATCH", { model: "gpt-4.1-mini" })).status).toBe(200);
    expect(await preferred()).toBe("openai/gpt-4.1-mini");
    expect((await call("/preferred-default", "DELETE")).status).toBe(204);
    expect(await preferred()).toBeNull();
    expect((await call("/openai/apply-default", "POST")).status).toBe(200);
    expect(await preferred()).toBe("openai/gpt-4.1-mini");
    expect((await call("/openai", "DELETE")).status).toBe(204);
    expect(await preferred()).toBeNull();
  });
});

describe("authorizations (provA, against the loopback OAuth server)", () => {
  const start = (key = account.key, provider = "provA") =>
    platform.call(`/model-connections/${provider}/authorizations`, { key, method: "POST" });
  const at = (state: string, init: { method?: string; body?: unknown; key?: string } = {}) =>
    platform.call(`/model-connections/provA/authorizations/${encodeURIComponent(state)}`, { key: account.key, ...init });

  it("start → the person signs in → complete with the code → a connected account", async () => {
    const started = await start();
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ provider: "provA", status: "pending", error: null, account_id: null });
    const url = new URL(started.body.authorization_url);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("state")).toBe(started.body.state);
    const state = started.body.state as string;

    const polled = await at(state);
    expect(polled.status).toBe(200);
    expect(polled.body).toMatchObject({ status: "pending", authorization_url: started.body.authorization_url });

    const callback = await oauthServer.authorize(started.body.authorization_url, REDIRECT_URI);
    const code = callback.searchParams.get("code")!;
    expect(code).toBeTruthy();
    const completed = await at(state, { method: "POST", body: { code } });
    expect(completed.status).toBe(200);
    expect(completed.body).toMatchObject({ status: "completed", authorization_url: null });
    expect(completed.body.account_id).toEqual(expect.any(Number));

    const provA = connectionOf((await list()).body, "provA");
    const authorized = provA.accounts.find((entry: any) => entry.id === completed.body.account_id);
    expect(authorized).toMatchObject({ method: "authorization", status: "connected" });
    expect((await at(state)).body.status).toBe("completed");
    // The state is stored hashed only.
    expect(await storedSecrets()).not.toContain(state);

    const again = await at(state, { method: "POST", body: { code } });
    expect(again.status).toBe(409);
    expect(again.body.error.error_code).toBe("AUTHORIZATION_COMPLETED");
  });

  it("cancel: the authorization ends cancelled and its code is refused", async () => {
    const { body } = await start();
    expect((await at(body.state, { method: "DELETE" })).status).toBe(204);
    expect((await at(body.state)).body).toMatchObject({ status: "cancelled", authorization_url: null });
    const complete = await at(body.state, { method: "POST", body: { code: "whatever" } });
    expect(complete.status).toBe(409);
    expect(complete.body.error.error_code).toBe("AUTHORIZATION_CANCELLED");
    expect((await at(body.state, { method: "DELETE" })).status).toBe(409);
  });

  it("a code the provider refuses fails the authorization", async () => {
    const { body } = await start();
    const refused = await at(body.state, { method: "POST", body: { code: "not-a-real-code" } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.error_code).toBe("AUTHORIZATION_FAILED");
    const polled = (await at(body.state)).body;
    expect(polled.status).toBe("failed");
    expect(polled.error).toContain("invalid_grant");
  });

  it("an expired authorization says so", async () => {
    const { body } = await start();
    await platform.database.prisma.platformModelAuthorization.updateMany({
      where: { status: "pending", accountId: account.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await at(body.state)).body).toMatchObject({ status: "expired", authorization_url: null });
    const complete = await at(body.state, { method: "POST", body: { code: "c" } });
    expect(complete.status).toBe(409);
    expect(complete.body.error.error_code).toBe("AUTHORIZATION_EXPIRED");
  });

  it("validates the code, and answers 404 for an unknown state", async () => {
    const { body } = await start();
    const missing = await at(body.state, { method: "POST", body: {} });
    expect(missing.status).toBe(422);
    expect(fieldsOf(missing.body)).toContain("code");
    expect((await at("no-such-state")).status).toBe(404);
    expect((await at(body.state, { method: "DELETE" })).status).toBe(204);
  });

  it("is for providers that offer one", async () => {
    const refused = await start(account.key, "openai");
    expect(refused.status).toBe(400);
    expect(refused.body.error.error_code).toBe("AUTHORIZATION_NOT_SUPPORTED");
    expect((await start(account.key, "nope")).status).toBe(404);
  });

  it("allows 5 pending authorizations per account", async () => {
    const busy = await platform.signup();
    for (let i = 0; i < 5; i++) expect((await start(busy.key)).status).toBe(201);
    const sixth = await start(busy.key);
    expect(sixth.status).toBe(409);
    expect(sixth.body.error.error_code).toBe("AUTHORIZATION_LIMIT");
  });
});

describe("isolation", () => {
  it("another account sees none of it and can change none of it (404)", async () => {
    const mine = (await list()).body;
    const accountId = connectionOf(mine, "openai").accounts[0].id;
    const theirs = (await list(other.key)).body;
    expect(connectionOf(theirs, "openai").connected).toBe(false);
    expect((await platform.call("/model-connections/openai", { key: other.key, method: "DELETE" })).status).toBe(404);
    expect((await platform.call(`/model-connections/openai/accounts/${accountId}`, { key: other.key, method: "DELETE" })).status).toBe(404);

    const started = await platform.call("/model-connections/provA/authorizations", { key: account.key, method: "POST" });
    const path = `/model-connections/provA/authorizations/${encodeURIComponent(started.body.state)}`;
    expect((await platform.call(path, { key: other.key })).status).toBe(404);
    expect((await platform.call(path, { key: other.key, method: "POST", body: { code: "c" } })).status).toBe(404);
    expect((await platform.call(path, { key: other.key, method: "DELETE" })).status).toBe(404);
    expect((await platform.call(path, { key: account.key })).body.status).toBe("pending");
    expect(connectionOf((await list()).body, "openai").accounts.map((entry: any) => entry.id)).toContain(accountId);
  });
});

describe("runs on the account's own connection", () => {
  it("call the provider with the account's key, are metered own_sub and leave the balance untouched", async () => {
    // openai is the preferred default: an agent without a model runs on its default model.
    await platform.call("/model-connections/openai/apply-default", { key: account.key, method: "POST" });
    const agent = (await platform.call("/agents", { key: account.key, body: { user_id: "u1", name: "Own key agent" } })).body;
    const before = await balanceOf(account.key);

    const run = await runToEnd(account.key, { teammate_id: agent.id, message: "Hello with my key" });
    expect(run.status).toBe("completed");
    expect(JSON.stringify(run)).toContain("Answered with your own key.");
    const request = openaiFake.requests[0]!;
    expect(request.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(request.body.model).toBe("gpt-4.1-mini");
    expect(openaiFake.problems).toEqual([]);

    const after = await balanceOf(account.key);
    expect(after.balance_micros).toBe(before.balance_micros);
    expect(after.held_micros).toBe(0);

    const own = (await platform.call("/usage/timeseries", { key: account.key, query: { settled_meter: "own_sub" } })).body;
    expect(own.totals.input_tokens).toBe(30);
    expect(own.totals.output_tokens).toBe(7);
    const wallet = (await platform.call("/usage/timeseries", { key: account.key, query: { settled_meter: "wallet" } })).body;
    expect(wallet.totals.total_tokens).toBe(0);
  });

  it("a sim run of the same account still pays from the balance", async () => {
    const agent = (await platform.call("/agents", { key: account.key, body: { user_id: "u1", name: "Sim agent", model: "inlay/sim" } })).body;
    const before = await balanceOf(account.key);
    const run = await runToEnd(account.key, { teammate_id: agent.id, message: "hello sim" });
    expect(run.status).toBe("completed");
    expect((await balanceOf(account.key)).balance_micros).toBeLessThan(before.balance_micros);
  });

  it("provA's pasted token calls the Anthropic API as a bearer token", async () => {
    // Only the pasted account: the authorized one would be the newest, and is newer.
    const provA = connectionOf((await list()).body, "provA");
    for (const entry of provA.accounts.filter((candidate: any) => candidate.method !== "paste")) {
      expect((await platform.call(`/model-connections/provA/accounts/${entry.id}`, { key: account.key, method: "DELETE" })).status).toBe(204);
    }
    const agent = (await platform.call("/agents", { key: account.key, body: { user_id: "u1", name: "provA agent", model: "haiku" } })).body;
    const before = await balanceOf(account.key);
    const run = await runToEnd(account.key, { teammate_id: agent.id, message: "Hello with my token" });
    expect(run.status).toBe("completed");
    expect(anthropicFake.requests[0]!.headers.authorization).toBe(`Bearer ${PASTED_TOKEN}`);
    expect(anthropicFake.requests[0]!.headers["x-api-key"]).toBeUndefined();
    expect((await balanceOf(account.key)).balance_micros).toBe(before.balance_micros);
  });

  it("a connection that cannot be used fails the run with a clear error, never falls back to the balance", async () => {
    await platform.database.prisma.platformModelProviderAccount.updateMany({
      where: { accountId: account.id, connection: { provider: "openai" } },
      data: { status: "failed", lastError: "the provider refused the key" },
    });
    expect(connectionOf((await list()).body, "openai").status).toBe("failed");
    const agent = (await platform.call("/agents", { key: account.key, body: { user_id: "u1", name: "Broken key agent", model: "gpt-4.1" } })).body;
    const before = await balanceOf(account.key);
    const run = await runToEnd(account.key, { teammate_id: agent.id, message: "hello" });
    expect(run.status).toBe("failed");
    expect(JSON.stringify(run)).toContain("MODEL_CONNECTION_UNUSABLE");
    expect(openaiFake.requests).toHaveLength(1);
    expect((await balanceOf(account.key)).balance_micros).toBe(before.balance_micros);
  });
});

describe("a key the provider refuses", () => {
  it("fails the run with a clear error and marks the account failed", async () => {
    const refusing = createServer((_request, response) => {
      response.writeHead(401, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } }));
    });
    await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
    try {
      const refused = await platform.signup();
      const baseUrl = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/v1`;
      expect((await putKey("openai", { api_key: "sk-revoked", base_url: baseUrl }, refused.key)).status).toBe(200);
      const agent = (await platform.call("/agents", { key: refused.key, body: { user_id: "u1", name: "Revoked", model: "gpt-4.1" } })).body;
      const before = await balanceOf(refused.key);
      const run = await runToEnd(refused.key, { teammate_id: agent.id, message: "hello" });
      expect(run.status).toBe("failed");
      expect(JSON.stringify(run)).toContain("MODEL_CONNECTION_REJECTED");
      expect((await balanceOf(refused.key)).balance_micros).toBe(before.balance_micros);
      const openai = connectionOf((await list(refused.key)).body, "openai");
      expect(openai.status).toBe("failed");
      expect(openai.accounts[0].last_error).toContain("401");
    } finally {
      await new Promise((resolve) => refusing.close(resolve));
    }
  });
});

describe("DELETE /model-connections/<provider>/accounts/<account_id> and DELETE /model-connections/<provider>", () => {
  it("removes one account; the connection goes with its last", async () => {
    const multi = await platform.signup();
    const first = (await putKey("anthropic", { api_key: "a1", label: "one" }, multi.key)).body.accounts[0].id;
    const second = (await putKey("anthropic", { api_key: "a2", label: "two" }, multi.key)).body.accounts[1].id;
    expect((await platform.call(`/model-connections/anthropic/accounts/${first}`, { key: multi.key, method: "DELETE" })).status).toBe(204);
    expect(connectionOf((await list(multi.key)).body, "anthropic").accounts.map((entry: any) => entry.id)).toEqual([second]);
    expect((await platform.call(`/model-connections/anthropic/accounts/${first}`, { key: multi.key, method: "DELETE" })).status).toBe(404);
    expect((await platform.call(`/model-connections/openai/accounts/${second}`, { key: multi.key, method: "DELETE" })).status).toBe(404);
    expect((await platform.call(`/model-connections/anthropic/accounts/abc`, { key: multi.key, method: "DELETE" })).status).toBe(422);
    expect((await platform.call(`/model-connections/anthropic/accounts/${second}`, { key: multi.key, method: "DELETE" })).status).toBe(204);
    expect(connectionOf((await list(multi.key)).body, "anthropic").status).toBe("not_connected");
  });

  it("disconnects a provider, and answers 404 when there is nothing to disconnect", async () => {
    expect((await platform.call("/model-connections/openai", { key: account.key, method: "DELETE" })).status).toBe(204);
    expect(connectionOf((await list()).body, "openai")).toMatchObject({ status: "not_connected", accounts: [], preferred_default: false });
    expect((await platform.call("/model-connections/openai", { key: account.key, method: "DELETE" })).status).toBe(404);
    expect((await platform.call("/model-connections/nope", { key: account.key, method: "DELETE" })).status).toBe(404);
  });
});

describe("admission of runs on the account's own connection", () => {
  let ownFake: ProviderServer;
  let own: Account;
  let firstRunId: number;
  beforeAll(async () => {
    ownFake = await startProviderServer({
      wire: "openai-chat",
      basePath: "/v1",
      turns: [
        // Enough tokens to cost more than a cent at gpt-4.1-mini's list price.
        { kind: "text", text: "A long answer on your own key.", usage: { input: 200_000, output: 10 } },
        { kind: "text", text: "Another end-user's answer.", usage: { input: 10, output: 2 } },
        { kind: "text", text: "Answered with a balance, still your key.", usage: { input: 10, output: 2 } },
      ],
    });
    own = await platform.signup();
    expect((await putKey("openai", { api_key: OPENAI_KEY, base_url: ownFake.baseUrl }, own.key)).status).toBe(200);
  });
  afterAll(() => ownFake?.close());

  const setBalance = async (micros: number) => {
    const { balance_micros } = await balanceOf(own.key);
    expect(await addLedgerEntry(platform.database.prisma, own.id, { type: "adjustment", amountMicros: BigInt(micros - balance_micros), description: "test" })).toBe(
      BigInt(micros),
    );
  };
  const newAgent = async (userId: string, model: string) =>
    (await platform.call("/agents", { key: own.key, body: { user_id: userId, name: `${model} agent`, model } })).body.id as number;
  const meterOf = async (runId: number) => (await platform.database.prisma.platformRunFunding.findUnique({ where: { runId } }))?.meter ?? "wallet";

  it("admits a run on an empty balance, holds nothing, settles own_sub; a platform-funded run is still refused", async () => {
    await setBalance(0);
    const agent = await newAgent("u1", "gpt-4.1-mini");
    const run = await runToEnd(own.key, { teammate_id: agent, message: "Hello on an empty balance" });
    expect(run.status).toBe("completed");
    firstRunId = run.id;
    expect(JSON.stringify(run)).toContain("A long answer on your own key.");
    expect(ownFake.requests[0]!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(await meterOf(run.id)).toBe("own_sub");
    expect((await platform.database.prisma.platformRun.findUniqueOrThrow({ where: { id: run.id } })).holdMicros).toBe(0n);
    expect(await balanceOf(own.key)).toMatchObject({ balance_micros: 0, held_micros: 0 });
    const usage = (await platform.call("/usage/timeseries", { key: own.key, query: { settled_meter: "own_sub" } })).body;
    expect(usage.totals.input_tokens).toBe(200_000);

    const sim = await newAgent("u1", "inlay/sim");
    const refused = await platform.call("/runs", { key: own.key, query: { user_id: "u1" }, body: { teammate_id: sim, message: "platform-funded", stream: false } });
    expect(refused.status).toBe(402);
    expect(refused.body.error.error_code).toBe("TOKEN_BALANCE_DEPLETED");
  });

  it("counts own_sub usage against per_end_user_cost_limit_cents (the cap is on metered cost)", async () => {
    expect((await platform.call("/settings", { key: own.key, method: "PATCH", body: { per_end_user_cost_limit_cents: 1 } })).status).toBe(200);
    const agent = await newAgent("u1", "gpt-4.1-mini");
    const capped = await platform.call("/runs", { key: own.key, query: { user_id: "u1" }, body: { teammate_id: agent, message: "over the cap", stream: false } });
    expect(capped.status).toBe(402);
    expect(capped.body.error).toMatchObject({ error_code: "COST_LIMIT_REACHED", details: { end_user_id: "u1", limit_cents: 1 } });
    expect(Number(capped.body.error.details.used_usd)).toBeGreaterThan(0.01);
    expect(ownFake.requests).toHaveLength(1);

    // Another end-user has its own cap, and is admitted on the empty balance.
    const other = await newAgent("u2", "gpt-4.1-mini");
    const started = await platform.call("/runs", { key: own.key, query: { user_id: "u2" }, body: { teammate_id: other, message: "hi", stream: false, permission_mode: "autonomous" } });
    expect(started.status).toBe(200);
    expect((await platform.call("/settings", { key: own.key, method: "PATCH", body: { per_end_user_cost_limit_cents: null } })).status).toBe(200);
  });

  it("with a balance, still holds nothing and settles own_sub (not the fast path's wallet hold)", async () => {
    await setBalance(1_000_000);
    const agent = await newAgent("u3", "gpt-4.1-mini");
    const started = await platform.call("/runs", { key: own.key, query: { user_id: "u3" }, body: { teammate_id: agent, message: "hi", stream: false, permission_mode: "autonomous" } });
    expect(started.status).toBe(200);
    expect((await platform.database.prisma.platformRun.findUniqueOrThrow({ where: { id: started.body.id } })).holdMicros).toBe(0n);
    expect(await meterOf(started.body.id)).toBe("own_sub");
    await ended(own.key, started.body.id, "u3");
    expect((await balanceOf(own.key)).balance_micros).toBe(1_000_000);
    await setBalance(0);
  });

  it("a reply to an own_sub run after the connection is removed fails clearly, and the balance pays nothing", async () => {
    const target = { id: firstRunId };
    const userId = "u1";
    expect((await platform.call("/model-connections/openai", { key: own.key, method: "DELETE" })).status).toBe(204);
    const replied = await platform.call(`/runs/${target.id}/reply`, { key: own.key, query: { user_id: userId }, body: { message: "again", stream: false } });
    expect(replied.status, JSON.stringify(replied.body)).toBe(200);
    const run = await ended(own.key, target.id, userId);
    expect(run.status).toBe("failed");
    expect(JSON.stringify(run)).toContain("MODEL_CONNECTION_UNUSABLE");
    expect(ownFake.requests).toHaveLength(3);
    expect(await balanceOf(own.key)).toMatchObject({ balance_micros: 0, held_micros: 0 });
  });
});

describe("provA token refresh across concurrent runs", () => {
  let refresher: Account;
  let accountId: number;
  const prisma = () => platform.database.prisma;
  const storedTokens = async () => {
    const row = await prisma().platformModelProviderAccount.findUniqueOrThrow({ where: { id: accountId } });
    return { row, tokens: JSON.parse(openSecret(platform.config, row.secretSealed).value) as { access_token: string; refresh_token: string } };
  };
  const resolve = () => resolveOwnModelConnection(prisma(), platform.config, refresher.id, "haiku");

  beforeAll(async () => {
    refresher = await platform.signup();
    const started = await platform.call("/model-connections/provA/authorizations", { key: refresher.key, method: "POST" });
    const code = (await oauthServer.authorize(started.body.authorization_url, REDIRECT_URI)).searchParams.get("code")!;
    const completed = await platform.call(`/model-connections/provA/authorizations/${encodeURIComponent(started.body.state)}`, {
      key: refresher.key,
      method: "POST",
      body: { code },
    });
    expect(completed.status).toBe(200);
    accountId = completed.body.account_id;
  });

  it("refreshes a token about to expire once; concurrent callers all get the new token", async () => {
    const before = await storedTokens();
    await prisma().platformModelProviderAccount.update({ where: { id: accountId }, data: { expiresAt: new Date(Date.now() + 5_000) } });
    const refreshes = oauthServer.grants.refresh_token ?? 0;
    const errors = oauthServer.grantErrors.length;
    const resolved = await Promise.all([resolve(), resolve(), resolve(), resolve()]);
    expect(oauthServer.grants.refresh_token).toBe(refreshes + 1);
    expect(oauthServer.grantErrors).toHaveLength(errors);
    const after = await storedTokens();
    expect(after.tokens.access_token).not.toBe(before.tokens.access_token);
    expect(after.tokens.refresh_token).not.toBe(before.tokens.refresh_token);
    for (const own of resolved) expect(own).toMatchObject({ provider: "provA", authToken: after.tokens.access_token });
    expect(after.row).toMatchObject({ status: "connected", lastError: null, refreshingUntil: null });
    expect(after.row.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 60_000);
    // Fresh now: no refresh at all.
    await resolve();
    expect(oauthServer.grants.refresh_token).toBe(refreshes + 1);
  });

  it("a refused refresh is tried once: every concurrent caller fails clearly and the account is marked failed", async () => {
    const { tokens } = await storedTokens();
    await oauthServer.revokeGrantOf(tokens.refresh_token);
    await prisma().platformModelProviderAccount.update({ where: { id: accountId }, data: { expiresAt: new Date(Date.now() - 1_000) } });
    const errors = oauthServer.grantErrors.length;
    const results = await Promise.allSettled([resolve(), resolve(), resolve()]);
    expect(oauthServer.grantErrors).toHaveLength(errors + 1);
    for (const result of results) {
      expect(result.status).toBe("rejected");
      expect(String((result as PromiseRejectedResult).reason)).toContain("MODEL_CONNECTION_UNUSABLE");
    }
    expect((await storedTokens()).row).toMatchObject({ status: "failed", refreshingUntil: null });
  });
});

describe("own_sub runs of an account on a plan", () => {
  let planFake: ProviderServer;
  beforeAll(async () => {
    planFake = await startProviderServer({ wire: "openai-chat", basePath: "/v1", turns: [{ kind: "text", text: "On the plan, on your key.", usage: { input: 12, output: 3 } }] });
  });
  afterAll(() => planFake?.close());

  it("are metered own_sub, not counted against the plan's included runs; a platform-funded run is", async () => {
    const planned = await platform.signup();
    await activatePlan(platform.database.prisma, planned.id, { slug: "free", billingPeriod: "monthly" });
    expect((await putKey("openai", { api_key: OPENAI_KEY, base_url: planFake.baseUrl }, planned.key)).status).toBe(200);
    const agent = (await platform.call("/agents", { key: planned.key, body: { user_id: "u1", name: "Planned", model: "gpt-4.1-mini" } })).body;
    const balance = await balanceOf(planned.key);

    const run = await runToEnd(planned.key, { teammate_id: agent.id, message: "hello" });
    expect(run.status).toBe("completed");
    expect((await platform.database.prisma.platformRunFunding.findUnique({ where: { runId: run.id } }))?.meter).toBe("own_sub");
    expect((await platform.call("/usage", { key: planned.key })).body).toMatchObject({ plan: "free", runs_used: 0 });
    expect(await balanceOf(planned.key)).toMatchObject({ balance_micros: balance.balance_micros, held_micros: 0 });

    const sim = (await platform.call("/agents", { key: planned.key, body: { user_id: "u1", name: "Sim", model: "inlay/sim" } })).body;
    expect((await runToEnd(planned.key, { teammate_id: sim.id, message: "hello" })).status).toBe("completed");
    expect((await platform.call("/usage", { key: planned.key })).body).toMatchObject({ plan: "free", runs_used: 1 });
  });
});
