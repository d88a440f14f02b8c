// Who may call what, over every operation in /openapi.json (#19 item 3, on the model of unkey's shared
// route tests): no key, a malformed key and a revoked key are 401; another account's resource is 404;
// an end-user's resource is 404 under another end-user's user_id and unreachable without one. The
// operations come from the document, so a new route is covered the day it is registered: every path
// parameter must have a fixture below, or this file fails.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { label, readOperations, type JsonSchema, type Operation } from "../../helpers/openapi-operations";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

/** Ids of resources made by one scope (an account, or one of its end-users). */
type Ids = Record<string, string>;

interface Fixture {
  /**
   * Makes the resource in the owner's scope (userId undefined: the account level) and returns the ids
   * of it and its parents. Undefined: the parameter names nothing a caller owns (an app's slug), or a
   * child whose parent is what is checked (a delivery of the owner's webhook).
   */
  make?: (owner: Account, userId: string | undefined, ids: Ids) => Promise<string>;
  /** Parameters that must exist first (a trigger needs its task). */
  needs?: string[];
  /** Only the account level has these (keys); no end-user form. */
  accountOnly?: boolean;
  /** Only end-users have these (memories, permissions). */
  endUserOnly?: boolean;
  /** A value for parameters without `make`. */
  placeholder?: string;
}

let platform: PlatformHarness;
let owner: Account;
let stranger: Account;
let revokedKey: string;
let operations: Operation[];

let counter = 0;
const unique = (prefix: string) => `${prefix}-${++counter}-${Date.now().toString(36)}`;

async function created(path: string, key: string, body: Record<string, unknown>, userId?: string): Promise<any> {
  const response = await platform.call(path, { key, body, query: userId ? { user_id: userId } : {} });
  if (response.status !== 201 && response.status !== 200) {
    throw new Error(`fixture POST ${path}: ${response.status} ${JSON.stringify(response.body)}`);
  }
  return response.body;
}

/** The end-user's profile row (made on first use, as any call naming the user_id does). */
async function endUserRow(who: Account, userId: string | undefined) {
  if (userId === undefined) return null;
  await platform.call("/memories", { key: who.key, query: { user_id: userId } });
  return platform.database.prisma.platformEndUser.findFirstOrThrow({ where: { accountId: who.id, externalId: userId } });
}

