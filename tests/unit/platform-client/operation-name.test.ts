// Operation names for metrics (@inlay/core/platform-client/operation-name.ts): ids and names never reach a label,
// and every fixed word of the client's paths is known, so an operation keeps its own name.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { operationName, PATH_WORDS } from "@inlay/core/platform-client/operation-name";

describe("operationName", () => {
  it("keeps the path's words and replaces ids and names", () => {
    expect(operationName("GET", "/runs/123/events")).toBe("GET /runs/{id}/events");
    expect(operationName("POST", "/runs")).toBe("POST /runs");
    expect(operationName("GET", "/runs/needs-you")).toBe("GET /runs/needs-you");
    expect(operationName("GET", "/agents/7/documents/notes.md")).toBe("GET /agents/{id}/documents/{id}");
    expect(operationName("DELETE", "/users/alice%40example.com")).toBe("DELETE /users/{id}");
    // A user-chosen name that happens to be lower-case words is still a value.
    expect(operationName("GET", "/apps/my-notes/connections")).toBe("GET /apps/{id}/connections");
  });

  it("knows every fixed word of the client's paths", async () => {
    const folder = path.resolve(import.meta.dirname, "../../../packages/core/src/platform-client/resources");
    const words = new Set<string>();
    for (const file of await readdir(folder)) {
      const source = await readFile(path.join(folder, file), "utf8");
      for (const [, literal] of source.matchAll(/(?:path: |=> )[`"]([^`"]*)[`"]/g)) {
        for (const part of literal!.replace(/\$\{[^}]*\}/g, "").split("/")) if (/^[a-z]/.test(part)) words.add(part);
      }
    }
    expect(words.size).toBeGreaterThan(50);
    expect([...words].filter((word) => !PATH_WORDS.has(word))).toEqual([]);
  });
});
