// This process's copy of the rows nearly every request reads: a key (authentication), an end-user's
// row id (scope), an agent and an account's preferred model connection (a run start that names no
// model). A write to one of them publishes its cache key on `signals`, which drops it here at once
// (before the writer's response) and on every other instance a few milliseconds later; a dropped
// LISTEN connection clears everything. Entries also lapse after
// HOT_CACHE_TTL_MS, so a lost message (an instance that died between its commit and its NOTIFY)
// leaves a stale entry for that long at most. Money (balance, holds) is never cached here.
import type { AgentColumns } from "@/server/platform/repositories/agents";
import type { Db } from "../repositories/db";
import type { KeyForAuth } from "../repositories/accounts";
import type { SessionForAuth } from "../repositories/sessions";
import type { Signals } from "./signals";

export const HOT_CACHE_TTL_MS = 30_000;
export const HOT_CACHE_MAX_ENTRIES = 10_000;

interface Entry<V> {
  value: V;
  until: number;
}

/** One bounded map (least recently used goes first) of values that belong to an account. */
export class HotTable<V> {
  private readonly entries = new Map<string, Entry<V>>();
  // Bumped by every drop: a load that started before one may have read the old row, so it is not kept.
  private generation = 0;

  constructor(
    private readonly accountOf: (value: V) => number,
    private readonly limits = { ttlMs: HOT_CACHE_TTL_MS, maxEntries: HOT_CACHE_MAX_ENTRIES },
  ) {}

  /** The cached value, or `load()`'s (kept unless null or something was dropped meanwhile). */
  async get(key: string, load: () => Promise<V | null>): Promise<V | null> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.value;
    }
    if (hit) this.entries.delete(key);
    const generation = this.generation;
    const value = await load();
    if (value !== null && generation === this.generation) {
      this.entries.set(key, { value, until: now + this.limits.ttlMs });
      if (this.entries.size > this.limits.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    }
    return value;
  }

  get size(): number {
    return this.entries.size;
  }

  drop(key: string): void {
    this.generation++;
    this.entries.delete(key);
  }

  dropWhere(test: (value: V) => boolean): void {
    this.generation++;
    for (const [key, entry] of this.entries) if (test(entry.value)) this.entries.delete(key);
  }

  dropAccount(accountId: number): void {
    this.dropWhere((value) => this.accountOf(value) === accountId);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}

/** The account's preferred model connection as a run start reads it; provider null: it has none. */
export interface CachedPreferredConnection {
  accountId: number;
  provider: string | null;
  defaultModel: string | null;
}

export interface CachedEndUser {
  accountId: number;
  id: number;
}

const TOPIC = { key: "cache:key", sessions: "cache:sessions", endUser: "cache:end-user", agent: "cache:agent", account: "cache:account", modelConnections: "cache:model-connections" } as const;

export const endUserCacheKey = (accountId: number, userId: string) => `${accountId}:${userId}`;
export const agentCacheKey = (accountId: number, agentId: number) => `${accountId}:${agentId}`;

export interface HotCache {
  /** By key hash: the key and the account fields authentication reads. */
  keys: HotTable<KeyForAuth>;
  /** By access-token hash: a browser session (services/account/sessions.ts). */
  sessions: HotTable<SessionForAuth>;
  /** By endUserCacheKey: the end-user's row id. */
  endUsers: HotTable<CachedEndUser>;
  /** By agentCacheKey: the agent's row, whatever its scope and status (callers check both). */
  agents: HotTable<AgentColumns>;
  /** By account id: its preferred model connection (none is kept too, so a run start reads it once). */
  preferredConnections: HotTable<CachedPreferredConnection>;
  /**
   * These keys were revoked or deleted. Resolves once the other instances have been told, so the
   * revoking response cannot reach the client before the signal reaches them.
   */
  keysChanged(hashes: readonly string[]): Promise<void>;
  /** These people's sessions were revoked or changed; resolves once the other instances have been told. */
  sessionsChanged(personIds: readonly number[]): Promise<void>;
  /** The end-user was written or deleted; with its row id, the agents scoped to it go too (a delete cascades). */
  endUserChanged(accountId: number, userId: string, rowId?: number): void;
  agentChanged(accountId: number, agentId: number): void;
  /**
   * The account's model connections were written (created, removed, default model or preferred default
   * changed); resolves once the other instances have been told, so no run started after the response
   * takes the old default.
   */
  modelConnectionsChanged(accountId: number): Promise<void>;
  /** The account was deleted or a field the auth context carries changed: drop all it owns. */
  accountChanged(accountId: number): void;
  /** Stops listening (the signals themselves are closed by their owner). */
  close(): void;
}

/** What services that read or write a cached row get: the database and this cache. */
export interface DataContext {
  prisma: Db;
  cache: HotCache;
}

export function createHotCache(signals: Signals): HotCache {
  const keys = new HotTable<KeyForAuth>((key) => key.accountId);
  const endUsers = new HotTable<CachedEndUser>((endUser) => endUser.accountId);
  const agents = new HotTable<AgentColumns>((agent) => agent.accountId);
  const sessions = new HotTable<SessionForAuth>((session) => session.accountId);
  const preferredConnections = new HotTable<CachedPreferredConnection>((row) => row.accountId);
  const tables = [keys, endUsers, agents, sessions, preferredConnections];

  // Payloads: a key hash; "<account>:<row id or empty>:<user_id, URI-encoded since signals flatten
  // newlines>"; "<account>:<agent id>"; "<account>" (account, model connections); a person's account id.
  const stops = [
    signals.subscribe(TOPIC.key, (hash) => keys.drop(hash)),
    signals.subscribe(TOPIC.endUser, (payload) => {
      const [account, rowId] = payload.split(":", 2) as [string, string];
      endUsers.drop(endUserCacheKey(Number(account), decodeURIComponent(payload.slice(account.length + rowId.length + 2))));
      if (rowId !== "") agents.dropWhere((agent) => agent.endUserId === Number(rowId));
    }),
    signals.subscribe(TOPIC.agent, (payload) => agents.drop(payload)),
    signals.subscribe(TOPIC.modelConnections, (payload) => preferredConnections.drop(payload)),
    signals.subscribe(TOPIC.sessions, (payload) => sessions.dropWhere((session) => session.personId === Number(payload))),
    signals.subscribe(TOPIC.account, (payload) => {
      tables.forEach((table) => table.dropAccount(Number(payload)));
      // A deleted person's sessions acting as other accounts go too.
      sessions.dropWhere((session) => session.personId === Number(payload));
    }),
    signals.onGap(() => tables.forEach((table) => table.clear())),
  ];

  return {
    keys,
    endUsers,
    agents,
    sessions,
    preferredConnections,
    sessionsChanged: (personIds) => {
      personIds.forEach((personId) => signals.publish(TOPIC.sessions, String(personId)));
      return signals.flushed();
    },
    keysChanged: (hashes) => {
      hashes.forEach((hash) => signals.publish(TOPIC.key, hash));
      return signals.flushed();
    },
    endUserChanged: (accountId, userId, rowId) =>
      signals.publish(TOPIC.endUser, `${accountId}:${rowId ?? ""}:${encodeURIComponent(userId)}`),
    agentChanged: (accountId, agentId) => signals.publish(TOPIC.agent, agentCacheKey(accountId, agentId)),
    modelConnectionsChanged: (accountId) => {
      signals.publish(TOPIC.modelConnections, String(accountId));
      return signals.flushed();
    },
    accountChanged: (accountId) => signals.publish(TOPIC.account, String(accountId)),
    close: () => stops.forEach((stop) => stop()),
  };
}
