// No input yields a 5xx (#19 item 2): every operation in /openapi.json, fed NUL bytes and lone
// surrogates in its strings (path, query, body), integers outside the columns' range, non-integers
// where ids go, and deeply nested JSON, answers a 4xx in the spec's envelope or stores what it
// accepted. Parameters are mutated one at a time over a body that otherwise passes validation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { label, readOperations, type JsonSchema, type Operation } from "../../helpers/openapi-operations";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

let platform: PlatformHarness;
let account: Account;
let operations: Operation[];

beforeAll(async () => {
  // A chat client, so GET /channels/install-links takes its input to the connect flows instead of
  // answering its documented 503 (no chat app) before reading it. Starting a flow calls no one.
  platform = await startPlatform({ apps: { overrides: { chat: { clientId: "hostile-chat-client", clientSecret: "hostile-chat-secret" } } } });
  account = await platform.signup({ require_end_user_id: false });
  operations = readOperations((await (await platform.request("/openapi.json")).json()) as JsonSchema);
}, 60_000);
afterAll(() => platform.close());

const PLACEHOLDERS: Record<string, string> = {
  app: "codehost",
  user_id: "someone",
  name: "notes.md",
  token: "x",
  team_id: "T1",
  provider: "openai",
  state: "x",
  key: "API_TOKEN",
  reference: "R-000001",
};

// Raw (already percent-encoded) values for the URL.
const HOSTILE_URL_VALUES = {
  nul: "a%00b",
  "lone surrogate": "%ED%A0%80",
  "bad percent-encoding": "%E0%A4%A",
  "huge integer": "99999999999999999999",
  "int4 overflow": "2147483648",
  negative: "-1",
  fraction: "1.5",
  exponent: "1e3",
  hex: "0x10",
};

// Spliced into the body's text: JSON.stringify itself overflows the stack on such depths.
const DEEP = "\u0001deeply-nested\u0001";
const deepJson = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

function hostileBodyValues(schema: JsonSchema): Record<string, unknown> {
  const type = Array.isArray(schema.type) ? schema.type.find((each: string) => each !== "null") : schema.type;
  const common = { "deeply nested": DEEP, "non-integer id": true };
  if (type === "string") return { ...common, nul: "a\u0000b", "lone surrogate": "a\ud800b" };
  if (type === "integer" || type === "number") {
    return { ...common, "huge integer": 99_999_999_999_999_999_999, "int8 overflow": 2 ** 63, "int4 overflow": 2_147_483_648, float: 1.5, string: "1" };
  }
  if (type === "array") return { ...common, "array of NULs": ["a\u0000b"], "array of huge integers": [2 ** 63] };
  if (type === "object" || type === undefined) {
    return { ...common, "NUL key": { "a\u0000b": 1 }, "NUL value": { a: "a\u0000b" }, "surrogate value": { a: "\ud800" } };
  }
  return common;
}

function urlFor(operation: Operation, overrides: Record<string, string> = {}, query: Record<string, string> = {}) {
  const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => overrides[name] ?? PLACEHOLDERS[name] ?? "1");
  const search = Object.entries(query)
    .map(([name, value]) => `${name}=${value}`)
    .join("&");
  return search ? `${path}?${search}` : path;
}

/** A body given as text is sent as it is (JSON.stringify itself overflows on 100,000 levels). */
async function send(operation: Operation, url: string, body?: unknown): Promise<{ status: number; text: string }> {
  const hasBody = body !== undefined || operation.body !== undefined;
  const form = new FormData();
  if (operation.multipart) form.set("payload", JSON.stringify(body ?? { message: "hello" }));
  const response = await platform.request(url, {
    method: operation.method,
    headers: {
      authorization: `Bearer ${account.key}`,
      ...(hasBody && !operation.multipart ? { "content-type": "application/json" } : {}),
    },
    body: operation.multipart
      ? form
      : typeof body === "string"
        ? body
        : hasBody
          ? JSON.stringify(body ?? operation.body).replace(JSON.stringify(DEEP), deepJson(5_000))
          : undefined,
  });
  return { status: response.status, text: await response.text() };
}

/** A refusal must be a 4xx in the envelope; anything else is a finding. */
function judge(findings: string[], what: string, response: { status: number; text: string; headers?: string }) {
  if (response.status >= 500) findings.push(`${what}: ${response.status} ${response.text.slice(0, 200)}`);
  else if (response.status >= 400 && response.headers !== "html") {
    let envelope: any;
    try {
      envelope = JSON.parse(response.text);
    } catch {
      envelope = undefined;
    }
    if (!envelope?.error?.type || !envelope.error.message) findings.push(`${what}: ${response.status} without the envelope: ${response.text.slice(0, 200)}`);
  }
}

// The OAuth callbacks answer a person's browser with a page, not JSON.
const pages = new Set(["GET /apps/oauth/callback", "GET /mcp-servers/oauth/callback", "GET /verify/confirm"]);
const judged = (operation: Operation, findings: string[], what: string, response: { status: number; text: string }) =>
  judge(findings, what, pages.has(label(operation)) && response.status < 500 ? { ...response, headers: "html" } : response);

describe("hostile input over every operation", () => {
  it("answers path parameters that are not what they name with a 4xx in the envelope", async () => {
    const findings: string[] = [];
    for (const operation of operations.filter((each) => each.pathParams.length > 0)) {
      for (const name of operation.pathParams) {
        for (const [kind, value] of Object.entries(HOSTILE_URL_VALUES)) {
          judged(operation, findings, `${label(operation)} ${name}=${kind}`, await send(operation, urlFor(operation, { [name]: value })));
        }
      }
    }
    expect(findings).toEqual([]);
  }, 300_000);

  it("answers hostile query parameters with a 4xx in the envelope, or serves them", async () => {
    const findings: string[] = [];
    for (const operation of operations) {
      for (const name of operation.query) {
        for (const [kind, value] of Object.entries(HOSTILE_URL_VALUES)) {
          judged(operation, findings, `${label(operation)} ?${name}=${kind}`, await send(operation, urlFor(operation, {}, { [name]: value })));
        }
      }
    }
    expect(findings).toEqual([]);
  }, 300_000);

  it("answers hostile body fields with a 4xx in the envelope, or stores them", async () => {
    const findings: string[] = [];
    for (const operation of operations.filter((each) => each.body !== undefined || each.multipart)) {
      const base = (operation.body ?? {}) as Record<string, unknown>;
      for (const [field, schema] of Object.entries(operation.bodyProperties)) {
        for (const [kind, value] of Object.entries(hostileBodyValues(schema))) {
          judged(operation, findings, `${label(operation)} body.${field}=${kind}`, await send(operation, urlFor(operation), { ...base, [field]: value }));
        }
      }
      judged(operation, findings, `${label(operation)} a deeply nested body`, await send(operation, urlFor(operation), deepJson(100_000)));
    }
    expect(findings).toEqual([]);
  }, 600_000);

  it("answers a malformed JSON body and a body that is not an object with a 4xx in the envelope", async () => {
    const findings: string[] = [];
    for (const operation of operations.filter((each) => each.body !== undefined)) {
      for (const [kind, raw] of [["truncated", '{"a":'], ["a string", '"text"'], ["null", "null"], ["NUL escape", '{"a":"\\u0000"}']]) {
        const response = await platform.request(urlFor(operation), {
          method: operation.method,
          headers: { authorization: `Bearer ${account.key}`, "content-type": "application/json" },
          body: raw,
        });
        judged(operation, findings, `${label(operation)} ${kind} body`, { status: response.status, text: await response.text() });
      }
    }
    expect(findings).toEqual([]);
  }, 300_000);
});
