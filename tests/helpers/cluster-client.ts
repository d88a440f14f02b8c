// Plain HTTP calls to a cluster's platform (through nginx or one instance), as its cluster tests make
// them: a status, the headers and the parsed body, and a fresh account with one agent.
import { randomUUID } from "node:crypto";

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export async function call(
  baseUrl: string,
  path: string,
  options: { key?: string; method?: string; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Answer> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: options.method ?? (options.body === undefined ? "GET" : "POST"),
    headers: {
      ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
      ...(options.body === undefined ? {} : { "content-type": "application/json" }),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    // A request that must be answered, not left hanging: past this it fails.
    ...(options.timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(options.timeoutMs) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

/** A new account with one agent: each test its own, so its allowance is its own. */
export async function newAccount(baseUrl: string, options: { timeoutMs?: number } = {}): Promise<{ key: string; agentId: number }> {
  const signup = await call(baseUrl, "/signup", {
    body: { email: `cluster-${randomUUID()}@example.test`, first_name: "Cluster", require_end_user_id: false },
    ...options,
  });
  if (signup.status !== 201) throw new Error(`POST /signup: ${signup.status} ${JSON.stringify(signup.body)}`);
  const key: string = signup.body.api_key;
  const agent = await call(baseUrl, "/agents", { key, body: { name: "Clustered" }, ...options });
  if (agent.status !== 201) throw new Error(`POST /agents: ${agent.status} ${JSON.stringify(agent.body)}`);
  return { key, agentId: agent.body.id };
}
