// The app's database away (a restart, a failover): each of the app's transports answers 503 with a
// retry hint and words a person can read, not a 500 with the driver's message. The error is the one pg
// really gives when nothing listens (a closed loopback port).
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { TRPCError } from "@trpc/server";
import { ConnectionError } from "@inlay/core/platform-client";
import { createCallerFactory, publicProcedure, router } from "@/server/framework/api/trpc";
import { createChatHandlers } from "@/server/framework/chat/bridge";
import { handleRoute } from "@/server/framework/http/route-member";
import { DATABASE_AWAY_MESSAGE } from "@/server/framework/tenancy/errors";
import { freePort } from "@/server/cluster/ports";

let refused: Error;

beforeAll(async () => {
  const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${await freePort()}/none`, connectionTimeoutMillis: 2_000 });
  refused = await pool.query("select 1").then(
    () => new Error("a closed port answered"),
    (error: Error) => error,
  );
  await pool.end();
});


describe("the app's database away", () => {
  it("is a real connection refusal", () => {
    expect((refused as Error & { code?: string }).code).toBe("ECONNREFUSED");
  });

  it("a route handler answers 503 with Retry-After", async () => {
    const response = await handleRoute(() => Promise.reject(refused));
    expect(response.status).toBe(503);
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await response.json()).toEqual({ error: { message: DATABASE_AWAY_MESSAGE } });
  });

  it("a tRPC procedure fails SERVICE_UNAVAILABLE (503)", async () => {
    const appRouter = router({ read: publicProcedure.query(() => Promise.reject(refused)) });
    const caller = createCallerFactory(appRouter)({ session: null, prisma: {} as never });
    const failure = await caller.read().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TRPCError);
    expect(failure).toMatchObject({ code: "SERVICE_UNAVAILABLE", message: DATABASE_AWAY_MESSAGE });
  });

  it("a platform the app cannot reach stays a lost connection, not the app's database", async () => {
    const lost = new ConnectionError({ message: "fetch failed", cause: refused });
    const handlers = createChatHandlers(() => Promise.reject(lost), new AbortController().signal);
    const response = await handlers.history(new Request("http://localhost/api/chat/history?agent=x"));
    expect(response.status).toBe(502);
    expect((await response.json()).error.kind).toBe("connection");
    await expect(handleRoute(() => Promise.reject(lost))).rejects.toBe(lost);
  });

  it("the chat answers 503 'unavailable' with a retry hint", async () => {
    const handlers = createChatHandlers(() => Promise.reject(refused), new AbortController().signal);
    const response = await handlers.history(new Request("http://localhost/api/chat/history?agent=x"));
    expect(response.status).toBe(503);
    expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await response.json()).toEqual({ error: { kind: "unavailable", message: DATABASE_AWAY_MESSAGE, retryAfterSeconds: expect.any(Number) } });
  });
});
