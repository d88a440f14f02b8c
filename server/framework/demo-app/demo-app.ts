// The development demo app: a tiny OAuth 2.0 provider (consent page, PKCE S256 codes, refresh tokens
// with rotation, RFC 7009 revocation) with a notes API, served by the framework under /demo-app so the
// platform's connect flow, tool calls, refresh and disconnect can be tried right after `npm run dev`.
// Its accounts are the installation's own sign-in accounts. Development only: every handler answers
// 404 otherwise, and the catalogue holds the app only then (demoAppPlatformSettings).
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { env, type Env } from "@/lib/env";
import type { Db } from "@/server/shared/db";
import { DEMO_APP_CLIENT_ID, demoAppClientSecret, type DemoAppSettings } from "@/server/platform/embedding";
import * as repo from "./demo-app-repository";

export const DEMO_APP_PATH = "/demo-app";
const CODE_TTL_MS = 5 * 60_000;
const ACCESS_TTL_S = 60 * 60;
const REFRESH_TTL_MS = 30 * 24 * 60 * 60_000;
const NOTE_MAX = 2000;

export interface DemoAppUser {
  id: string;
  email: string;
}

export interface DemoAppDeps {
  enabled: boolean;
  prisma: Db;
  /** This app's public origin (where the browser reaches /demo-app). */
  origin: string;
  /** Origins a redirect_uri may be on: the platform's (its OAuth callback). */
  redirectOrigins: string[];
  /** The installation's secret: the client secret and the consent form's token derive from it. */
  secret: string;
  /** The signed-in framework user of the request, if any. */
  user: () => Promise<DemoAppUser | null>;
}

/** On in development only (NODE_ENV=development), never in production or tests' default environment. */
export const demoAppEnabled = (source: Env = env) => source.NODE_ENV === "development";

/**
 * The catalogue settings the embedded platform gets: only in development and only when the platform is
 * this process's own (a separate platform does not know this origin).
 */
export function demoAppPlatformSettings(origin: string, source: Env = env): DemoAppSettings | undefined {
  if (!demoAppEnabled(source) || (source.PLATFORM_BASE_URL && source.PLATFORM_API_KEY)) return undefined;
  return { baseUrl: `${origin.replace(/\/+$/, "")}${DEMO_APP_PATH}`, clientSecret: demoAppClientSecret(source.NEXTAUTH_SECRET) };
}

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");
const newToken = (prefix: string) => `${prefix}${randomBytes(32).toString("base64url")}`;

const sameText = (a: string, b: string) => {
  const left = Buffer.from(sha256(a));
  const right = Buffer.from(sha256(b));
  return timingSafeEqual(left, right);
};

const notFound = () => new Response("Not found", { status: 404 });

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "cache-control": "no-store", ...headers } });

const oauthError = (error: string, description: string, status = 400) => json({ error, error_description: description }, status);

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char]!);

