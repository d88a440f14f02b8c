// The embed iframe's fetch renews an expired token once and sends the request again; nothing else is retried.
import { describe, expect, it } from "vitest";
import { EMBED_TOKEN_HEADER_NAME, renewingFetch } from "@inlay/core/chat/renewing-fetch";

const expired = () => Response.json({ error: { kind: "token_expired", message: "expired" } }, { status: 401 });
const refused = () => Response.json({ error: { kind: "unauthorized", message: "no" } }, { status: 401 });

function harness(answers: (() => Response)[]) {
  const sent: string[] = [];
  let token = "old";
  let renewals = 0;
  const fetcher = renewingFetch({
    token: () => token,
    renew: async () => {
      renewals++;
      token = `new${renewals}`;
    },
    fetch: async (_input, init) => {
      sent.push(new Headers(init?.headers).get(EMBED_TOKEN_HEADER_NAME) ?? "");
      return answers.shift()!();
    },
  });
  return { fetcher, sent, renewals: () => renewals };
}

describe("renewingFetch", () => {
  it("renews an expired token and sends the request again with the new one", async () => {
    const { fetcher, sent, renewals } = harness([expired, () => Response.json({ ok: true })]);
    const response = await fetcher("/api/chat", { method: "POST", headers: { [EMBED_TOKEN_HEADER_NAME]: "old" }, body: "{}" });
    expect(await response.json()).toEqual({ ok: true });
    expect(sent).toEqual(["old", "new1"]);
    expect(renewals()).toBe(1);
  });

  it("retries once: a second expiry goes back to the caller", async () => {
    const { fetcher, sent } = harness([expired, expired]);
    const response = await fetcher("/api/chat", { headers: { [EMBED_TOKEN_HEADER_NAME]: "old" } });
    expect(response.status).toBe(401);
    expect(sent).toHaveLength(2);
  });

  it("leaves a refusal and any other answer alone", async () => {
    for (const answer of [refused, () => new Response("boom", { status: 500 }), () => Response.json({ ok: true })]) {
      const { fetcher, sent, renewals } = harness([answer]);
      await fetcher("/api/chat", { headers: { [EMBED_TOKEN_HEADER_NAME]: "old" } });
      expect(sent).toEqual(["old"]);
      expect(renewals()).toBe(0);
    }
  });

  it("gives the expired answer back when no new token comes", async () => {
    const fetcher = renewingFetch({
      token: () => "old",
      renew: () => Promise.reject(new Error("no new embed token")),
      fetch: async () => expired(),
    });
    const response = await fetcher("/api/chat");
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { kind: string } }).error.kind).toBe("token_expired");
  });
});
