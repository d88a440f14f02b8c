// The hot-row cache on its own: bounds, lapse, races with a drop, and what each signal drops.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { PlatformAgent } from "@/server/generated/prisma/client";
import type { KeyForAuth } from "@/server/platform/repositories/accounts";
import {
  HOT_CACHE_TTL_MS,
  HotTable,
  agentCacheKey,
  createHotCache,
  endUserCacheKey,
} from "@/server/platform/infrastructure/hot-cache";
import type { Signals } from "@/server/platform/infrastructure/signals";

/** In-process signals, as on PGlite, with a way to report a gap. */
function fakeSignals() {
  const topics = new Map<string, Set<(payload: string) => void>>();
  const gaps = new Set<() => void>();
  const signals: Signals = {
    publish: (topic, payload = "") => topics.get(topic)?.forEach((listener) => listener(payload)),
    subscribe: (topic, listener) => {
      if (!topics.has(topic)) topics.set(topic, new Set());
      topics.get(topic)!.add(listener);
      return () => void topics.get(topic)!.delete(listener);
    },
    onGap: (listener) => {
      gaps.add(listener);
      return () => void gaps.delete(listener);
    },
    notice: () => undefined,
    flushed: async () => {},
    close: async () => {},
  };
  return { signals, gap: () => gaps.forEach((listener) => listener()), listeners: () => [...topics.values()].reduce((n, set) => n + set.size, 0) };
}

const key = (accountId: number, id = 1): KeyForAuth => ({
  id,
  accountId,
  kind: "named",
  revokedAt: null,
  expiresAt: null,
  lastUsedAt: null,
  requireEndUserId: false,
});
const agent = (accountId: number, id: number, endUserId: number | null) =>
  ({ id, accountId, endUserId, status: "enabled" }) as PlatformAgent;
const loadOnce = <V>(value: V) => vi.fn(async () => value);

afterEach(() => vi.useRealTimers());

describe("HotTable", () => {
  it("loads a miss once and serves the hit from memory", async () => {
    const table = new HotTable<KeyForAuth>((value) => value.accountId);
    const load = loadOnce(key(1));
    expect(await table.get("h", load)).toEqual(key(1));
    expect(await table.get("h", load)).toEqual(key(1));
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("keeps no null, so a row created later is found", async () => {
    const table = new HotTable<KeyForAuth>((value) => value.accountId);
    expect(await table.get("h", loadOnce(null))).toBeNull();
    expect(await table.get("h", loadOnce(key(1)))).toEqual(key(1));
  });

  it("forgets the least recently used entry past its bound", async () => {
    const table = new HotTable<KeyForAuth>((value) => value.accountId, { ttlMs: 60_000, maxEntries: 2 });
    await table.get("a", loadOnce(key(1, 1)));
    await table.get("b", loadOnce(key(1, 2)));
    await table.get("a", loadOnce(key(1, 1))); // a is now the most recent
    await table.get("c", loadOnce(key(1, 3)));
    expect(table.size).toBe(2);
    const reload = loadOnce(key(1, 2));
    await table.get("b", reload);
    expect(reload).toHaveBeenCalledTimes(1);
    const kept = loadOnce(key(1, 1));
    await table.get("c", kept);
    expect(kept).not.toHaveBeenCalled();
  });

  it("reads the row again once an entry has lapsed", async () => {
    vi.useFakeTimers();
    const table = new HotTable<KeyForAuth>((value) => value.accountId);
    await table.get("h", loadOnce(key(1)));
    vi.advanceTimersByTime(HOT_CACHE_TTL_MS + 1);
    const load = loadOnce(key(1));
    await table.get("h", load);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it("does not keep what a load read before a drop that happened while it ran", async () => {
    const table = new HotTable<KeyForAuth>((value) => value.accountId);
    let finish!: (value: KeyForAuth) => void;
    const pending = table.get("h", () => new Promise<KeyForAuth>((resolve) => (finish = resolve)));
    table.drop("h");
    finish(key(1));
    expect(await pending).toEqual(key(1));
    const load = loadOnce(null);
    expect(await table.get("h", load)).toBeNull();
    expect(load).toHaveBeenCalledTimes(1);
  });
});

describe("createHotCache", () => {
  it("drops a key by its hash and everything of an account on an account signal", async () => {
    const { signals } = fakeSignals();
    const cache = createHotCache(signals);
    await cache.keys.get("h1", loadOnce(key(1, 1)));
    await cache.keys.get("h2", loadOnce(key(2, 2)));
    await cache.endUsers.get(endUserCacheKey(2, "u"), loadOnce({ accountId: 2, id: 7 }));
    await cache.agents.get(agentCacheKey(2, 5), loadOnce(agent(2, 5, 7)));
    cache.keysChanged(["h1"]);
    expect(cache.keys.size).toBe(1);
    cache.accountChanged(2);
    expect([cache.keys.size, cache.endUsers.size, cache.agents.size]).toEqual([0, 0, 0]);
  });

  it("drops an end-user by user_id (colons and newlines included) and, with its row id, its agents", async () => {
    const { signals } = fakeSignals();
    const cache = createHotCache(signals);
    const odd = "a:b\nc";
    await cache.endUsers.get(endUserCacheKey(1, odd), loadOnce({ accountId: 1, id: 7 }));
    await cache.endUsers.get(endUserCacheKey(1, "other"), loadOnce({ accountId: 1, id: 8 }));
    await cache.agents.get(agentCacheKey(1, 5), loadOnce(agent(1, 5, 7)));
    await cache.agents.get(agentCacheKey(1, 6), loadOnce(agent(1, 6, 8)));
    cache.endUserChanged(1, odd, 7);
    expect(cache.endUsers.size).toBe(1);
    expect(cache.agents.size).toBe(1);
    const reload = loadOnce(agent(1, 6, 8));
    await cache.agents.get(agentCacheKey(1, 6), reload);
    expect(reload).not.toHaveBeenCalled();
  });

  it("drops one agent on an agent signal", async () => {
    const { signals } = fakeSignals();
    const cache = createHotCache(signals);
    await cache.agents.get(agentCacheKey(1, 5), loadOnce(agent(1, 5, null)));
    await cache.agents.get(agentCacheKey(1, 6), loadOnce(agent(1, 6, null)));
    cache.agentChanged(1, 5);
    expect(cache.agents.size).toBe(1);
  });

  it("clears everything when signals may have been lost, and stops listening on close", async () => {
    const fake = fakeSignals();
    const cache = createHotCache(fake.signals);
    await cache.keys.get("h", loadOnce(key(1)));
    await cache.agents.get(agentCacheKey(1, 5), loadOnce(agent(1, 5, null)));
    fake.gap();
    expect([cache.keys.size, cache.agents.size]).toEqual([0, 0]);
    expect(fake.listeners()).toBeGreaterThan(0);
    cache.close();
    expect(fake.listeners()).toBe(0);
  });
});