const fixtures: Record<string, Fixture> = {
  agent_id: {
    make: async (who, userId) => String((await created("/agents", who.key, { name: unique("agent") }, userId)).id),
  },
  teammate_id: {
    make: async (who, userId) => String((await created("/agents", who.key, { name: unique("mate") }, userId)).id),
  },
  run_id: {
    needs: ["agent_id"],
    make: async (who, userId, ids) =>
      String((await created("/runs", who.key, { teammate_id: Number(ids.agent_id), message: "hello", stream: false }, userId)).id),
  },
  task_id: {
    needs: ["agent_id"],
    make: async (who, userId, ids) =>
      String((await created("/tasks", who.key, { teammate_id: Number(ids.agent_id), name: unique("task"), instructions: "Say hi." }, userId)).id),
  },
  trigger_id: {
    needs: ["task_id"],
    make: async (who, userId, ids) =>
      String(
        (await created(`/tasks/${ids.task_id}/triggers`, who.key, { type: "schedule", cron: "0 9 * * *", timezone: "UTC" }, userId)).id,
      ),
  },
  lesson_id: { needs: ["task_id"], placeholder: "1" },
  memory_id: {
    endUserOnly: true,
    make: async (who, userId) => String((await created("/memories", who.key, { content: "likes tea" }, userId)).id),
  },
  permission_id: {
    endUserOnly: true,
    make: async (who, userId) => String((await created("/permissions", who.key, { tool: unique("tool") }, userId)).id),
  },
  skill_id: {
    make: async (who, userId) =>
      String((await created("/skills", who.key, { name: unique("skill"), description: "d", body: "Do it well." }, userId)).id),
  },
  server_id: {
    make: async (who, userId) =>
      String(
        (
          await created(
            "/mcp-servers",
            who.key,
            {
              name: unique("server"),
              kind: "rest_api",
              url: "https://tools.example.test",
              tool_defs: [{ name: "ping", description: "ping", method: "GET", path: "/ping" }],
            },
            userId,
          )
        ).id,
      ),
  },
  webhook_id: {
    make: async (who, userId) =>
      String((await created("/webhooks", who.key, { url: "https://hooks.example.test/in", events: ["run.completed"] }, userId)).id),
  },
  delivery_id: { needs: ["webhook_id"], placeholder: "1" },
  key_id: {
    accountOnly: true,
    make: async (who) => String((await created("/keys", who.key, { name: unique("key") })).id),
  },
  report_id: {
    needs: ["agent_id"],
    // Reports are written by an agent's report_issue tool; the row is what matters here.
    make: async (who, userId, ids) => {
      const prisma = platform.database.prisma;
      const endUser = await endUserRow(who, userId);
      const row = await prisma.platformAgentIssueReport.create({
        data: { accountId: who.id, endUserId: endUser?.id ?? null, agentId: Number(ids.agent_id), summary: "broken" },
      });
      return String(row.id);
    },
  },
  connection_id: {
    // A connection row as a completed connect leaves it (the connect flows have their own tests).
    make: async (who, userId) => {
      const prisma = platform.database.prisma;
      const endUser = await endUserRow(who, userId);
      const row = await prisma.platformAppConnection.create({
        data: { id: unique("conn_authz"), accountId: who.id, endUserId: endUser?.id ?? null, app: "codehost", authKind: "api_key", status: "active" },
      });
      return row.id;
    },
  },
  use_case_id: {
    make: async (who, userId) => String((await created("/value/use-cases", who.key, { name: unique("use-case"), goal: "Fewer hours" }, userId)).id),
  },
  observation_id: {
    needs: ["use_case_id"],
    make: async (who, userId, ids) =>
      String(
        (
          await created(
            `/value/use-cases/${ids.use_case_id}/observations`,
            who.key,
            {
              kind: "cost_saving",
              evidence_level: "measured",
              title: "Saved an hour",
              amount_usd: 50,
              evidence: [{ source: "external", record_id: "ticket-42" }],
              observed_at: new Date(Date.now() - 3_600_000).toISOString(),
            },
            userId,
          )
        ).id,
      ),
  },
  judgment_id: {
    make: async (who, userId) =>
      String(
        (
          await created(
            "/judgments",
            who.key,
            { mode: "decide", state: { ticket: "broken parcel" }, questions: [{ type: "noul", id: "refund", prompt: "Refund owed?" }] },
            userId,
          )
        ).id,
      ),
  },
  bridge_id: {
    accountOnly: true,
    make: async (who) => String((await created("/bridges", who.key, { server_url: "https://bridge.example.test", password: "bridge-password" })).id),
  },
  handle_id: {
    // Handles are linked by texting a link code to the bridge (bridges.test.ts); the row is what matters here.
    needs: ["bridge_id"],
    make: async (_who, _userId, ids) =>
      String((await platform.database.prisma.platformBridgeHandle.create({ data: { bridgeId: Number(ids.bridge_id), handle: `+1555${++counter}0000` } })).id),
  },
  // A team is its account: the org id is the account's own.
  org_id: { accountOnly: true, make: async (who) => String(who.id) },
  // GET /teams/invites/{invite} reads it as a token (an id is an unknown token: 404), DELETE as the id.
  invite: {
    accountOnly: true,
    make: async (who) => String((await created(`/teams/${who.id}/invites`, who.key, { email: `${unique("invitee")}@example.test` })).id),
  },
  member_id: { needs: ["org_id"], placeholder: "1" },
  account_id: {
    // A provider-side account under the owner's openai connection (PUT with an API key).
    accountOnly: true,
    needs: ["provider"],
    make: async (who) => {
      const put = await platform.call("/model-connections/openai", { key: who.key, method: "PUT", body: { api_key: `sk-${unique("key")}-0123456789` } });
      if (put.status >= 300) throw new Error(`fixture PUT /model-connections/openai: ${put.status} ${JSON.stringify(put.body)}`);
      const listed = await platform.call("/model-connections", { key: who.key });
      const openai = listed.body.data.find((each: { provider: string }) => each.provider === "openai");
      return String(openai.accounts.at(-1).id);
    },
  },
  // Repositories need a code-host connection (agents-more.test.ts binds them); their agent is checked here.
  repo_id: { needs: ["agent_id"], accountOnly: true, placeholder: "1" },
  key: { needs: ["repo_id"], placeholder: "API_TOKEN" },
  // An authorization's state is a capability, like a token: unknown ones are 404 to everyone.
  state: { needs: ["provider"], placeholder: "not-a-state" },
  receipt_id: { placeholder: "1" },
  reference: { placeholder: "R-000001" },
  provider: { placeholder: "openai" },
  // Names, not resources: an end-user's user_id is the account's own namespace, an app is a slug of the
  // catalogue, a document is named within its agent, a workspace within the account's chat connection.
  user_id: { placeholder: "someone" },
  app: { placeholder: "codehost" },
  name: { needs: ["agent_id"], placeholder: "notes.md" },
  team_id: { placeholder: "T000" },
  token: { placeholder: "not-a-token" },
};

