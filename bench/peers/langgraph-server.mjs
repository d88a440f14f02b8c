// Child process of bench/peer-runs.ts: LangGraph's JS API server (@langchain/langgraph-api, what
// `langgraph dev` runs) on a loopback port, with the graph of langgraph-graph.mjs. Its store is the
// in-memory one of `langgraph dev`, snapshotted to JSON files under <cwd>/.langgraph_api; cwd is a
// temporary directory given as argv[2]. argv[3] is the number of run workers (`--n-jobs-per-worker`,
// 10 by default in `langgraph dev`). Prints one JSON line when listening.
import path from "node:path";
import { startServer } from "@langchain/langgraph-api/server";

const cwd = process.argv[2];
const workers = Number(process.argv[3] ?? 10);
const { host, cleanup } = await startServer({
  port: 0,
  nWorkers: workers,
  host: "127.0.0.1",
  cwd,
  graphs: { agent: path.join(import.meta.dirname, "langgraph-graph.mjs:graph") },
});
console.log(JSON.stringify({ base: `http://${host}` }));
process.on("SIGTERM", () => void cleanup().finally(() => process.exit(0)));