function page(title: string, body: string, formTarget?: string): Response {
  const formAction = formTarget ? `'self' ${formTarget}` : "'self'";
  return new Response(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title>` +
      `<style>body{font:16px system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#1f2937}` +
      `button{font:inherit;padding:.5rem 1rem;margin-right:.5rem;border-radius:.375rem;border:1px solid #9ca3af;cursor:pointer}` +
      `button[value=allow]{background:#2563eb;color:#fff;border-color:#2563eb}.muted{color:#6b7280;font-size:.875rem}</style></head>` +
      `<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`,
    {
      status: 200,
      headers: {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-store",
        // Not no-referrer: under it the browser sends the form's POST with `Origin: null`.
        "referrer-policy": "same-origin",
        // The form's redirect to the platform's callback counts as a form action too.
        "content-security-policy": `default-src 'none'; style-src 'unsafe-inline'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
      },
    },
  );
}

function errorPage(message: string, status = 400): Response {
  const response = page("Demo notes", `<p>${escapeHtml(message)}</p>`);
  return new Response(response.body, { status, headers: response.headers });
}

interface AuthorizeRequest {
  clientId: string;
  redirectUri: string;
  state: string;
  codeChallenge: string;
  scope: string;
}

/**
 * The authorization request's parameters. A bad client_id or redirect_uri is shown on the page (never
 * redirected to); other mistakes go back to the redirect_uri as OAuth errors.
 */
function readAuthorizeRequest(params: URLSearchParams, deps: DemoAppDeps): { ok: true; value: AuthorizeRequest } | { ok: false; response: Response } {
  const clientId = params.get("client_id") ?? "";
  const redirectUri = params.get("redirect_uri") ?? "";
  if (clientId !== DEMO_APP_CLIENT_ID) return { ok: false, response: errorPage("Unknown client_id.") };
  let redirect: URL;
  try {
    redirect = new URL(redirectUri);
  } catch {
    return { ok: false, response: errorPage("redirect_uri must be an absolute URL.") };
  }
  if (!deps.redirectOrigins.includes(redirect.origin) || redirect.hash !== "") {
    return { ok: false, response: errorPage("redirect_uri is not on the platform's origin.") };
  }
  const state = params.get("state") ?? "";
  const back = (error: string, description: string) => {
    const target = new URL(redirectUri);
    target.searchParams.set("error", error);
    target.searchParams.set("error_description", description);
    if (state) target.searchParams.set("state", state);
    return { ok: false as const, response: Response.redirect(target, 303) };
  };
  if (params.get("response_type") !== "code") return back("unsupported_response_type", "response_type must be code");
  const codeChallenge = params.get("code_challenge") ?? "";
  if (params.get("code_challenge_method") !== "S256" || !/^[A-Za-z0-9_-]{43}$/.test(codeChallenge)) {
    return back("invalid_request", "PKCE with code_challenge_method=S256 is required");
  }
  if (state.length > 2048) return back("invalid_request", "state is too long");
  const scope = (params.get("scope") ?? "notes").split(/\s+/).filter(Boolean).join(" ") || "notes";
  return { ok: true, value: { clientId, redirectUri, state, codeChallenge, scope } };
}

/** Binds the consent form to the signed-in user and the request it shows (so it cannot be replayed for another). */
const consentToken = (deps: DemoAppDeps, user: DemoAppUser, request: AuthorizeRequest) =>
  createHmac("sha256", deps.secret)
    .update(JSON.stringify(["demo-app-consent", user.id, request.clientId, request.redirectUri, request.state, request.codeChallenge, request.scope]))
    .digest("base64url");

/** GET /demo-app/oauth/authorize: the consent page (sign-in first when nobody is signed in). */
export async function authorizePage(request: Request, deps: DemoAppDeps): Promise<Response> {
  if (!deps.enabled) return notFound();
  const url = new URL(request.url);
  const read = readAuthorizeRequest(url.searchParams, deps);
  if (!read.ok) return read.response;
  const user = await deps.user();
  if (!user) {
    const signIn = new URL("/signin", deps.origin);
    signIn.searchParams.set("callbackUrl", `${url.pathname}${url.search}`);
    return Response.redirect(signIn, 303);
  }
  const value = read.value;
  const hidden = Object.entries({
    client_id: value.clientId,
    redirect_uri: value.redirectUri,
    state: value.state,
    code_challenge: value.codeChallenge,
    scope: value.scope,
    consent: consentToken(deps, user, value),
  })
    .map(([name, field]) => `<input type="hidden" name="${name}" value="${escapeHtml(field)}">`)
    .join("");
  return page(
    "Allow access to your demo notes?",
    `<p>Inlay's agents want to read and add notes as <strong>${escapeHtml(user.email)}</strong>.</p>` +
      `<form method="post" action="${DEMO_APP_PATH}/oauth/authorize">${hidden}` +
      `<button type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Deny</button></form>` +
      `<p class="muted">Demo notes is a development-only app Inlay serves itself (docs/connections.md, "Try connections locally").</p>`,
    new URL(value.redirectUri).origin,
  );
}

/** POST /demo-app/oauth/authorize: the consent form's answer; back to the redirect_uri with a code or access_denied. */
export async function authorizeDecision(request: Request, deps: DemoAppDeps): Promise<Response> {
  if (!deps.enabled) return notFound();
  const origin = request.headers.get("origin");
  if (origin && origin !== new URL(deps.origin).origin) return errorPage("This form may only be sent from the demo app's own page.", 403);
  let form: URLSearchParams;
  try {
    form = new URLSearchParams(await request.text());
  } catch {
    return errorPage("The form could not be read.");
  }
  const read = readAuthorizeRequest(new URLSearchParams([...form.entries(), ["response_type", "code"], ["code_challenge_method", "S256"]]), deps);
  if (!read.ok) return read.response;
  const user = await deps.user();
  if (!user) return errorPage("Sign in again, then start connecting from Inlay once more.", 401);
  const value = read.value;
  if (!sameText(form.get("consent") ?? "", consentToken(deps, user, value))) {
    return errorPage("This consent form is not valid for you; start connecting from Inlay again.", 403);
  }
  const target = new URL(value.redirectUri);
  if (value.state) target.searchParams.set("state", value.state);
  if (form.get("decision") !== "allow") {
    target.searchParams.set("error", "access_denied");
    return Response.redirect(target, 303);
  }
  const code = newToken("dn_code_");
  await repo.saveCode(deps.prisma, {
    codeHash: sha256(code),
    userId: user.id,
    redirectUri: value.redirectUri,
    codeChallenge: value.codeChallenge,
    scope: value.scope,
    expiresAt: new Date(Date.now() + CODE_TTL_MS),
  });
  target.searchParams.set("code", code);
  return Response.redirect(target, 303);
}

/** client_secret_post or client_secret_basic; true when they name this app's client. */
function clientAuthenticated(request: Request, form: URLSearchParams, deps: DemoAppDeps): boolean {
  let id = form.get("client_id");
  let secret = form.get("client_secret");
  const header = request.headers.get("authorization");
  if (header?.toLowerCase().startsWith("basic ")) {
    const decoded = Buffer.from(header.slice(6).trim(), "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon > 0) {
      id = decodeURIComponent(decoded.slice(0, colon));
      secret = decodeURIComponent(decoded.slice(colon + 1));
    }
  }
  return id === DEMO_APP_CLIENT_ID && secret !== null && sameText(secret, demoAppClientSecret(deps.secret));
}

async function issueTokens(deps: DemoAppDeps, userId: string, scope: string): Promise<Response> {
  const access = newToken("dn_at_");
  const refresh = newToken("dn_rt_");
  const grantId = randomUUID();
  const now = Date.now();
  await repo.saveTokens(deps.prisma, [
    { tokenHash: sha256(access), grantId, kind: "access", userId, scope, expiresAt: new Date(now + ACCESS_TTL_S * 1000) },
    { tokenHash: sha256(refresh), grantId, kind: "refresh", userId, scope, expiresAt: new Date(now + REFRESH_TTL_MS) },
  ]);
  return json({ access_token: access, token_type: "Bearer", expires_in: ACCESS_TTL_S, refresh_token: refresh, scope });
}

const s256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

/** POST /demo-app/oauth/token: authorization_code (with the PKCE verifier) and refresh_token (rotating) grants. */
export async function tokenEndpoint(request: Request, deps: DemoAppDeps): Promise<Response> {
  if (!deps.enabled) return notFound();
  const form = new URLSearchParams(await request.text());
  if (!clientAuthenticated(request, form, deps)) return oauthError("invalid_client", "unknown client or wrong client secret", 401);
  const grantType = form.get("grant_type");
  if (grantType === "authorization_code") {
    const code = form.get("code") ?? "";
    const verifier = form.get("code_verifier") ?? "";
    const row = code ? await repo.takeCode(deps.prisma, sha256(code)) : null;
    if (!row || row.expiresAt.getTime() <= Date.now()) return oauthError("invalid_grant", "the code is unknown, used or expired");
    if (row.redirectUri !== form.get("redirect_uri")) return oauthError("invalid_grant", "redirect_uri differs from the authorization request's");
    if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || !sameText(s256(verifier), row.codeChallenge)) {
      return oauthError("invalid_grant", "code_verifier does not match the code_challenge");
    }
    return issueTokens(deps, row.userId, row.scope);
  }
  if (grantType === "refresh_token") {
    const token = form.get("refresh_token") ?? "";
    const row = token ? await repo.findToken(deps.prisma, sha256(token)) : null;
    if (!row || row.kind !== "refresh" || row.revokedAt || row.expiresAt.getTime() <= Date.now()) {
      return oauthError("invalid_grant", "the refresh token is unknown, revoked or expired");
    }
    // Rotation: the old pair ends; a replayed refresh token finds its grant revoked.
    if (!(await repo.revokeGrant(deps.prisma, row.grantId))) return oauthError("invalid_grant", "the refresh token was already used");
    return issueTokens(deps, row.userId, row.scope);
  }
  return oauthError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
}

/** POST /demo-app/oauth/revoke (RFC 7009): ends the token's grant; 200 whether or not it was known. */
export async function revokeEndpoint(request: Request, deps: DemoAppDeps): Promise<Response> {
  if (!deps.enabled) return notFound();
  const form = new URLSearchParams(await request.text());
  if (!clientAuthenticated(request, form, deps)) return oauthError("invalid_client", "unknown client or wrong client secret", 401);
  const token = form.get("token") ?? "";
  const row = token ? await repo.findToken(deps.prisma, sha256(token)) : null;
  if (row) await repo.revokeGrant(deps.prisma, row.grantId);
  return new Response(null, { status: 200, headers: { "cache-control": "no-store" } });
}

type Authorized = { ok: true; user: { id: string; email: string; name: string | null } } | { ok: false; response: Response };

async function bearer(request: Request, deps: DemoAppDeps): Promise<Authorized> {
  const refuse = (description: string): Authorized => ({
    ok: false,
    response: json({ error: "invalid_token", error_description: description }, 401, {
      "www-authenticate": `Bearer realm="demo-notes", error="invalid_token", error_description="${description}"`,
    }),
  });
  const header = request.headers.get("authorization") ?? "";
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) return refuse("an access token is required");
  const row = await repo.findToken(deps.prisma, sha256(match[1]!));
  if (!row || row.kind !== "access" || row.revokedAt) return refuse("the access token is not valid");
  if (row.expiresAt.getTime() <= Date.now()) return refuse("the access token has expired");
  return { ok: true, user: row.user };
}

/** GET /demo-app/api/me: who the token belongs to (the connection's account label). */
export async function meEndpoint(request: Request, deps: DemoAppDeps): Promise<Response> {
  if (!deps.enabled) return notFound();
  const auth = await bearer(request, deps);
  if (!auth.ok) return auth.response;
  return json({ email: auth.user.email, name: auth.user.name });
}

const noteOut = (note: { id: string; text: string; createdAt: Date }) => ({ id: note.id, text: note.text, created_at: note.createdAt.toISOString() });

/** GET /demo-app/api/notes: the token's user's notes, newest first. */
export async function listNotesEndpoint(request: Request, deps: DemoAppDeps): Promise<Response> {
  if (!deps.enabled) return notFound();
  const auth = await bearer(request, deps);
  if (!auth.ok) return auth.response;
  return json({ notes: (await repo.listNotes(deps.prisma, auth.user.id)).map(noteOut) });
}

/** POST /demo-app/api/notes {text}: adds a note. */
export async function createNoteEndpoint(request: Request, deps: DemoAppDeps): Promise<Response> {
  if (!deps.enabled) return notFound();
  const auth = await bearer(request, deps);
  if (!auth.ok) return auth.response;
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return oauthError("invalid_request", "the body must be JSON: {\"text\": \"...\"}");
  }
  const text = typeof (body as { text?: unknown } | null)?.text === "string" ? (body as { text: string }).text.trim() : "";
  if (text === "" || text.length > NOTE_MAX) return oauthError("invalid_request", `text: a string of 1 to ${NOTE_MAX} characters is required`);
  return json(noteOut(await repo.createNote(deps.prisma, auth.user.id, text)), 201);
}
