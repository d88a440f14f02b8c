// The vendor app of the @inlay/* packages' acceptance test: an app that is not written here, generated
// by create-next-app (the exact version pinned in the root package.json, its own `app` TypeScript
// template), given the packed tarballs of the packages and an overlay of a few files, built with
// `next build` and started with `next start`.
//
//   node tests/vendor-app/generate.mjs --out <dir> [--overlay <dir>] [--tarball <file.tgz>]... [--build]
//
//   --out <dir>        where the app goes; it is replaced on every run. Not below a folder with a lock
//                      file (so not inside this repository): Next takes the outermost lock file it
//                      finds as the workspace root, and an app inside the repository is built from the
//                      repository's root and fails. A folder under os.tmpdir() is right.
//   --overlay <dir>    files copied over the generated app (pages, routes, components); not
//                      package.json (dependencies come from the template and the tarballs only).
//   --tarball <file>   an `npm pack` tarball to install; repeat for each. They may depend on one another
//                      by version range (@inlay/react on @inlay/core): the tarball given satisfies it.
//   --pack             packs this repository's packages (the workspaces under packages/: `npm pack`, which builds each)
//                      and installs those tarballs too.
//   --build            `next build` in the app, with the Node that runs this script.
//   --cache-dir <dir>  the install cache (default node_modules/.cache/inlay-vendor-app).
//
// Generation runs the real CLI (node_modules/create-next-app/dist/index.js), offline and without its
// installer: --skip-install, --disable-git, and every choice given as a flag (the CLI's `--yes` defaults
// where the flags below do not say otherwise, so Cache Components is on as in any new app). The CLI's
// only network access is its update check at start, which asks the registry at most once an hour and
// otherwise answers from a file under os.tmpdir(); the CLI runs with a TMPDIR of its own holding that
// file, fresh, and with its own XDG_CONFIG_HOME, so that saved preferences neither change the app nor
// get written. (Copying the template by hand, the fallback if the CLI could not run offline, is not
// needed.)
//
// Install: the template's package.json, with next, react and react-dom pinned to the versions of this
// repository's package.json, and its TypeScript and @types packages too where the repository's version
// is in the template's range; the tarballs are copied into the app (.inlay-tarballs/<name>-<hash>.tgz)
// and added as `file:` dependencies. The app's package-lock.json is seeded from this repository's lock
// file (the entries those dependencies resolve to there, with their dependencies in turn), so npm
// installs the versions the repository uses, from npm's cache, without asking the registry for package
// metadata: `npm install --offline --no-audit --no-fund --include=dev`, and again with --prefer-offline
// instead of --offline if npm's cache lacks something (then npm asks the registry for that). Dependencies
// the seed does not cover (a new dependency of a tarball) npm resolves itself.
//
// Cache: <cache-dir>/<key>/ is the installed app, node_modules and all, keyed by the create-next-app
// version and flags, the dependencies after pinning and their seeded lock entries, the platform and
// Node's major version (the "base"), and the tarballs' SHA-256 (the key). A run with the same inputs
// copies it to --out (about 2 s in all); a run whose tarballs changed copies the newest entry of the
// same base and lets npm swap the changed tarballs (about 2 s more, against 10-15 s for a full install
// from a warm npm cache); otherwise the app is generated and installed afresh. An entry's
// .inlay-vendor-app.json lists its inputs and is written last (an entry without it is incomplete); the
// three entries used last are kept, about 370 MB each.
//
// next build (the template's: Turbopack): NEXT_TELEMETRY_DISABLED=1, and
// NEXT_FONT_GOOGLE_MOCKED_RESPONSES=google-fonts-mock.cjs (beside this file): the template's layout uses
// next/font/google, which otherwise downloads the fonts from Google at build time, and fails the build
// offline. Variables the app inlines at build time (NEXT_PUBLIC_*) must be in this script's environment
// with --build. The template has Cache Components on (the CLI's default): a page that reads the request
// or the environment at run time does it after `await connection()` inside a <Suspense>, and
// `export const dynamic` fails the build. The packages must ship JavaScript and .d.ts files (next build
// type-checks the app, and compiles nothing in node_modules without `transpilePackages`).
//
// Starting it for Playwright: a webServer entry (playwright.config.ts) makes the app and runs next start
// in it, with the variables the overlay reads at run time (the overlay defines them), e.g.
//
//   {
//     command: `node tests/vendor-app/generate.mjs --out ${vendorAppDir} --overlay tests/vendor-app/overlay ` +
//       `--tarball ... --build && cd ${vendorAppDir} && ` +
//       `node node_modules/next/dist/bin/next start --port ${vendorPort} --hostname 127.0.0.1`,
//     url: `http://127.0.0.1:${vendorPort}/`,
//     timeout: 180_000, // a cold install and the build: about 30 s here
//     reuseExistingServer: false,
//     env: { NEXT_TELEMETRY_DISABLED: "1", INLAY_URL: baseURL, INLAY_EMBED_SECRET: "..." },
//   }
//
// `node` is the Node on PATH in both (give a runtime's path for another release); the app is built and
// started by the same one.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { gunzipSync } from "node:zlib";