/** Operations the fixtures above cannot put in another scope's reach (and why). */
const notScoped = new Set([
  // user_id in the path is a name in the caller's own namespace: another account's caller names its own.
  "GET /users/{user_id}",
  "PATCH /users/{user_id}",
  "DELETE /users/{user_id}",
]);

/** Public in the document because they take no bearer key; they check a credential of their own. */
const ownCredential = new Set([
  "POST /token",
  "POST /account/sessions",
  "POST /account/sessions/refresh",
  "POST /operator/credits",
  "POST /operator/signup-invites",
  // The bridge server's inbound deliveries carry the bridge's secret in X-Bridge-Secret.
  "POST /bridges/{bridge_id}/inbound",
]);

/** Where the spec lets the account view reach an end-user's resource without user_id. */
const accountViewReaches = new Set([
  // endpoints-core.md: user_id "must match the task's scope; omitted inherits it".
  "POST /tasks/{task_id}/runs",
]);

const fill = (path: string, ids: Ids) => path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(ids[name] ?? fixtures[name]?.placeholder ?? "1"));

/** The parameters a path needs, parents first. */
function paramsInOrder(names: string[]): string[] {
  const ordered: string[] = [];
  const visit = (name: string) => {
    if (ordered.includes(name)) return;
    for (const parent of fixtures[name]?.needs ?? []) visit(parent);
    ordered.push(name);
  };
  names.forEach(visit);
  return ordered;
}

async function makeIds(operation: Operation, who: Account, userId: string | undefined): Promise<Ids> {
  const ids: Ids = {};
  for (const name of paramsInOrder(operation.pathParams)) {
    const fixture = fixtures[name]!;
    if (fixture.make) ids[name] = await fixture.make(who, userId, ids);
  }
  return ids;
}

