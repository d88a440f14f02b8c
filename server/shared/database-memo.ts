// What this process has learnt of a database and need not read again: facts that never change once
// written (a member's platform user_id, an agent copy's platform id) or only move one way, and checks
// its caller dates itself (the ledger webhook's registration). Bounded: emptied when full. Keyed by the database handle, so two databases in one process (tests, a
// CLI) never see each other's.
export interface DatabaseMemo<V> {
  get(database: object, key: string): V | undefined;
  set(database: object, key: string, value: V): void;
}

export function databaseMemo<V>(limit = 10_000): DatabaseMemo<V> {
  const maps = new WeakMap<object, Map<string, V>>();
  return {
    get: (database, key) => maps.get(database)?.get(key),
    set(database, key, value) {
      let map = maps.get(database);
      if (!map) maps.set(database, (map = new Map()));
      if (map.size >= limit) map.clear();
      map.set(key, value);
    },
  };
}
