// Loopback fakes of the apps' APIs, for tests of connections and of tools in runs. The code host fake
// answers GitHub's REST shapes for what the built-in codehost app uses, and checks every Bearer token
// with the tests' OAuth server: a wrong, expired or revoked token gets 401 as GitHub answers it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { OAuthServer } from "./oauth-server";

export interface FakeCall {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  /** The account the token belonged to; null when refused. */
  accountId: string | null;
  /** The token as presented, so tests can tell which one a caller used. */
  token: string | null;
}

export interface CodehostFake {
  /** http://127.0.0.1:<port>: the codehost app's apiBaseUrl. */
  baseUrl: string;
  calls: FakeCall[];
  /** Issues created through the fake, by "owner/repo". */
  issues: Map<string, { number: number; title: string; body: string | null; comments: string[] }[]>;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const send = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
};

export async function startCodehostFake(oauth: Pick<OAuthServer, "validAccessToken">): Promise<CodehostFake> {
  const calls: FakeCall[] = [];
  const issues = new Map<string, { number: number; title: string; body: string | null; comments: string[] }[]>();
  const issuesOf = (repo: string) => {
    let list = issues.get(repo);
    if (!list) issues.set(repo, (list = [{ number: 1, title: "First issue", body: "It is broken.", comments: [] }]));
    return list;
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://fake");
      const body = await readBody(req);
      const header = req.headers.authorization ?? "";
      const token = header.startsWith("Bearer ") ? header.slice("Bearer ".length) : null;
      const owner = token ? await oauth.validAccessToken(token) : null;
      const call: FakeCall = { method: req.method ?? "GET", path: url.pathname, query: Object.fromEntries(url.searchParams), body, accountId: owner?.accountId ?? null, token };
      calls.push(call);
      if (!owner) return send(res, 401, { message: "Bad credentials", documentation_url: "https://docs.github.com/rest" });
      const parts = url.pathname.split("/").filter(Boolean);
      if (req.method === "GET" && url.pathname === "/user") return send(res, 200, { login: owner.accountId, id: 1, name: owner.accountId });
      if (req.method === "GET" && url.pathname === "/user/repos") {
        return send(res, 200, [
          { id: 1, full_name: `${owner.accountId}/hello-world`, private: false },
          { id: 2, full_name: `${owner.accountId}/secret-plans`, private: true },
        ]);
      }
      if (parts[0] === "repos" && parts[3] === "issues" && parts.length >= 4) {
        const repo = `${parts[1]}/${parts[2]}`;
        const list = issuesOf(repo);
        const toIssue = (issue: (typeof list)[number]) => ({ number: issue.number, title: issue.title, body: issue.body, state: "open", comments: issue.comments.length });
        if (parts.length === 4 && req.method === "GET") return send(res, 200, list.map(toIssue));
        if (parts.length === 4 && req.method === "POST") {
          const input = (body ?? {}) as { title?: string; body?: string };
          if (!input.title) return send(res, 422, { message: "Validation Failed", errors: [{ field: "title", code: "missing_field" }] });
          const issue = { number: list.length + 1, title: input.title, body: input.body ?? null, comments: [] };
          list.push(issue);
          return send(res, 201, toIssue(issue));
        }
        const issue = list.find((candidate) => candidate.number === Number(parts[4]));
        if (!issue) return send(res, 404, { message: "Not Found" });
        if (parts.length === 5 && req.method === "GET") return send(res, 200, toIssue(issue));
        if (parts.length === 6 && parts[5] === "comments" && req.method === "POST") {
          const text = ((body ?? {}) as { body?: string }).body;
          if (!text) return send(res, 422, { message: "Validation Failed" });
          issue.comments.push(text);
          return send(res, 201, { id: issue.comments.length, body: text, user: { login: owner.accountId } });
        }
      }
      send(res, 404, { message: "Not Found" });
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    issues,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface ChatFake {
  /** http://127.0.0.1:<port>: the chat app's apiBaseUrl (Slack Web API methods under it). */
  baseUrl: string;
  calls: FakeCall[];
  close(): Promise<void>;
}

/** The chat app's API in Slack's shapes: errors are 200 with {ok: false, error}. */
export async function startChatFake(oauth: Pick<OAuthServer, "validAccessToken">, team = { id: "T0001", name: "Acme" }): Promise<ChatFake> {
  const calls: FakeCall[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://fake");
      const body = await readBody(req);
      const header = req.headers.authorization ?? "";
      const token = header.startsWith("Bearer ") ? header.slice("Bearer ".length) : null;
      const owner = token ? await oauth.validAccessToken(token) : null;
      calls.push({ method: req.method ?? "GET", path: url.pathname, query: Object.fromEntries(url.searchParams), body, accountId: owner?.accountId ?? null, token });
      if (!owner) return send(res, 200, { ok: false, error: "invalid_auth" });
      switch (url.pathname) {
        case "/auth.test":
          return send(res, 200, { ok: true, user: owner.accountId, user_id: "U0001", team: team.name, team_id: team.id });
        case "/conversations.list":
          return send(res, 200, { ok: true, channels: [{ id: "C0001", name: "general", is_private: false }, { id: "C0002", name: "secret", is_private: true }] });
        case "/users.list":
          return send(res, 200, { ok: true, members: [{ id: "U0001", name: owner.accountId, real_name: "Octo Cat", is_bot: false, team_id: team.id }] });
        case "/conversations.create": {
          const name = (body as { name?: string } | null)?.name ?? "";
          if (name === "general") return send(res, 200, { ok: false, error: "name_taken" });
          return send(res, 200, { ok: true, channel: { id: `C${String(calls.length).padStart(4, "0")}`, name, is_private: false } });
        }
        case "/chat.postMessage":
          return send(res, 200, { ok: true, channel: (body as { channel?: string } | null)?.channel, ts: "1700000000.000100" });
        default:
          return send(res, 200, { ok: false, error: "unknown_method" });
      }
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The built-in code host pointed at the tests' OAuth server and this fake (a platform's `apps.overrides.codehost`). */
export const codehostSettings = (oauth: OAuthServer, codehost: Pick<CodehostFake, "baseUrl">) => ({
  clientId: oauth.client.clientId,
  clientSecret: oauth.client.clientSecret,
  authorizationUrl: oauth.authorizationUrl,
  tokenUrl: oauth.tokenUrl,
  revocationUrl: oauth.revocationUrl,
  issuer: oauth.issuer,
  apiBaseUrl: codehost.baseUrl,
});
