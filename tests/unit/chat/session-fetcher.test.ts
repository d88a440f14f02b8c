// @inlay/react's session fetcher: the vendor's session route is asked before the first request and
// shortly before the token expires, every request carries the token and the page's origin and no
// cookie, and a request refused as token_expired is sent once more with a new token.
import { afterEach, describe, expect, it, vi } from "vitest";
import { createSessionFetcher } from "@inlay/react/session";

const expired = () => Response.json({ error: { kind: "token_expired", message: "expired" } }, { status: 401 });

function recorder(answer: (token: string) => Response = () => new Response("ok")) {
  const sent: { token: string | null; origin: string | null; credentials?: RequestCredentials }[] = [];
  const base: typeof fetch = async (_input, init) => {
    const headers = new Headers(init?.headers);
    sent.push({ token: headers.get("x-inlay-embed-token"), origin: headers.get("x-inlay-embed-origin"), credentials: init?.credentials });
    return answer(headers.get("x-inlay-embed-token") ?? "");
  };
  return { sent, base };
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("createSessionFetcher", () => {
  it("asks for a session once for concurrent first requests, and sends its token with the page's origin and no cookies", async () => {
    vi.stubGlobal("location", { origin: "https://shop.test" });
    let asked = 0;
    const { sent, base } = recorder();
    const session = createSessionFetcher(async () => ({ token: `t${++asked}`, expires_at: new Date(Date.now() + 300_000).toISOString() }), base);
    await Promise.all([session.fetch("https://inlay.test/api/chat"), session.fetch("https://inlay.test/api/chat/commands")]);
    expect(asked).toBe(1);
    expect(sent).toEqual([
      { token: "t1", origin: "https://shop.test", credentials: "omit" },
      { token: "t1", origin: "https://shop.test", credentials: "omit" },
    ]);
    session.close();
  });

  it("asks for the first session at start() and tells each new one, with its storage scope", async () => {
    const heard: (string | undefined)[] = [];
    const { sent, base } = recorder();
    const session = createSessionFetcher(
      async () => ({ token: "t1", expires_at: new Date(Date.now() + 300_000).toISOString(), storage_scope: "scope-1" }),
      base,
      (minted) => heard.push(minted.storage_scope),
    );
    expect((await session.start()).token).toBe("t1");
    expect(heard).toEqual(["scope-1"]);
    await session.fetch("https://inlay.test/api/chat");
    // The request used the session start() asked for.
    expect(heard).toHaveLength(1);
    expect(sent.map((each) => each.token)).toEqual(["t1"]);
    session.close();
  });

  it("renews a minute before expiry, so later requests carry the new token", async () => {
    vi.useFakeTimers();
    let asked = 0;
    const { sent, base } = recorder();
    const session = createSessionFetcher(async () => ({ token: `t${++asked}`, expires_at: new Date(Date.now() + 120_000).toISOString() }), base);
    await session.fetch("https://inlay.test/api/chat");
    await vi.advanceTimersByTimeAsync(59_000);
    expect(asked).toBe(1);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(asked).toBe(2);
    await session.fetch("https://inlay.test/api/chat");
    expect(sent.map((each) => each.token)).toEqual(["t1", "t2"]);
    session.close();
  });

  it("sends a request refused as token_expired once more with a new token; a second refusal goes back as is", async () => {
    let asked = 0;
    const { sent, base } = recorder((token) => (token === "t1" ? expired() : new Response("ok")));
    const session = createSessionFetcher(async () => ({ token: `t${++asked}`, expires_at: new Date(Date.now() + 300_000).toISOString() }), base);
    const response = await session.fetch("https://inlay.test/api/chat");
    expect(await response.text()).toBe("ok");
    expect(sent.map((each) => each.token)).toEqual(["t1", "t2"]);

    const always = recorder(() => expired());
    const refusing = createSessionFetcher(async () => ({ token: "t", expires_at: new Date(Date.now() + 300_000).toISOString() }), always.base);
    expect((await refusing.fetch("https://inlay.test/api/chat")).status).toBe(401);
    expect(always.sent).toHaveLength(2);
    session.close();
    refusing.close();
  });

  it("fails the request, naming the route's fault, when the session route answers no token", async () => {
    const { sent, base } = recorder();
    const session = createSessionFetcher(async () => ({ error: "sign in first" }) as never, base);
    await expect(session.fetch("https://inlay.test/api/chat")).rejects.toThrow(/no \{token, expires_at\}/);
    expect(sent).toHaveLength(0);
  });
});
