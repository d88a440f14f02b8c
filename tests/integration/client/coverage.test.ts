// The typed client and the platform's /openapi.json name the same operations: every documented
// operation has a client method, and every client method calls a documented operation. The client is
// driven with a recording fetch, so what is compared is what its methods really send (HTTP method and
// path, matched to the document's path templates), not what their comments say.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlatformClient, createSession, refreshSession, signup, token, type PlatformClient } from "@inlay/core/platform-client";
import { readOperations, type JsonSchema } from "../../helpers/openapi-operations";
import { startPlatform, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let documented: string[];

beforeAll(async () => {
  platform = await startPlatform();
  documented = readOperations((await (await platform.request("/openapi.json")).json()) as JsonSchema).map(
    (operation) => `${operation.method} ${operation.path}`,
  );
});
afterAll(() => platform?.close());

const BASE = "http://platform.test/api/v2";

/**
 * Documented operations the client deliberately has no method for, each with why. Not API calls a
 * server makes with a key: pages and callbacks a browser is sent to, and requests third parties make.
 */
const NOT_FOR_THE_CLIENT: Record<string, string> = {
  "GET /apps/oauth/callback": "the OAuth provider sends the person's browser here",
  "GET /mcp-servers/oauth/callback": "the OAuth provider sends the person's browser here",
  "GET /billing/checkout/return": "the payment provider sends the payer's browser here",
  "GET /billing/pay/{reference}": "an HTML page the payer opens (manual payments)",
  "GET /billing/receipt-pages/{token}": "an HTML receipt behind a link in mail",
  "GET /billing/portal-pages/{token}": "an HTML billing page the account's owner opens from POST /billing/portal (manual payments)",
  "POST /billing/webhooks/stripe": "the payment provider's webhook",
  "POST /hooks/agents/{token}": "an agent's inbound webhook: its secret URL is the credential",
  "POST /hooks/tasks/{token}": "a task's inbound webhook: its secret URL is the credential",
  "POST /bridges/{bridge_id}/inbound": "the iMessage bridge server's call, with the bridge's own secret",
  // Answered 422 feature_not_available by this self-hosted platform (docs/platform-api.md): a method
  // could only ever fail.
  "GET /apps/{app}/customers": "not offered self-hosted (422)",
  "GET /apps/{app}/sites": "not offered self-hosted (422)",
  "PUT /apps/{app}/customer": "not offered self-hosted (422)",
  "PUT /apps/{app}/site": "not offered self-hosted (422)",
  "POST /apps/{app}/claim": "not offered self-hosted (422)",
  "POST /apps/{app}/install": "not offered self-hosted (422)",
  "POST /apps/{app}/provision": "not offered self-hosted (422)",
  "POST /apps/{app}/connect/external-oauth": "not offered self-hosted (422)",
  "POST /apps/{app}/connect/external-oauth/complete": "not offered self-hosted (422)",
  "POST /bridges/provision": "not offered self-hosted (422)",
  "POST /bridges/provision-alt": "not offered self-hosted (422)",
};

/** Client members that are not an operation of their own. */
const NOT_OPERATIONS: Record<string, string> = {
  forUser: "a copy of the client scoped to an end-user; sends nothing",
  "runs.startRun": "private: the shared path of create, reply and first-session (given the operation)",
};

/** Methods the "any argument" cannot drive: each gets arguments it can send with. */
const DRIVERS: Record<string, (client: PlatformClient) => Promise<unknown>> = {
  "runs.createWithFiles": (client) => client.runs.createWithFiles({ teammate_id: 1, message: "x", files: [new Blob(["x"])], stream: false }),
  "runs.replyWithFiles": (client) => client.runs.replyWithFiles(1, { message: "x", files: [new Blob(["x"])], stream: false }),
  // A stream connects when iterated; the recording fetch answers 204 (nothing more), which ends it.
  "runs.events": async (client) => {
    for await (const frame of client.runs.events(1)) void frame;
  },
};

/** What each client method sent: `resource.method` → the requests' "METHOD /path" (paths as sent). */
async function driveClient(): Promise<Map<string, string[]>> {
  const sent = new Map<string, string[]>();
  let current = "";
  const recordingFetch: typeof fetch = async (input, init) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    const path = url.pathname.slice(new URL(BASE).pathname.length);
    sent.get(current)?.push(`${(init?.method ?? "GET").toUpperCase()} ${decodeURIComponent(path)}`);
    if (path.endsWith("/events")) return new Response(null, { status: 204 });
    // An empty page: list methods and their collectors stop after one request.
    return new Response(JSON.stringify({ data: [], has_more: false }), { headers: { "content-type": "application/json" } });
  };
  const options = { baseUrl: BASE, apiKey: "sk_test", fetch: recordingFetch, maxRetries: 0 };
  const client = createPlatformClient(options);

  // Any argument: ids become "1" in a path, objects have no fields, so each method sends its request.
  const anything: unknown = new Proxy({}, { get: (_, key) => (key === Symbol.toPrimitive ? () => "1" : undefined) });
  const call = async (name: string, run: () => unknown) => {
    current = name;
    sent.set(name, []);
    if (name in NOT_OPERATIONS) return;
    try {
      const result = DRIVERS[name] ? DRIVERS[name](client) : (run() as { then?: unknown } | undefined);
      if (result && typeof (result as { then?: unknown }).then === "function") await result;
    } catch {
      // The answer is not what the method expects (an empty page for everything): the request was sent.
    }
  };

  // Resources are objects of classes (methods on the prototypes) and plain objects of functions
  // (modelConnections.authorizations); a class met twice (tasks' own Runs) is walked once.
  const walked = new Set<object>();
  const walk = async (resource: object, prefix: string) => {
    for (const [field, value] of Object.entries(resource)) {
      if (field === "transport") continue;
      if (typeof value === "function") await call(`${prefix}${field}`, () => (value as (...args: unknown[]) => unknown)(anything, anything, anything, anything));
      else if (value && typeof value === "object") await walk(value, `${prefix}${field}.`);
    }
    const proto = Object.getPrototypeOf(resource) as object;
    if (walked.has(proto)) return;
    walked.add(proto);
    for (let each = proto; each && each !== Object.prototype; each = Object.getPrototypeOf(each) as object) {
      for (const name of Object.getOwnPropertyNames(each)) {
        const descriptor = Object.getOwnPropertyDescriptor(each, name);
        if (name === "constructor" || name === "paged" || typeof descriptor?.value !== "function") continue;
        const method = descriptor.value as (...args: unknown[]) => unknown;
        await call(`${prefix}${name}`, () => method.apply(resource, [anything, anything, anything, anything]));
      }
    }
  };
  await walk(client, "");
  for (const [name, fn] of Object.entries({ signup, token, createSession, refreshSession })) {
    await call(name, () => (fn as (...args: unknown[]) => unknown)(options, anything));
  }
  return sent;
}

