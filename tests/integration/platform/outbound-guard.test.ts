// guardedFetch against a real loopback server: what reaches it, what is refused before any connection,
// redirects, timeouts and the body cap. Only 127.0.0.0/8 is ever connected to: names resolve through a
// fake resolver, and every socket undici opens is recorded and checked.
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type LookupFunction, type AddressInfo, type Socket } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { closeOutboundAgents, guardedFetch, guardedStreamingFetch, OutboundError, type OutboundOptions } from "@/server/platform/outbound/guarded-fetch";

type Seen = { method: string; url: string; body: string };
const seen: Seen[] = [];
const connectedTo: string[] = [];
const connectAttempts: string[] = [];

let server: Server;
let releaseEvents: (() => void) | undefined;
let base: string;
let port: number;

function handle(req: IncomingMessage, res: ServerResponse, body: string) {
  seen.push({ method: req.method ?? "", url: req.url ?? "", body });
  const path = req.url ?? "/";
  if (path === "/echo") return res.writeHead(201, { "content-type": "text/plain", "x-seen": "yes" }).end(`got ${req.method} ${body}`);
  if (path === "/to-metadata") return res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data" }).end();
  if (path === "/to-mapped-metadata") return res.writeHead(302, { location: "http://[::ffff:a9fe:a9fe]/latest/meta-data" }).end();
  if (path === "/to-mapped-private") return res.writeHead(307, { location: "http://[::ffff:10.0.0.5]/" }).end();
  if (path === "/to-mapped-loopback") return res.writeHead(307, { location: `http://[::ffff:127.0.0.1]:${port}/echo` }).end();
  if (path === "/to-internal") return res.writeHead(302, { location: "http://internal.example.test/" }).end();
  if (path === "/to-echo") return res.writeHead(302, { location: "/echo" }).end();
  if (path === "/loop") return res.writeHead(302, { location: "/loop" }).end();
  if (path === "/hang") return; // never answers
  if (path === "/slow") return void setTimeout(() => res.writeHead(200).end("late"), 150);
  if (path === "/stall-body") return res.writeHead(200).write("partial"); // headers, then nothing
  if (path === "/events") {
    // One event now, the second (and the end) when the test says so.
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("data: one\n\n");
    releaseEvents = () => res.end("data: two\n\n");
    return;
  }
  if (path === "/silent-events") return res.writeHead(200, { "content-type": "text/event-stream" }).write(": hello\n\n");
  if (path === "/json") return res.writeHead(200, { "content-type": "application/json", "set-cookie": ["a=1", "b=2"] }).end(JSON.stringify({ body }));
  if (path === "/big") {
    res.writeHead(200, { "content-type": "text/plain" });
    return res.end("x".repeat(1024 * 1024));
  }
  res.writeHead(404).end();
}

// Same shape as dns.lookup. Unknown names fail the way a resolver does.
const records: Record<string, string[]> = {
  "internal.example.test": ["10.0.0.5"],
  "loopback.example.test": ["127.0.0.1"],
  "mixed.example.test": ["127.0.0.1", "10.0.0.5"],
};
const fakeLookup: LookupFunction = (hostname, options, callback) => {
  const addresses = records[hostname];
  if (!addresses) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), "");
  const all = addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  if (options.all) return callback(null, all);
  callback(null, all[0]!.address, all[0]!.family);
};

const dev: OutboundOptions = { allowLoopback: true, allowHttp: true, lookup: fakeLookup };
const prod: OutboundOptions = { allowHttp: true, lookup: fakeLookup };

async function refusal(promise: Promise<unknown>): Promise<OutboundError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof OutboundError) return err;
    throw err;
  }
  throw new Error("expected an OutboundError");
}

const onBeforeConnect = (message: unknown) => connectAttempts.push((message as { connectParams: { hostname: string } }).connectParams.hostname);
const onConnected = (message: unknown) => connectedTo.push((message as { socket: Socket }).socket.remoteAddress ?? "?");