/** Calls `operation` on the given ids, with user_id where the operation takes one (query or body). */
async function callOperation(operation: Operation, key: string | null, ids: Ids, userId?: string) {
  const query: Record<string, string> = {};
  let body = operation.body ? { ...operation.body } : undefined;
  if (userId !== undefined) {
    if (operation.query.has("user_id")) query.user_id = userId;
    else if (body) body = { ...body, user_id: userId };
  }
  const form = new FormData();
  if (operation.multipart) form.set("payload", JSON.stringify({ message: "hello", teammate_id: 1 }));
  const response = await platform.request(`${fill(operation.path, ids)}${Object.keys(query).length ? `?${new URLSearchParams(query)}` : ""}`, {
    method: operation.method,
    headers: { ...(key === null ? {} : { authorization: `Bearer ${key}` }), ...(body ? { "content-type": "application/json" } : {}) },
    body: operation.multipart ? form : body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  let parsed: any = undefined;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, body: parsed };
}

/** The operations whose path names a resource of a scope (not only names and slugs). */
const owned = (operation: Operation) =>
  !notScoped.has(label(operation)) && operation.pathParams.some((name) => fixtures[name]?.make || fixtures[name]?.needs?.some((parent) => fixtures[parent]?.make));

const endUserCapable = (operation: Operation) =>
  operation.pathParams.every((name) => !fixtures[name]?.accountOnly) && (operation.query.has("user_id") || operation.body !== undefined);

beforeAll(async () => {
  platform = await startPlatform();
  owner = await platform.signup({ require_end_user_id: false });
  stranger = await platform.signup({ require_end_user_id: false });
  const doomed = await platform.signup({ require_end_user_id: false });
  const named = await created("/keys", doomed.key, { name: "doomed" });
  revokedKey = named.key;
  const revoked = await platform.call(`/keys/${named.id}`, { key: doomed.key, method: "DELETE" });
  expect(revoked.status).toBe(204);
  operations = readOperations((await (await platform.request("/openapi.json")).json()) as JsonSchema);
}, 120_000);
afterAll(() => platform.close());

describe("the table covers the API", () => {
  it("has a fixture for every path parameter of every operation", () => {
    const missing = [...new Set(operations.flatMap((operation) => operation.pathParams))].filter((name) => !fixtures[name]);
    expect(missing).toEqual([]);
    expect(operations.length).toBeGreaterThan(100);
  });
});

describe("credentials", () => {
  it("answers 401 in the envelope to every protected operation without a key, with a malformed key and with a revoked key", async () => {
    const wrong: string[] = [];
    for (const operation of operations.filter((each) => !each.isPublic)) {
      for (const [what, key] of [["no key", null], ["malformed key", "sk_inlay_nope"], ["revoked key", revokedKey]] as const) {
        const response = await callOperation(operation, key, {});
        if (response.status !== 401 || response.body?.error?.type !== "authentication_error") {
          wrong.push(`${label(operation)} with ${what}: ${response.status} ${JSON.stringify(response.body).slice(0, 160)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  }, 120_000);

  it("serves every public operation without a key, and never with a 5xx", async () => {
    const wrong: string[] = [];
    for (const operation of operations.filter((each) => each.isPublic)) {
      const response = await callOperation(operation, null, {});
      // These take their credential in the body or their own header: a wrong one is their 401.
      if ((response.status === 401 && !ownCredential.has(label(operation))) || response.status >= 500) wrong.push(`${label(operation)}: ${response.status}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe("another account", () => {
  it("answers 404 for another account's resource on every operation that names one, and leaves it alone", async () => {
    const wrong: string[] = [];
    const checked = operations.filter((each) => !each.isPublic && owned(each));
    expect(checked.length).toBeGreaterThan(60);
    for (const operation of checked) {
      // Memories and permissions exist only per end-user: both sides then name the same user_id, each in
      // its own account.
      const userId = operation.pathParams.some((name) => fixtures[name]?.endUserOnly) ? unique("eu") : undefined;
      const ids = await makeIds(operation, owner, userId);
      const theirs = await callOperation(operation, stranger.key, ids, userId);
      if (theirs.status === 404 && theirs.body?.error?.type === "not_found") continue;
      // A body the sampler could not make valid is refused before anything is looked up: that is only
      // acceptable when the owner's identical request is refused the same way.
      if (theirs.status === 422) {
        const mine = await callOperation(operation, owner.key, ids, userId);
        if (mine.status === 422) continue;
      }
      wrong.push(`${label(operation)}: ${theirs.status} ${JSON.stringify(theirs.body).slice(0, 160)}`);
    }
    expect(wrong).toEqual([]);
  }, 300_000);
});

describe("end-users", () => {
  it("answers 404 for an end-user's resource under another end-user's user_id, and refuses it to the account view", async () => {
    const wrong: string[] = [];
    const checked = operations.filter((each) => !each.isPublic && owned(each) && endUserCapable(each));
    expect(checked.length).toBeGreaterThan(60);
    for (const operation of checked) {
      const alice = unique("alice");
      const ids = await makeIds(operation, owner, alice);
      const cases = [["another end-user", unique("bob")], ["no user_id", undefined]] as const;
      for (const [who, userId] of cases.filter(([, userId]) => userId !== undefined || !accountViewReaches.has(label(operation)))) {
        const response = await callOperation(operation, owner.key, ids, userId);
        if (response.status === 404 && response.body?.error?.type === "not_found") continue;
        // Without user_id, "user_id is required" is as good as not found: nothing is reached.
        if (userId === undefined && response.status === 422 && response.body?.error?.error_code === "end_user_id_required") continue;
        if (response.status === 422) {
          const hers = await callOperation(operation, owner.key, ids, alice);
          if (hers.status === 422) continue;
        }
        wrong.push(`${label(operation)} with ${who}: ${response.status} ${JSON.stringify(response.body).slice(0, 160)}`);
      }
    }
    expect(wrong).toEqual([]);
  }, 300_000);
});