/** `npm pack` of the repository's packages (the workspaces under packages/; the others are test fixtures) into a fresh temporary folder: the tarballs' paths. */
function packWorkspaces(rootPkg, env) {
  const started = performance.now();
  const destination = fs.mkdtempSync(path.join(os.tmpdir(), "inlay-packs-"));
  // The tarballs are copied into the app: the folder goes when this script ends.
  process.on("exit", () => fs.rmSync(destination, { recursive: true, force: true }));
  const workspaces = (rootPkg.workspaces ?? []).filter((folder) => folder.startsWith("packages/")).flatMap((folder) => ["-w", folder]);
  const result = spawnSync("npm", ["pack", ...workspaces, "--pack-destination", destination, "--silent"], { cwd: repoRoot, env, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`npm pack of the workspaces failed:\n${result.stderr}${result.stdout}`);
  const files = fs.readdirSync(destination).filter((file) => file.endsWith(".tgz")).map((file) => path.join(destination, file));
  console.log(`[vendor-app] packed ${files.map((file) => path.basename(file)).join(", ")}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return files;
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const fontsMock = path.join(path.dirname(fileURLToPath(import.meta.url)), "google-fonts-mock.cjs");
// Part of every key: raise it when the way an entry is made changes.
const CACHE_SCHEMA = 1;
const MARKER = ".inlay-vendor-app.json";
const KEEP_ENTRIES = 3;
const APP_NAME = "vendor-app";
const TARBALL_DIR = ".inlay-tarballs";

/** The CLI's choices, all given (its --yes defaults otherwise, which a saved preference could change). */
export const CLI_FLAGS = [
  "--ts",
  "--app",
  "--no-src-dir",
  "--no-tailwind",
  "--no-linter",
  "--import-alias",
  "@/*",
  "--cache-components",
  "--no-react-compiler",
  "--no-agents-md",
  "--no-agent-feedback",
  "--skip-install",
  "--use-npm",
  "--disable-git",
  "--yes",
];
// Pinned to the repository's version whatever the template says; the rest only within its range.
const ALWAYS_PINNED = ["next", "react", "react-dom"];

const log = (message) => console.log(`[vendor-app] ${message}`);

async function step(name, fn) {
  const started = performance.now();
  const result = await fn();
  log(`${name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

/** JSON with object keys sorted at every level: the same value always hashes the same. */
export function stableJson(value) {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson(value[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

const sha256 = (data) => createHash("sha256").update(data).digest("hex");

/** Whether an exact version is in a template range: "^5", "^19.1.0", "5.9.3", "*"; anything else is not. */
export function inSimpleRange(version, range) {
  const parse = (text) => text.split(".").map((part) => Number(part));
  const [major, minor, patch] = parse(version);
  if (range === "*" || range === "latest") return true;
  if (/^\d+\.\d+\.\d+$/.test(range)) return range === version;
  const caret = /^\^(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range);
  if (!caret || !/^\d+\.\d+\.\d+$/.test(version)) return false;
  const [want, wantMinor = 0, wantPatch = 0] = caret.slice(1).map((part) => (part === undefined ? undefined : Number(part)));
  if (major !== want) return false;
  return minor > wantMinor || (minor === wantMinor && patch >= wantPatch);
}

/**
 * The template's dependencies with the repository's versions: next, react and react-dom always, the
 * others when the repository's exact version is in the template's range. Returns the new sections and
 * what changed.
 */
export function pinDependencies(template, root) {
  const rootVersions = { ...root.devDependencies, ...root.dependencies };
  const changes = [];
  const pin = (section) => {
    const pinned = {};
    for (const [name, range] of Object.entries(template[section] ?? {})) {
      const version = rootVersions[name];
      const exact = typeof version === "string" && /^\d+\.\d+\.\d+$/.test(version);
      if (exact && version !== range && (ALWAYS_PINNED.includes(name) || inSimpleRange(version, range))) {
        pinned[name] = version;
        changes.push(`${name} ${range} -> ${version}`);
      } else {
        pinned[name] = range;
      }
    }
    return pinned;
  };
  return { dependencies: pin("dependencies"), devDependencies: pin("devDependencies"), changes };
}

/**
 * The entries of the repository's lock file (its "packages") that `names` resolve to from the root, with
 * their dependencies, optional dependencies and required peers in turn, where Node's lookup from each
 * entry finds them. Dependency-type flags are dropped (npm works them out for the app); names in `skip`
 * (the tarballs' packages) and links (the repository's workspaces) are left out.
 */
export function seedLockEntries(rootPackages, names, skip = new Set()) {
  const entries = {};
  const locate = (name, from) => {
    let dir = from;
    for (;;) {
      const candidate = `${dir ? `${dir}/` : ""}node_modules/${name}`;
      if (rootPackages[candidate]) return candidate;
      if (!dir) return undefined;
      const at = dir.lastIndexOf("/node_modules/");
      dir = at === -1 ? "" : dir.slice(0, at);
    }
  };
  const add = (name, from) => {
    if (skip.has(name)) return;
    const key = locate(name, from);
    if (!key || entries[key]) return;
    const entry = rootPackages[key];
    if (entry.link) return;
    const { dev: _dev, devOptional: _devOptional, peer: _peer, resolved: _resolved, ...kept } = entry;
    entries[key] = kept;
    for (const dep of Object.keys(entry.dependencies ?? {})) add(dep, key);
    for (const dep of Object.keys(entry.optionalDependencies ?? {})) add(dep, key);
    for (const dep of Object.keys(entry.peerDependencies ?? {})) {
      if (!entry.peerDependenciesMeta?.[dep]?.optional) add(dep, key);
    }
  };
  for (const name of [...names].sort()) add(name, "");
  return Object.fromEntries(Object.entries(entries).sort(([a], [b]) => a.localeCompare(b)));
}

/** The package.json inside an `npm pack` tarball (a gzipped tar whose top folder is usually "package"). */
export function readTarballManifest(file) {
  const tar = gunzipSync(fs.readFileSync(file));
  const text = (start, length) => tar.subarray(start, start + length).toString("utf8").replace(/\0.*$/s, "");
  let longPath;
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const name = text(offset, 100);
    if (!name) break;
    const size = parseInt(text(offset + 124, 12).trim() || "0", 8);
    const type = text(offset + 156, 1);
    const prefix = text(offset + 345, 155);
    const body = offset + 512;
    if (type === "x") {
      const pax = tar.subarray(body, body + size).toString("utf8");
      longPath = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(pax)?.[1];
    } else {
      const entryPath = longPath ?? (prefix ? `${prefix}/${name}` : name);
      longPath = undefined;
      if (/^[^/]+\/package\.json$/.test(entryPath)) return JSON.parse(tar.subarray(body, body + size).toString("utf8"));
    }
    offset = body + Math.ceil(size / 512) * 512;
  }
  throw new Error(`${file}: no package.json in the tarball`);
}

/** What a tarball brings: its package's name, version, dependencies and content hash. */
export function describeTarball(file) {
  const manifest = readTarballManifest(file);
  const hash = sha256(fs.readFileSync(file));
  const slug = manifest.name.replace(/^@/, "").replace(/\//g, "-");
  return {
    file: path.resolve(file),
    name: manifest.name,
    version: manifest.version,
    sha256: hash,
    fileName: `${slug}-${manifest.version}-${hash.slice(0, 12)}.tgz`,
    dependencies: Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies }),
  };
}

/**
 * The two cache keys: `base` for what the template's install depends on, `key` for that and the
 * tarballs. `platform` is [process.platform, process.arch, Node's major version].
 */
export function cacheKeys({ createNextApp, dependencies, devDependencies, seed, platform, tarballs, tarballSeed }) {
  const base = sha256(stableJson({ schema: CACHE_SCHEMA, createNextApp, flags: CLI_FLAGS, dependencies, devDependencies, seed, platform })).slice(0, 16);
  const packed = [...tarballs].map(({ name, version, sha256: hash }) => ({ name, version, sha256: hash })).sort((a, b) => a.name.localeCompare(b.name));
  const key = sha256(stableJson({ base, tarballs: packed, tarballSeed })).slice(0, 16);
  return { base, key };
}

function run(command, args, options) {
  const result = spawnSync(command, args, { stdio: "inherit", ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} (in ${options.cwd}) exited with ${result.status ?? result.signal}`);
}

/** Copies a folder, symlinks as they are; cp -a where there is one (twice as fast as fs.cpSync here). */
function copyTree(from, to) {
  const result = process.platform === "win32" ? { status: 1 } : spawnSync("cp", ["-a", from, to], { stdio: "ignore" });
  if (result.status !== 0) {
    fs.rmSync(to, { recursive: true, force: true });
    fs.cpSync(from, to, { recursive: true, verbatimSymlinks: true });
  }
}

const readJson = (file) => JSON.parse(fs.readFileSync(file, "utf8"));
const writeJson = (file, value) => fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);

/** The outermost lock file above `dir`, which Next would take as the workspace root; undefined if none. */
function lockFileAbove(dir) {
  let found;
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    for (const name of ["package-lock.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock", "bun.lockb"]) {
      if (fs.existsSync(path.join(current, name))) found = path.join(current, name);
    }
    if (path.dirname(current) === current) return found;
  }
}

/** Runs create-next-app into `<staging>/vendor-app`, offline (see the header). */
function generate(cliEntry, version, staging) {
  const tmp = path.join(staging, "tmp");
  const config = path.join(staging, "config");
  fs.mkdirSync(path.join(tmp, "update-check"), { recursive: true });
  fs.mkdirSync(config);
  // The update check's answer, fresh: the CLI asks the registry only when this is older than an hour.
  writeJson(path.join(tmp, "update-check", "create-next-app-latest.json"), { latest: version, lastUpdate: Date.now() });
  run(process.execPath, [cliEntry, APP_NAME, ...CLI_FLAGS], {
    cwd: staging,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, TMPDIR: tmp, TMP: tmp, TEMP: tmp, XDG_CONFIG_HOME: config },
  });
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.rmSync(config, { recursive: true, force: true });
  return path.join(staging, APP_NAME);
}

/** Puts the tarballs into the app: copies under .inlay-tarballs/ and `file:` dependencies, old ones gone. */
function placeTarballs(appDir, tarballs, previous = []) {
  const pkg = readJson(path.join(appDir, "package.json"));
  for (const old of previous) delete pkg.dependencies[old.name];
  fs.rmSync(path.join(appDir, TARBALL_DIR), { recursive: true, force: true });
  fs.mkdirSync(path.join(appDir, TARBALL_DIR));
  for (const tarball of tarballs) {
    fs.copyFileSync(tarball.file, path.join(appDir, TARBALL_DIR, tarball.fileName));
    pkg.dependencies[tarball.name] = `file:${TARBALL_DIR}/${tarball.fileName}`;
  }
  writeJson(path.join(appDir, "package.json"), pkg);
}

/**
 * npm install from npm's cache alone (--offline) and, when something is not there, again asking the
 * registry for what is missing or stale (--prefer-offline).
 */
function npmInstall(appDir, env) {
  const args = ["install", "--no-audit", "--no-fund", "--include=dev", "--loglevel=error"];
  const offline = spawnSync("npm", [...args, "--offline"], { cwd: appDir, env, encoding: "utf8" });
  if (offline.status === 0) {
    process.stdout.write(offline.stdout);
    return;
  }
  // Offline, what npm's cache lacks shows as odd errors (ERESOLVE over "react@undefined", ENOTCACHED).
  const code = /npm error code (\S+)/.exec(offline.stderr ?? "")?.[1] ?? offline.error?.message ?? offline.status;
  log(`npm's cache has not got everything (offline: ${code}): again, asking the registry`);
  run("npm", [...args, "--prefer-offline"], { cwd: appDir, env });
}

export async function main(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      out: { type: "string" },
      overlay: { type: "string" },
      tarball: { type: "string", multiple: true, default: [] },
      build: { type: "boolean", default: false },
      pack: { type: "boolean", default: false },
      "cache-dir": { type: "string" },
    },
  });
  if (!values.out) throw new Error("--out <dir> is required");
  const out = path.resolve(values.out);
  const lockAbove = lockFileAbove(path.dirname(out));
  if (lockAbove) throw new Error(`--out ${out} is below ${lockAbove}: Next would build it with that folder as the workspace root. Use a folder under ${os.tmpdir()}.`);
  if (fs.existsSync(out) && fs.readdirSync(out).length > 0 && !fs.existsSync(path.join(out, MARKER))) {
    throw new Error(`--out ${out} is a folder this script did not make: not replacing it`);
  }
  const overlay = values.overlay && path.resolve(values.overlay);
  if (overlay) {
    if (!fs.statSync(overlay, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`--overlay ${overlay} is not a folder`);
    for (const name of ["package.json", "package-lock.json", "node_modules"]) {
      if (fs.existsSync(path.join(overlay, name))) throw new Error(`--overlay has ${name}: the app's dependencies are the template's and the tarballs'`);
    }
  }
  const cacheDir = path.resolve(values["cache-dir"] ?? path.join(repoRoot, "node_modules/.cache/inlay-vendor-app"));
  const childEnv = {
    ...process.env,
    // npm, next and their children on the Node that runs this script.
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`,
    NEXT_TELEMETRY_DISABLED: "1",
    npm_config_update_notifier: "false",
  };

  const rootPkg = readJson(path.join(repoRoot, "package.json"));
  const rootLock = readJson(path.join(repoRoot, "package-lock.json"));
  const cliDir = path.join(repoRoot, "node_modules/create-next-app");
  const cliVersion = fs.existsSync(path.join(cliDir, "package.json")) ? readJson(path.join(cliDir, "package.json")).version : undefined;
  const wanted = rootPkg.devDependencies?.["create-next-app"];
  if (!cliVersion || cliVersion !== wanted) {
    throw new Error(`node_modules/create-next-app is ${cliVersion ?? "missing"}, package.json wants ${wanted}: run npm install`);
  }

  const packed = values.pack ? packWorkspaces(rootPkg, childEnv) : [];
  const tarballs = [...values.tarball, ...packed].map(describeTarball);
  const names = new Set(tarballs.map((tarball) => tarball.name));
  if (names.size !== tarballs.length) throw new Error("two tarballs of the same package");

  // The key needs the template's package.json, which only the CLI writes: every run generates the app
  // (0.3 s), and a cache hit throws it away.
  const started = performance.now();
  fs.mkdirSync(cacheDir, { recursive: true });
  // What a killed run left behind.
  for (const name of fs.readdirSync(cacheDir)) {
    const stale = path.join(cacheDir, name);
    if (name.startsWith(".staging-") && Date.now() - fs.statSync(stale).mtimeMs > 3_600_000) fs.rmSync(stale, { recursive: true, force: true });
  }
  const staging = fs.mkdtempSync(path.join(cacheDir, ".staging-"));
  try {
    let entryDir;
    let generated;
    const template = await step("generate (create-next-app)", () => {
      generated = generate(path.join(cliDir, "dist/index.js"), cliVersion, staging);
      return readJson(path.join(generated, "package.json"));
    });
    const pinned = pinDependencies(template, rootPkg);
    if (pinned.changes.length > 0) log(`pinned to the repository's versions: ${pinned.changes.join(", ")}`);
    const seed = seedLockEntries(rootLock.packages, Object.keys({ ...pinned.dependencies, ...pinned.devDependencies }), names);
    const tarballSeed = seedLockEntries(rootLock.packages, tarballs.flatMap((tarball) => tarball.dependencies), names);
    const platform = [process.platform, process.arch, process.versions.node.split(".")[0]];
    const keys = cacheKeys({ createNextApp: cliVersion, ...pinned, seed, platform, tarballs, tarballSeed });
    const marker = {
      schema: CACHE_SCHEMA,
      base: keys.base,
      key: keys.key,
      createNextApp: cliVersion,
      flags: CLI_FLAGS,
      platform,
      dependencies: pinned.dependencies,
      devDependencies: pinned.devDependencies,
      tarballs: tarballs.map(({ name, version, sha256: hash, fileName }) => ({ name, version, sha256: hash, fileName })),
    };
    const cached = path.join(cacheDir, keys.key);
    log(`cache key ${keys.key} (base ${keys.base}) in ${cacheDir}`);

    if (fs.existsSync(path.join(cached, MARKER))) {
      log("cache hit");
      entryDir = cached;
    } else {
      const siblings = fs
        .readdirSync(cacheDir)
        .filter((name) => !name.startsWith("."))
        .map((name) => ({ dir: path.join(cacheDir, name), marker: path.join(cacheDir, name, MARKER) }))
        .filter(({ marker: file }) => fs.existsSync(file) && readJson(file).base === keys.base)
        .sort((a, b) => fs.statSync(b.marker).mtimeMs - fs.statSync(a.marker).mtimeMs);
      const appDir = path.join(staging, "entry");
      if (siblings[0]) {
        log(`cache miss; the tarballs change in ${path.basename(siblings[0].dir)}`);
        await step("copy the cached app", () => copyTree(siblings[0].dir, appDir));
        const previous = readJson(siblings[0].marker).tarballs;
        fs.rmSync(path.join(appDir, MARKER));
        placeTarballs(appDir, tarballs, previous);
        // The new tarballs' dependencies the lock has not got yet, as the repository locks them.
        const lock = readJson(path.join(appDir, "package-lock.json"));
        for (const [key, entry] of Object.entries(tarballSeed)) lock.packages[key] ??= entry;
        writeJson(path.join(appDir, "package-lock.json"), lock);
        await step("npm install (the changed tarballs)", () => npmInstall(appDir, childEnv));
      } else {
        log("cache miss; a full install");
        fs.renameSync(generated, appDir);
        const pkg = readJson(path.join(appDir, "package.json"));
        writeJson(path.join(appDir, "package.json"), { ...pkg, dependencies: pinned.dependencies, devDependencies: pinned.devDependencies });
        placeTarballs(appDir, tarballs);
        const appPkg = readJson(path.join(appDir, "package.json"));
        writeJson(path.join(appDir, "package-lock.json"), {
          name: appPkg.name,
          version: appPkg.version,
          lockfileVersion: 3,
          requires: true,
          packages: {
            "": { name: appPkg.name, version: appPkg.version, dependencies: appPkg.dependencies, devDependencies: appPkg.devDependencies },
            ...tarballSeed,
            ...seed,
          },
        });
        await step("npm install", () => npmInstall(appDir, childEnv));
      }
      writeJson(path.join(appDir, MARKER), marker);
      try {
        fs.renameSync(appDir, cached);
      } catch (error) {
        // Another run made the same entry meanwhile: use that one.
        if (!fs.existsSync(path.join(cached, MARKER))) throw error;
      }
      entryDir = cached;
    }
    const now = new Date();
    fs.utimesSync(path.join(entryDir, MARKER), now, now);

    await step(`copy to ${out}`, () => {
      fs.rmSync(out, { recursive: true, force: true });
      fs.mkdirSync(path.dirname(out), { recursive: true });
      copyTree(entryDir, out);
      if (overlay) fs.cpSync(overlay, out, { recursive: true, force: true });
    });

    // The least recently used entries beyond KEEP_ENTRIES go.
    const entries = fs
      .readdirSync(cacheDir)
      .filter((name) => !name.startsWith(".") && fs.existsSync(path.join(cacheDir, name, MARKER)))
      .map((name) => ({ dir: path.join(cacheDir, name), used: fs.statSync(path.join(cacheDir, name, MARKER)).mtimeMs }))
      .sort((a, b) => b.used - a.used);
    for (const { dir } of entries.slice(KEEP_ENTRIES)) fs.rmSync(dir, { recursive: true, force: true });
    log(`ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }

  if (values.build) {
    await step("next build", () =>
      run(process.execPath, ["node_modules/next/dist/bin/next", "build"], {
        cwd: out,
        env: { ...childEnv, NEXT_FONT_GOOGLE_MOCKED_RESPONSES: fontsMock },
      }),
    );
  }
  log(`start: cd ${out} && NEXT_TELEMETRY_DISABLED=1 node node_modules/next/dist/bin/next start --port <port> --hostname 127.0.0.1`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((error) => {
    console.error(`[vendor-app] ${error.message}`);
    process.exit(1);
  });
}
