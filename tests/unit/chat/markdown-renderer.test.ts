// The chat's markdown renderer, as static markup: each GFM construct the chat shows, and that nothing a
// model writes becomes markup or a script URL.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import MarkdownRenderer, { safeUrl } from "@inlay/react/markdown-renderer";

const html = (text: string) => renderToStaticMarkup(createElement(MarkdownRenderer, { text }));
/** The markup inside the renderer's <div class="ic-markdown">. */
const inner = (text: string) => {
  const markup = html(text);
  expect(markup.startsWith('<div class="ic-markdown">') && markup.endsWith("</div>")).toBe(true);
  return markup.slice('<div class="ic-markdown">'.length, -"</div>".length);
};

describe("MarkdownRenderer", () => {
  it("renders headings, paragraphs and inline styles", () => {
    expect(inner("# One\n\n###### Six\n\nSome **strong**, *em*, ~~gone~~ and `a < b`.")).toBe(
      "<h1>One</h1><h6>Six</h6><p>Some <strong>strong</strong>, <em>em</em>, <del>gone</del> and <code>a &lt; b</code>.</p>",
    );
  });

  it("renders hard breaks and thematic breaks", () => {
    expect(inner("one  \ntwo\\\nthree\n\n---\n\nfour")).toBe("<p>one<br/>two<br/>three</p><hr/><p>four</p>");
  });

  it("renders a code block with its language, a Copy button and the text as written", () => {
    expect(inner("```ts\nconst a = 1 < 2;\n```")).toBe(
      '<div class="ic-code"><div class="ic-code-bar"><span>ts</span><button type="button" class="ic-copy">Copy</button></div>' +
        '<pre><code class="language-ts">const a = 1 &lt; 2;\n</code></pre></div>',
    );
    expect(inner("    indented")).toContain('<span>code</span><button type="button" class="ic-copy">Copy</button></div><pre><code>indented\n</code></pre>');
  });

  it("renders tight and loose lists, an ordered list's start, and nested lists", () => {
    expect(inner("- one\n- two\n  - nested")).toBe("<ul><li>one</li><li>two<ul><li>nested</li></ul></li></ul>");
    expect(inner("3. three\n4. four")).toBe('<ol start="3"><li>three</li><li>four</li></ol>');
    expect(inner("1. one")).toBe("<ol><li>one</li></ol>");
    expect(inner("- one\n\n- two")).toBe("<ul><li><p>one</p></li><li><p>two</p></li></ul>");
  });

  it("renders task lists with disabled checkboxes", () => {
    expect(inner("- [x] done\n- [ ] open")).toBe(
      '<ul class="contains-task-list">' +
        '<li class="task-list-item"><input type="checkbox" disabled="" readOnly="" checked=""/> done</li>' +
        '<li class="task-list-item"><input type="checkbox" disabled="" readOnly=""/> open</li></ul>',
    );
    // In a loose list the checkbox stays on its item's first line, inside the paragraph.
    expect(inner("- [x] done\n\n  more\n- [ ] open")).toBe(
      '<ul class="contains-task-list">' +
        '<li class="task-list-item"><p><input type="checkbox" disabled="" readOnly="" checked=""/> done</p><p>more</p></li>' +
        '<li class="task-list-item"><p><input type="checkbox" disabled="" readOnly=""/> open</p></li></ul>',
    );
  });

  it("renders blockquotes", () => {
    expect(inner("> quoted **text**")).toBe("<blockquote><p>quoted <strong>text</strong></p></blockquote>");
  });

  it("renders tables with their alignment, each row as wide as the header", () => {
    expect(inner("| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 |\n| x | y | z | extra |")).toBe(
      "<table><thead><tr>" +
        '<th style="text-align:left">a</th><th style="text-align:center">b</th><th style="text-align:right">c</th>' +
        "</tr></thead><tbody>" +
        '<tr><td style="text-align:left">1</td><td style="text-align:center">2</td><td style="text-align:right"></td></tr>' +
        '<tr><td style="text-align:left">x</td><td style="text-align:center">y</td><td style="text-align:right">z</td></tr>' +
        "</tbody></table>",
    );
    expect(inner("| a |\n|---|")).toBe("<table><thead><tr><th>a</th></tr></thead></table>");
  });

  it("opens links, autolinks and reference links in a new tab without an opener", () => {
    const link = (href: string, text: string) => `<a href="${href}" target="_blank" rel="noopener noreferrer">${text}</a>`;
    expect(inner("[docs](https://example.com/docs)")).toBe(`<p>${link("https://example.com/docs", "docs")}</p>`);
    expect(inner("see www.example.com and <https://example.org>")).toBe(
      `<p>see ${link("http://www.example.com", "www.example.com")} and ${link("https://example.org", "https://example.org")}</p>`,
    );
    expect(inner("mail a@example.com")).toBe(`<p>mail ${link("mailto:a@example.com", "a@example.com")}</p>`);
    expect(inner("[the docs][d]\n\n[d]: /docs/start")).toBe(`<p>${link("/docs/start", "the docs")}</p>`);
    // A label defined twice: the first definition counts, as in CommonMark.
    expect(inner("[x][d]\n\n[d]: /first\n[d]: /second")).toBe(`<p>${link("/first", "x")}</p>`);
  });

  it("shows images as links to them, not as images that load by themselves", () => {
    expect(inner("![a chart](https://example.com/c.png)")).toBe(
      '<p><a href="https://example.com/c.png" target="_blank" rel="noopener noreferrer">a chart</a></p>',
    );
    expect(inner("![][i]\n\n[i]: https://example.com/i.png")).toContain(">https://example.com/i.png</a>");
    expect(html("![x](https://example.com/c.png)")).not.toContain("<img");
  });

  it("numbers footnotes in the order they are cited and lists them at the end", () => {
    expect(inner("B[^b] then A[^a], B again[^b].\n\n[^a]: Note A.\n[^b]: Note B.\n[^unused]: Never cited.")).toBe(
      "<p>B<sup>1</sup> then A<sup>2</sup>, B again<sup>1</sup>.</p>" +
        '<section class="footnotes"><ol><li><p>Note B.</p></li><li><p>Note A.</p></li></ol></section>',
    );
    expect(inner("x[^1]\n\n[^1]: first\n[^1]: second")).toBe('<p>x<sup>1</sup></p><section class="footnotes"><ol><li><p>first</p></li></ol></section>');
    // Undefined: the text as written.
    expect(inner("x[^2]")).toBe("<p>x[^2]</p>");
  });

  it("renders the partial text of a stream", () => {
    expect(inner("| a |\n|---|\n| 1")).toContain("<td>1</td>");
    expect(inner("```py\nprint(")).toContain('<code class="language-py">print(\n</code>');
    expect(inner("")).toBe("");
  });
});

