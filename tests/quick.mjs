// `npm run test:quick [-- <git ref>]`: the contributor's loop, a few minutes instead of `npm test`'s
// twenty. Typecheck (incremental), lint of the changed files, every unit test, and the integration
// files related to what changed since <ref> (default HEAD: what is not committed yet). Related means
// what vitest's module graph ties to the change; when that is most of the suite (a change to a shared
// module), only the files named after the changed modules run (services/billing/billing.ts ->
// billing.test.ts, billing.postgres.test.ts). `npm test` stays the whole suite.
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

const base = process.argv[2] ?? "HEAD";
// Past this many related files, narrow to the files named after the change.
const MAX_RELATED = 12;

const git = (...args) => execFileSync("git", args, { encoding: "utf8" }).split("\n").filter(Boolean);
const changed = [...new Set([...git("diff", "--name-only", base), ...git("ls-files", "--others", "--exclude-standard")])].filter(
  (file) => existsSync(file),
);
console.log(`${changed.length} changed file(s) since ${base}`);

function run(name, command, args, env = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, args, { stdio: "inherit", env: { ...process.env, ...env } });
    child.on("close", (code) => resolve({ name, ok: code === 0, seconds: Math.round((Date.now() - started) / 1000) }));
  });
}

const lintable = changed.filter((file) => /\.(ts|tsx|mjs|js)$/.test(file));
const project = process.env.TEST_DATABASE_URL ? "integration-postgres" : "integration-pglite";

function relatedIntegrationFiles() {
  const listed = execFileSync("npx", ["vitest", "list", "--changed", base, "--filesOnly", "--project", project], { encoding: "utf8" });
  const related = listed
    .split("\n")
    .map((line) => line.replace(/^\[[^\]]+\]\s*/, "").trim())
    .filter((line) => line.startsWith("tests/integration/"));
  if (related.length <= MAX_RELATED) return { related, chosen: related };
  const stem = (file) => path.basename(file).replace(/(\.(postgres|redis))?\.test\.ts$/, "").replace(/\.(ts|tsx|mjs)$/, "");
  const stems = new Set(changed.map(stem));
  const chosen = related.filter((file) => changed.includes(file) || stems.has(stem(file)));
  return { related, chosen };
}

const results = await Promise.all([
  run("typecheck", "npx", ["tsc", "--noEmit", "--incremental", "--tsBuildInfoFile", "node_modules/.cache/inlay-quick.tsbuildinfo"]),
  lintable.length > 0 ? run("lint (changed files)", "npx", ["eslint", "--max-warnings", "0", ...lintable]) : { name: "lint (nothing changed)", ok: true, seconds: 0 },
]);

const { related, chosen } = relatedIntegrationFiles();
if (chosen.length < related.length) {
  console.log(`${related.length} integration files depend on this change; running the ${chosen.length} named after it (npm test runs them all):`);
} else {
  console.log(`${chosen.length} integration file(s) related to this change:`);
}
for (const file of chosen) console.log(`  ${file}`);
results.push(
  await run("unit and related integration tests", "npx", ["vitest", "run", "--project", "unit", ...(chosen.length ? ["--project", project] : []), "tests/unit", ...chosen]),
);

console.log("");
for (const result of results) console.log(`${result.ok ? "ok    " : "FAILED"} ${result.name} (${result.seconds} s)`);
process.exit(results.every((result) => result.ok) ? 0 : 1);
