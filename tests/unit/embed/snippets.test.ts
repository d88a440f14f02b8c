// The Embed page's copy-paste snippets (lib/embed/snippets.ts): valid code, the values they are
// given, and the same text as docs/embedding.md shows, so the docs cannot drift from the page.
import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { curlSnippet, expressSnippet, nextRouteSnippet, scriptTagSnippet } from "@/lib/embed/snippets";

const context = { appOrigin: "https://inlay.example.com", tenantSlug: "acme", agent: "Acme assistant" };
const docs = readFileSync("docs/embedding.md", "utf8");

function syntaxErrors(code: string, fileName: string): string[] {
  const source = ts.createSourceFile(fileName, code, ts.ScriptTarget.Latest, true);
  const diagnostics = (source as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics;
  return diagnostics.map((each) => ts.flattenDiagnosticMessageText(each.messageText, "\n"));
}

describe("embed snippets", () => {
  it("are code that parses, calling the sessions endpoint with the secret from the environment", () => {
    for (const [code, file] of [
      [expressSnippet(context), "express.js"],
      [nextRouteSnippet(context), "route.ts"],
    ] as const) {
      expect(syntaxErrors(code, file)).toEqual([]);
      expect(code).toContain('"https://inlay.example.com/api/embed/sessions"');
      expect(code).toContain("Bearer ${process.env.INLAY_EMBED_SECRET}");
      expect(code).toContain('agent: "Acme assistant"');
    }
  });

  it("quote what they are given", () => {
    const odd = { ...context, agent: `O'Brien "bot"` };
    expect(syntaxErrors(expressSnippet(odd), "express.js")).toEqual([]);
    expect(expressSnippet(odd)).toContain(`agent: "O'Brien \\"bot\\""`);
    // The curl body stays one shell word: the single quote is closed, escaped and reopened.
    expect(curlSnippet(odd)).toContain(`"agent":"O'\\''Brien \\"bot\\""`);
  });

  it("are what docs/embedding.md shows", () => {
    for (const snippet of [expressSnippet(context), nextRouteSnippet(context), curlSnippet(context, "https://shop.acme.com")]) {
      expect(docs).toContain(snippet);
    }
    expect(scriptTagSnippet(context)).toBe(
      '<script src="https://inlay.example.com/embed.js" data-agent="Acme assistant" data-tenant="acme" data-title="Acme assistant" data-token-url="/api/inlay-token" async></script>',
    );
  });
});
