// The vendor app's cache: what its keys depend on, the pinned dependencies and the lock entries seeded from
// the repository's lock file (tests/vendor-app/generate.mjs).
import { spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Plain Node ESM without declarations: imported by URL, as untyped.
const moduleUrl: string = pathToFileURL(path.resolve("tests/vendor-app/generate.mjs")).href;
let generate: any;
let dir: string;

beforeAll(async () => {
  generate = await import(moduleUrl);
  dir = mkdtempSync(path.join(os.tmpdir(), "vendor-app-test-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An `npm pack`-shaped tarball (package/package.json) of a manifest, made with tar. */
function tarball(name: string, manifest: object, extra = ""): string {
  const root = path.join(dir, name);
  mkdirSync(path.join(root, "package"), { recursive: true });
  writeFileSync(path.join(root, "package", "package.json"), JSON.stringify(manifest));
  writeFileSync(path.join(root, "package", "index.js"), `export default 1;${extra}\n`);
  const file = path.join(dir, `${name}.tgz`);
  const result = spawnSync("tar", ["-czf", file, "-C", root, "package"]);
  expect(result.status).toBe(0);
  return file;
}

const inputs = {
  createNextApp: "16.4.3",
  dependencies: { next: "16.4.6", react: "19.3.1", "react-dom": "19.3.1" },
  devDependencies: { typescript: "5.9.3" },
  seed: { "node_modules/next": { version: "16.4.6", integrity: "sha512-a" } },
  platform: ["linux", "x64", "22"],
  tarballs: [
    { name: "@inlay/core", version: "0.1.0", sha256: "aa" },
    { name: "@inlay/react", version: "0.1.0", sha256: "bb" },
  ],
  tarballSeed: {},
};

describe("cache keys", () => {
  it("are the same for the same inputs, whatever the order of keys and tarballs", () => {
    const again = generate.cacheKeys({
      ...inputs,
      dependencies: { "react-dom": "19.3.1", react: "19.3.1", next: "16.4.6" },
      tarballs: [...inputs.tarballs].reverse(),
    });
    expect(again).toEqual(generate.cacheKeys(inputs));
  });

  it("change only the key when a tarball's content changes", () => {
    const before = generate.cacheKeys(inputs);
    const after = generate.cacheKeys({ ...inputs, tarballs: [inputs.tarballs[0], { ...inputs.tarballs[1], sha256: "cc" }] });
    expect(after.base).toBe(before.base);
    expect(after.key).not.toBe(before.key);
  });

  it("change the base with the template's install: create-next-app, dependencies, their lock entries, Node", () => {
    const before = generate.cacheKeys(inputs);
    for (const changed of [
      { createNextApp: "16.4.4" },
      { dependencies: { ...inputs.dependencies, next: "16.4.7" } },
      { seed: { "node_modules/next": { version: "16.4.6", integrity: "sha512-b" } } },
      { platform: ["linux", "x64", "24"] },
    ]) {
      const after = generate.cacheKeys({ ...inputs, ...changed });
      expect(after.base).not.toBe(before.base);
      expect(after.key).not.toBe(before.key);
    }
  });
});

describe("pinned dependencies", () => {
  const template = {
    dependencies: { next: "16.4.3", react: "19.3.0", "react-dom": "19.3.0" },
    devDependencies: { typescript: "^5", "@types/node": "^20", "@types/react": "^19" },
  };

  it("take next, react and react-dom from the repository, the rest when in the template's range", () => {
    const root = {
      dependencies: { next: "16.4.6", react: "19.3.1", "react-dom": "19.3.1" },
      devDependencies: { typescript: "5.9.3", "@types/node": "22.1.0", "@types/react": "19.3.0" },
    };
    const pinned = generate.pinDependencies(template, root);
    expect(pinned.dependencies).toEqual({ next: "16.4.6", react: "19.3.1", "react-dom": "19.3.1" });
    // @types/node 22 is not the template's ^20: left to npm.
    expect(pinned.devDependencies).toEqual({ typescript: "5.9.3", "@types/node": "^20", "@types/react": "19.3.0" });
  });

  it("keep the template's where the repository has no exact version", () => {
    const pinned = generate.pinDependencies(template, { dependencies: { next: "^16.4.0" } });
    expect(pinned.dependencies).toEqual(template.dependencies);
    expect(pinned.changes).toEqual([]);
  });

  it("read simple ranges", () => {
    expect(generate.inSimpleRange("5.9.3", "^5")).toBe(true);
    expect(generate.inSimpleRange("19.0.9", "^19.1.0")).toBe(false);
    expect(generate.inSimpleRange("19.2.0", "^19.1.3")).toBe(true);
    expect(generate.inSimpleRange("6.0.0", "^5")).toBe(false);
    expect(generate.inSimpleRange("5.9.3", "~5.9.0")).toBe(false);
    expect(generate.inSimpleRange("5.9.3", "5.9.3")).toBe(true);
  });
});

describe("lock entries seeded from the repository's lock file", () => {
  const rootPackages = {
    "": { name: "inlay" },
    "node_modules/next": {
      version: "16.4.6",
      dependencies: { "styled-jsx": "5.1.6", postcss: "8.4.31" },
      optionalDependencies: { "@next/swc-linux-x64-gnu": "16.4.6" },
      peerDependencies: { react: "^19", sass: "^1" },
      peerDependenciesMeta: { sass: { optional: true } },
    },
    "node_modules/next/node_modules/postcss": { version: "8.4.31", dependencies: { nanoid: "^3" } },
    "node_modules/postcss": { version: "8.5.33", dev: true },
    "node_modules/nanoid": { version: "3.3.11" },
    "node_modules/styled-jsx": { version: "5.1.6", peer: true },
    "node_modules/@next/swc-linux-x64-gnu": { version: "16.4.6", optional: true, os: ["linux"] },
    "node_modules/react": { version: "19.3.1" },
    "node_modules/sass": { version: "1.0.0", dev: true },
    "node_modules/@inlay/core": { resolved: "packages/core", link: true },
    "node_modules/zod": { version: "4.6.7" },
  };

  it("follow Node's lookup from each entry, with required peers and optional dependencies", () => {
    const seed = generate.seedLockEntries(rootPackages, ["next"]);
    expect(Object.keys(seed)).toEqual([
      "node_modules/@next/swc-linux-x64-gnu",
      "node_modules/nanoid",
      "node_modules/next",
      "node_modules/next/node_modules/postcss",
      "node_modules/react",
      "node_modules/styled-jsx",
    ]);
    // Dependency-type flags are the repository's, not the app's; "optional" stays (other platforms').
    expect(seed["node_modules/styled-jsx"]).toEqual({ version: "5.1.6" });
    expect(seed["node_modules/@next/swc-linux-x64-gnu"].optional).toBe(true);
  });

  it("leave out the tarballs' packages and the repository's workspaces", () => {
    expect(generate.seedLockEntries(rootPackages, ["@inlay/core", "zod"])).toEqual({ "node_modules/zod": { version: "4.6.7" } });
    expect(generate.seedLockEntries(rootPackages, ["zod"], new Set(["zod"]))).toEqual({});
  });
});

describe("tarballs", () => {
  it("are named by their package and identified by their content", () => {
    const manifest = { name: "@inlay/core", version: "0.1.0", dependencies: { zod: "^4" } };
    const first = generate.describeTarball(tarball("one", manifest));
    expect(first).toMatchObject({ name: "@inlay/core", version: "0.1.0", dependencies: ["zod"] });
    expect(first.fileName).toMatch(/^inlay-core-0\.1\.0-[0-9a-f]{12}\.tgz$/);
    const changed = generate.describeTarball(tarball("two", manifest, " // changed"));
    expect(changed.sha256).not.toBe(first.sha256);
    expect(changed.fileName).not.toBe(first.fileName);
  });
});
