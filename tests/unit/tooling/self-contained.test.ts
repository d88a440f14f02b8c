// The repository stands alone: someone who clones it has every document its files point to. The API's
// contract is docs/platform-api.md with /api/v2/openapi.json, the design decisions docs/design.md; no
// tracked file points to a design note or a copy of the spec kept outside the repository.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../../..");
// Written in pieces so that this file does not match itself.
const OUTSIDE = new RegExp(["DESIGN" + "\\.md", "STYLE" + "\\.md", "shared/" + "spec\\b", "/work/" + "shared"].join("|"));

describe("the repository's documents", () => {
  it("point only inside the repository", () => {
    const files = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" }).split("\0").filter(Boolean);
    expect(files.length).toBeGreaterThan(100);
    const offenders: string[] = [];
    for (const file of files) {
      let text: string;
      try {
        text = readFileSync(path.join(root, file), "utf8");
      } catch {
        continue; // listed but absent (deleted in the work tree), or a directory (a submodule)
      }
      if (text.includes("\0")) continue; // binary
      text.split("\n").forEach((line, index) => {
        if (OUTSIDE.test(line)) offenders.push(`${file}:${index + 1}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(offenders).toEqual([]);
  });

  it("include the design decisions the code cites", () => {
    const design = readFileSync(path.join(root, "docs/design.md"), "utf8");
    const sections = [...design.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    // Every "docs/design.md, <section>" a comment cites is a section there.
    const files = execFileSync("git", ["grep", "-h", "-o", "docs/design.md, [A-Z][a-z-]*"], { cwd: root, encoding: "utf8" }).split("\n").filter(Boolean);
    const cited = new Set(files.map((cite) => cite.slice("docs/design.md, ".length)));
    expect(cited.size).toBeGreaterThan(0);
    for (const section of cited) expect(sections, section).toContain(section);
  });
});