beforeAll(async () => {
  subscribe("undici:client:beforeConnect", onBeforeConnect);
  subscribe("undici:client:connected", onConnected);
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterEach(() => {
  seen.length = 0;
});

afterAll(async () => {
  await closeOutboundAgents();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  unsubscribe("undici:client:beforeConnect", onBeforeConnect);
  unsubscribe("undici:client:connected", onConnected);
  // The suite's promise: no socket ever left loopback, and the metadata address was never even tried.
  expect(connectedTo.length).toBeGreaterThan(0);
  for (const address of connectedTo) expect(address).toMatch(/^(::ffff:)?127\./);
  expect(connectAttempts).not.toContain("169.254.169.254");
  expect(connectAttempts).not.toContain("10.0.0.5");
});

describe("guardedFetch to loopback", () => {
  it("with allowLoopback and allowHttp, a POST reaches the server and its answer comes back", async () => {
    const response = await guardedFetch(`${base}/echo`, { method: "POST", headers: { "content-type": "text/plain" }, body: "hello" }, dev);
    expect(response).toMatchObject({ status: 201, body: "got POST hello", truncated: false });
    expect(response.headers["x-seen"]).toBe("yes");
    expect(seen).toEqual([{ method: "POST", url: "/echo", body: "hello" }]);
  });

  it("measures the call's duration: at least the server's delay, at most the time around the call", async () => {
    const started = performance.now();
    const response = await guardedFetch(`${base}/slow`, { method: "GET", headers: {} }, dev);
    const elapsed = performance.now() - started;
    expect(response).toMatchObject({ status: 200, body: "late" });
    expect(response.durationMs).toBeGreaterThanOrEqual(145);
    expect(response.durationMs).toBeLessThanOrEqual(Math.ceil(elapsed));
  });

  it("takes a Uint8Array body", async () => {
    const response = await guardedFetch(`${base}/echo`, { method: "PUT", headers: {}, body: new TextEncoder().encode("bytes") }, dev);
    expect(response.body).toBe("got PUT bytes");
  });

  it("without allowLoopback refuses the same URL, and the server sees nothing", async () => {
    const error = await refusal(guardedFetch(`${base}/echo`, { method: "POST", headers: {}, body: "hello" }, prod));
    expect(error.reason).toBe("blocked_address");
    expect(error.message).toBe("127.0.0.1 is a loopback address");
    expect(seen).toEqual([]);
  });

  it("without allowLoopback refuses [::ffff:127.0.0.1] and 2130706433 too", async () => {
    for (const url of [`http://[::ffff:127.0.0.1]:${port}/echo`, `http://2130706433:${port}/echo`, `http://0x7f.1:${port}/echo`]) {
      expect((await refusal(guardedFetch(url, { method: "GET", headers: {} }, prod))).reason, url).toBe("blocked_address");
    }
    expect(seen).toEqual([]);
  });

  it("without allowHttp refuses http:// before connecting", async () => {
    const error = await refusal(guardedFetch(`${base}/echo`, { method: "GET", headers: {} }, { allowLoopback: true }));
    expect(error.reason).toBe("scheme_not_allowed");
    expect(seen).toEqual([]);
  });
});

describe("names that resolve to blocked addresses", () => {
  it("refuses a name resolving to a private address, saying which", async () => {
    const error = await refusal(guardedFetch("http://internal.example.test/hook", { method: "POST", headers: {}, body: "x" }, dev));
    expect(error.reason).toBe("blocked_address");
    expect(error.message).toBe("internal.example.test resolves to 10.0.0.5, a private address");
  });

  it("refuses a name resolving to loopback without allowLoopback, and the server sees nothing", async () => {
    const error = await refusal(guardedFetch(`http://loopback.example.test:${port}/echo`, { method: "POST", headers: {}, body: "x" }, prod));
    expect(error.reason).toBe("blocked_address");
    expect(error.message).toBe("loopback.example.test resolves to 127.0.0.1, a loopback address");
    expect(seen).toEqual([]);
  });

  it("connects through the resolver when its answer is allowed", async () => {
    const response = await guardedFetch(`http://loopback.example.test:${port}/echo`, { method: "POST", headers: {}, body: "via name" }, dev);
    expect(response.body).toBe("got POST via name");
  });

  it("refuses a name when any one of its addresses is blocked", async () => {
    const error = await refusal(guardedFetch(`http://mixed.example.test:${port}/echo`, { method: "GET", headers: {} }, dev));
    expect(error.message).toBe("mixed.example.test resolves to 10.0.0.5, a private address");
    expect(seen).toEqual([]);
  });

  it("reports a name that does not resolve as connection_failed", async () => {
    const error = await refusal(guardedFetch("http://nowhere.example.test/", { method: "GET", headers: {} }, dev));
    expect(error.reason).toBe("connection_failed");
    expect(error.message).toBe("Could not reach nowhere.example.test: the name does not resolve.");
  });
});

describe("redirects", () => {
  it("with maxRedirects 0 (the default) returns the 3xx as is and follows nothing", async () => {
    const response = await guardedFetch(`${base}/to-metadata`, { method: "POST", headers: {}, body: "x" }, dev);
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe("http://169.254.169.254/latest/meta-data");
    expect(seen.map((request) => request.url)).toEqual(["/to-metadata"]);
  });

  it("with maxRedirects 3 refuses a hop to the metadata address before connecting", async () => {
    const error = await refusal(guardedFetch(`${base}/to-metadata`, { method: "POST", headers: {}, body: "x" }, { ...dev, maxRedirects: 3 }));
    expect(error.reason).toBe("blocked_address");
    expect(error.message).toBe("169.254.169.254 is a link-local address");
  });

  it("refuses IPv4-mapped IPv6 hops by their embedded address", async () => {
    for (const path of ["/to-mapped-metadata", "/to-mapped-private"]) {
      const error = await refusal(guardedFetch(`${base}${path}`, { method: "GET", headers: {} }, { ...dev, maxRedirects: 3 }));
      expect(error.reason, path).toBe("blocked_address");
    }
    // ::ffff:127.0.0.1 is loopback, so allowLoopback admits it and nothing more.
    const response = await guardedFetch(`${base}/to-mapped-loopback`, { method: "GET", headers: {} }, { ...dev, maxRedirects: 3 });
    expect(response.body).toBe("got GET ");
  });

  it("refuses a hop to a name that resolves to a private address", async () => {
    const error = await refusal(guardedFetch(`${base}/to-internal`, { method: "GET", headers: {} }, { ...dev, maxRedirects: 3 }));
    expect(error.message).toBe("internal.example.test resolves to 10.0.0.5, a private address");
  });

  it("follows an allowed hop; a 302 after a POST continues as a GET without the body", async () => {
    const response = await guardedFetch(`${base}/to-echo`, { method: "POST", headers: { "content-type": "text/plain" }, body: "x" }, { ...dev, maxRedirects: 1 });
    expect(response).toMatchObject({ status: 201, body: "got GET " });
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual(["POST /to-echo", "GET /echo"]);
  });

  it("stops after maxRedirects hops with too_many_redirects", async () => {
    const error = await refusal(guardedFetch(`${base}/loop`, { method: "GET", headers: {} }, { ...dev, maxRedirects: 2 }));
    expect(error.reason).toBe("too_many_redirects");
    expect(seen).toHaveLength(3);
  });
});

describe("limits", () => {
  it("times out a server that never answers, within timeoutMs", async () => {
    const started = Date.now();
    const error = await refusal(guardedFetch(`${base}/hang`, { method: "POST", headers: {}, body: "x" }, { ...dev, timeoutMs: 300 }));
    expect(error.reason).toBe("timeout");
    expect(error.message).toBe("127.0.0.1 did not answer within 300 ms.");
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it("counts reading the body against the timeout", async () => {
    const error = await refusal(guardedFetch(`${base}/stall-body`, { method: "GET", headers: {} }, { ...dev, timeoutMs: 300 }));
    expect(error.reason).toBe("timeout");
  });

  it("keeps at most maxResponseBytes of a 1 MB body and marks it truncated", async () => {
    const capped = await guardedFetch(`${base}/big`, { method: "GET", headers: {} }, { ...dev, maxResponseBytes: 10_000 });
    expect(capped).toMatchObject({ status: 200, truncated: true });
    expect(capped.body.length).toBe(10_000);

    const byDefault = await guardedFetch(`${base}/big`, { method: "GET", headers: {} }, dev);
    expect(byDefault.truncated).toBe(true);
    expect(byDefault.body.length).toBe(64 * 1024);
  });

  it("reports a refused connection as connection_failed", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));

    const error = await refusal(guardedFetch(`http://127.0.0.1:${closedPort}/`, { method: "GET", headers: {} }, dev));
    expect(error.reason).toBe("connection_failed");
    expect(error.message).toBe("Could not reach 127.0.0.1: ECONNREFUSED.");
  });
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error("expected a rejection");
}

describe("guardedStreamingFetch", () => {
  it("is a fetch: a POST reaches the server, and status, headers, body and url come back", async () => {
    const fetcher = guardedStreamingFetch(dev);
    const response = await fetcher(`${base}/json`, { method: "POST", headers: { "content-type": "text/plain" }, body: "hello" });
    expect(response.status).toBe(200);
    expect(response.url).toBe(`${base}/json`);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(await response.json()).toEqual({ body: "hello" });
    expect(seen).toEqual([{ method: "POST", url: "/json", body: "hello" }]);
  });

  it("takes a Request and other body types (URLSearchParams gets its content type)", async () => {
    const fetcher = guardedStreamingFetch(dev);
    const fromRequest = await fetcher(new Request(`${base}/echo`, { method: "PUT", body: "from a Request" }));
    expect(await fromRequest.text()).toBe("got PUT from a Request");
    const form = await fetcher(`${base}/echo`, { method: "POST", body: new URLSearchParams({ a: "1", b: "two" }) });
    expect(await form.text()).toBe("got POST a=1&b=two");
  });

  it("refuses loopback without allowLoopback, and a name resolving to a private address, before connecting", async () => {
    const refusedLoopback = await rejection(guardedStreamingFetch(prod)(`${base}/json`, { method: "POST", body: "x" }));
    expect(refusedLoopback).toBeInstanceOf(OutboundError);
    expect((refusedLoopback as OutboundError).message).toBe("127.0.0.1 is a loopback address");
    const refusedName = await rejection(guardedStreamingFetch(dev)("http://internal.example.test/mcp", { method: "POST", body: "x" }));
    expect((refusedName as OutboundError).message).toBe("internal.example.test resolves to 10.0.0.5, a private address");
    const refusedScheme = await rejection(guardedStreamingFetch({ allowLoopback: true })(`${base}/json`));
    expect((refusedScheme as OutboundError).reason).toBe("scheme_not_allowed");
    expect(seen).toEqual([]);
  });

  it("hands an event stream over as it comes, and the stream may outlive timeoutMs", async () => {
    // The exchange's budget is a timer: a fake clock carries the stream past it without waiting.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"], shouldAdvanceTime: true });
    try {
      const response = await guardedStreamingFetch({ ...dev, timeoutMs: 200 })(`${base}/events`);
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      expect((await reader.read()).value).toBe("data: one\n\n");
      // Past the exchange's budget: an event stream is bounded by silence, not by timeoutMs.
      vi.advanceTimersByTime(400);
      releaseEvents!();
      let rest = "";
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += chunk.value;
      expect(rest).toBe("data: two\n\n");
    } finally {
      vi.useRealTimers();
    }
  });

  it("ends an event stream silent for idleTimeoutMs with a timeout", async () => {
    const response = await guardedStreamingFetch({ ...dev, idleTimeoutMs: 300 })(`${base}/silent-events`);
    const error = await rejection(response.text());
    expect((error as OutboundError).reason).toBe("timeout");
    expect((error as OutboundError).message).toBe("127.0.0.1 was silent for 300 ms.");
  });

  it("fails a body past maxResponseBytes with response_too_large instead of cutting it", async () => {
    const response = await guardedStreamingFetch({ ...dev, maxResponseBytes: 10_000 })(`${base}/big`);
    const error = await rejection(response.text());
    expect((error as OutboundError).reason).toBe("response_too_large");
    expect((error as OutboundError).message).toBe("127.0.0.1 sent more than 10000 bytes.");
  });

  it("times out a server that never answers, and one whose (non-stream) body stalls", async () => {
    const hang = await rejection(guardedStreamingFetch({ ...dev, timeoutMs: 300 })(`${base}/hang`, { method: "POST", body: "x" }));
    expect((hang as OutboundError).reason).toBe("timeout");
    const stalled = await guardedStreamingFetch({ ...dev, timeoutMs: 300 })(`${base}/stall-body`);
    expect(((await rejection(stalled.text())) as OutboundError).reason).toBe("timeout");
  });

  it("rejects with the caller's abort reason when the caller aborts", async () => {
    const controller = new AbortController();
    const pending = guardedStreamingFetch(dev)(`${base}/hang`, { signal: controller.signal });
    controller.abort();
    const error = await rejection(pending);
    expect((error as Error).name).toBe("AbortError");
  });

  it("checks every redirect hop; redirect: error refuses any; maxRedirects 0 returns the 3xx", async () => {
    const toMetadata = await rejection(guardedStreamingFetch({ ...dev, maxRedirects: 3 })(`${base}/to-metadata`));
    expect((toMetadata as OutboundError).message).toBe("169.254.169.254 is a link-local address");
    const refused = await rejection(guardedStreamingFetch({ ...dev, maxRedirects: 3 })(`${base}/to-echo`, { redirect: "error" }));
    expect((refused as OutboundError).reason).toBe("too_many_redirects");
    const followed = await guardedStreamingFetch({ ...dev, maxRedirects: 1 })(`${base}/to-echo`, { method: "POST", body: "x" });
    expect(followed.url).toBe(`${base}/echo`);
    expect(await followed.text()).toBe("got GET ");
    const returned = await guardedStreamingFetch(dev)(`${base}/to-metadata`);
    expect(returned.status).toBe(302);
    expect(returned.headers.get("location")).toBe("http://169.254.169.254/latest/meta-data");
  });
});