/** The documented operation a request matches: literal segments before parameters (/runs/needs-you before /runs/{run_id}). */
function matcher(operations: string[]) {
  const escape = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
  const compiled = operations
    .map((operation) => {
      const [method, path = ""] = operation.split(" ");
      const pattern = new RegExp(`^${method} ${path.split(/\{[^}]+\}/).map(escape).join("[^/]+")}$`);
      return { operation, pattern, params: (path.match(/\{/g) ?? []).length };
    })
    .sort((a, b) => a.params - b.params);
  return (request: string) => compiled.find((each) => each.pattern.test(request))?.operation;
}

describe("the typed client covers /openapi.json", () => {
  let sent: Map<string, string[]>;
  let covered: Map<string, string[]>;
  beforeAll(async () => {
    sent = await driveClient();
    const match = matcher(documented);
    covered = new Map();
    for (const [method, requests] of sent) {
      for (const request of requests) {
        const operation = match(request) ?? `undocumented: ${request}`;
        covered.set(operation, [...(covered.get(operation) ?? []), method]);
      }
    }
  });

  it("drives the whole client", () => {
    // A guard against a walk that finds nothing (and so reports no gap).
    expect(sent.size).toBeGreaterThan(150);
    expect(covered.get("GET /runs/{run_id}")).toContain("runs.get");
    expect(covered.get("GET /runs/needs-you")).toContain("runs.needsYou");
  });

  it("has a method for every documented operation, but those the allow-list explains", () => {
    const missing = documented.filter((operation) => !covered.has(operation) && !(operation in NOT_FOR_THE_CLIENT));
    expect(missing).toEqual([]);
    // The allow-list names documented operations the client really lacks: no stale entry hides a change.
    expect(Object.keys(NOT_FOR_THE_CLIENT).filter((operation) => !documented.includes(operation) || covered.has(operation))).toEqual([]);
  });

  it("calls a documented operation from every method", () => {
    const undocumented = [...covered.keys()].filter((operation) => operation.startsWith("undocumented: "));
    expect(undocumented.map((operation) => `${covered.get(operation)!.join(", ")} → ${operation}`)).toEqual([]);
    const silent = [...sent].filter(([method, requests]) => requests.length === 0 && !(method in NOT_OPERATIONS)).map(([method]) => method);
    expect(silent).toEqual([]);
  });
});
