// One measurement of bench/pglite-tiers.ts, in a process of its own (V8's wasm flags are set at start):
// PGlite in memory, a run of small statements (a chat turn's kind) and a run of heavy queries (joins,
// sorts over 20,000 rows), each timed by this process's CPU; prints one JSON line.
import { PGlite } from "@electric-sql/pglite";

const cpuMs = (since) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
const db = await PGlite.create({ dataDir: "memory://" });
await db.exec(
  "create table t (id serial primary key, a int, b text); insert into t (a, b) select g % 100, md5(g::text) from generate_series(1, 20000) g; create index on t(a);",
);
let since = process.cpuUsage();
for (let i = 0; i < 4000; i++) {
  await db.query("insert into t (a, b) values ($1, $2) returning id", [i % 100, `x${i}`]);
  await db.query("select count(*) from t where a = $1", [i % 100]);
}
const small = cpuMs(since);
since = process.cpuUsage();
for (let i = 0; i < 200; i++) {
  await db.query("select a, count(*), max(b) from t join (select a as x from t where a < $1 group by a) s on s.x = t.a group by a order by 3 desc", [i % 50]);
}
const heavy = cpuMs(since);
console.log(JSON.stringify({ small, heavy, rssMb: process.memoryUsage().rss / 2 ** 20 }));
await db.close();
