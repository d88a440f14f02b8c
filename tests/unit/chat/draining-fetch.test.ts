import { describe, expect, it } from "vitest";
import { drainingRetryFetch } from "@inlay/core/chat/draining-fetch";

const draining = () => new Response("{}", { status: 503, headers: { "x-inlay-draining": "1", "retry-after": "1" } });

describe("drainingRetryFetch", () => {
  it("sends again what a draining instance refused, at once and then after its Retry-After, and returns the next answer", async () => {
    const answers = [draining(), draining(), new Response("ok")];
    const waits: number[] = [];
    const fetcher = drainingRetryFetch(async () => answers.shift()!, async (ms) => void waits.push(ms));
    const response = await fetcher("http://app.test/api/chat", { method: "POST" });
    expect(await response.text()).toBe("ok");
    expect(waits).toEqual([100, 1000]);
  });

  it("returns any other answer as it is, a 503 without the header included, and gives up after ten", async () => {
    let sent = 0;
    const plain = drainingRetryFetch(async () => (sent++, new Response("busy", { status: 503 })), async () => {});
    expect((await plain("http://app.test/api/chat")).status).toBe(503);
    expect(sent).toBe(1);
    sent = 0;
    const always = drainingRetryFetch(async () => (sent++, draining()), async () => {});
    expect((await always("http://app.test/api/chat")).status).toBe(503);
    expect(sent).toBe(10);
  });
});
