// Every link the platform hands out starts at its configured public base URL (INLAY_PLATFORM_PUBLIC_URL),
// whatever Host header the request came with: a forged Host must not put an attacker's origin in a
// verification mail, a payment link or a webhook URL.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPlatform, type Account, type PlatformHarness } from "../../helpers/platform";

const PUBLIC = "https://agents.example.test/api/v2";
const FORGED_HOST = "evil.example.test";

let platform: PlatformHarness;
let account: Account;

beforeAll(async () => {
  // No signup credit: a run is refused 402 with its topup_url.
  platform = await startPlatform({ publicBaseUrl: PUBLIC, billing: { signupCreditMicros: 0 } });
  account = await platform.signup();
});
afterAll(() => platform.close());

/** A JSON call sent with a forged Host header (fetch will not send one). */
function callWithHost(path: string, options: { method?: string; key?: string; body?: unknown } = {}) {
  const url = new URL(`${platform.baseUrl}${path}`);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: options.method ?? (payload === undefined ? "GET" : "POST"),
        headers: {
          host: FORGED_HOST,
          "x-forwarded-host": FORGED_HOST,
          ...(options.key ? { authorization: `Bearer ${options.key}` } : {}),
          ...(payload === undefined ? {} : { "content-type": "application/json" }),
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}

/** Every absolute URL in `value`, however deep. */
function urlsIn(value: unknown): string[] {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return [...text.matchAll(/https?:\/\/[^\s"\\]+/g)].map((match) => match[0]);
}

const cases: { name: string; links: () => Promise<unknown> }[] = [
  {
    name: "an error's doc_url",
    links: async () => (await callWithHost("/agents/999999", { key: account.key })).body.error.doc_url,
  },
  {
    name: "the verification mail",
    links: async () => {
      const signup = await callWithHost("/signup", { body: { email: "forged-host@example.test", first_name: "F" } });
      expect(signup.status).toBe(201);
      return platform.lastMail("forged-host@example.test", "verify_email").text;
    },
  },
  {
    name: "the verification mail sent again",
    links: async () => {
      expect((await callWithHost("/verify/resend", { method: "POST", key: account.key })).status).toBe(200);
      return platform.lastMail(account.email, "verify_email").text;
    },
  },
  {
    name: "a team invite mail",
    links: async () => {
      const invited = await callWithHost(`/teams/${account.id}/invites`, { key: account.key, body: { email: "invitee@example.test" } });
      expect(invited.status).toBe(201);
      return platform.lastMail("invitee@example.test", "team_invite").text;
    },
  },
  {
    name: "a top-up's checkout_url",
    links: async () => {
      const topup = await callWithHost("/billing/topup", { key: account.key, body: { amount_cents: 1_000 } });
      expect(topup.status).toBe(200);
      return topup.body.checkout_url;
    },
  },
  {
    name: "a refused run's topup_url",
    links: async () => {
      const agent = await callWithHost("/agents?user_id=u1", { key: account.key, body: { name: "Broke" } });
      const refused = await callWithHost("/runs?user_id=u1", { key: account.key, body: { teammate_id: agent.body.id, message: "hi", stream: false } });
      expect(refused.status).toBe(402);
      return refused.body.error.topup_url;
    },
  },
  {
    name: "an agent's webhook_url",
    links: async () => {
      const agent = await callWithHost("/agents?user_id=u1", { key: account.key, body: { name: "Hooked", webhook: true } });
      expect(agent.status).toBe(201);
      return agent.body.webhook_url;
    },
  },
  {
    name: "a task's webhook_url",
    links: async () => {
      const agent = await callWithHost("/agents?user_id=u1", { key: account.key, body: { name: "Tasked" } });
      const task = await callWithHost("/tasks?user_id=u1", { key: account.key, body: { teammate_id: agent.body.id, instructions: "Triage" } });
      const hook = await callWithHost(`/tasks/${task.body.id}/webhook?user_id=u1`, { key: account.key, body: {} });
      expect(hook.status).toBe(200);
      return hook.body.webhook_url;
    },
  },
];

describe("links with a forged Host header", () => {
  it.each(cases)("$name starts at the configured public base URL", async ({ links }) => {
    const urls = urlsIn(await links());
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url.startsWith(`${PUBLIC}/`)).toBe(true);
  });
});