describe("MarkdownRenderer safety", () => {
  it("shows raw HTML as text, never as markup", () => {
    const markup = html('<script>alert(1)</script>\n\nhi <img src=x onerror="alert(1)"> <b>bold</b>\n\n<div onclick="x()">block</div>');
    expect(markup).not.toMatch(/<(script|img|b|div onclick)[\s>]/);
    expect(markup).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(markup).toContain("hi &lt;img src=x onerror=&quot;alert(1)&quot;&gt; &lt;b&gt;bold&lt;/b&gt;");
  });

  it.each([
    ["javascript:", "[x](javascript:alert(1))"],
    ["mixed case", "[x](JaVaScRiPt:alert(1))"],
    ["decimal entities", "[x](&#106;avascript:alert(1))"],
    ["hex entities", "[x](&#x6A;&#x61;vascript:alert(1))"],
    ["a named entity in the protocol", "[x](javascript&colon;alert(1))"],
    ["a tab entity inside the protocol", "[x](java&#9;script:alert(1))"],
    ["vbscript:", "[x](vbscript:msgbox(1))"],
    ["data:", "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)"],
    ["an autolink", "<javascript:alert(1)>"],
    ["a reference definition", "[x][r]\n\n[r]: javascript:alert(1)"],
    ["an image", "![x](javascript:alert(1))"],
    ["a data: image", "![x](data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=)"],
  ])("drops the URL of a link with a dangerous protocol: %s", (_, text) => {
    const markup = html(text);
    expect(markup).not.toMatch(/<a|href|src=/);
  });

  it("keeps the link's text when it drops the URL", () => {
    expect(inner("[trap](javascript:alert(1)) and [docs](/docs)")).toBe(
      '<p>trap and <a href="/docs" target="_blank" rel="noopener noreferrer">docs</a></p>',
    );
  });

  it("allows relative URLs and the safe protocols only (react-markdown's defaultUrlTransform)", () => {
    for (const url of ["https://a.b/c", "HTTP://a.b", "mailto:a@b.c", "ircs://irc.example.net", "xmpp:a@b.c", "/docs", "docs/a:b", "?q=a:b", "#x:y", "//cdn.example.com/x"]) {
      expect(safeUrl(url)).toBe(url);
    }
    for (const url of ["javascript:alert(1)", " javascript:alert(1)", "\u0001javascript:alert(1)", "java\tscript:x", "data:text/html,x", "vbscript:x", "file:///etc/passwd", "ftp://x"]) {
      expect(safeUrl(url)).toBe("");
    }
  });
});
