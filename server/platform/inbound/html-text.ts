// The readable text of an HTML mail body, for mail that has no text/plain part (mailparser converts the
// HTML only when it is the whole message, not beside an attachment or inside multipart/related). One
// linear pass over the markup: scripts, styles and the head are dropped, block elements end lines, list
// items get a dash, links keep their address, images their alt text, entities are decoded.

/** Elements whose content is never text to read. */
const SKIPPED = new Set(["script", "style", "head", "title", "template", "noscript", "svg", "object", "iframe"]);
/** Elements that start and end a paragraph (a blank line around them). */
const PARAGRAPHS = new Set(["p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "table", "ul", "ol", "dl", "figure"]);
/** Elements that start and end a line. */
const LINES = new Set([
  "div", "section", "article", "header", "footer", "main", "nav", "aside", "address", "tr", "dt", "dd",
  "caption", "figcaption", "form", "fieldset", "center", "tbody", "thead", "tfoot",
]);

// The HTML 4 Latin-1 entities, in code point order from U+00A0, then the typographic ones mail uses most.
const LATIN1 =
  "nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml";
const ENTITIES = new Map<string, string>([
  ...LATIN1.split(" ").map((name, index): [string, string] => [name, String.fromCodePoint(0xa0 + index)]),
  ["amp", "&"], ["lt", "<"], ["gt", ">"], ["quot", '"'], ["apos", "'"],
  ["ndash", "–"], ["mdash", "—"], ["lsquo", "‘"], ["rsquo", "’"], ["sbquo", "‚"], ["ldquo", "“"], ["rdquo", "”"],
  ["bdquo", "„"], ["hellip", "…"], ["bull", "•"], ["euro", "€"], ["trade", "™"], ["dagger", "†"], ["prime", "′"],
  ["larr", "←"], ["rarr", "→"], ["uarr", "↑"], ["darr", "↓"], ["ensp", " "], ["emsp", " "], ["thinsp", " "],
  ["zwnj", ""], ["zwj", ""], ["lrm", ""], ["rlm", ""], ["OElig", "Œ"], ["oelig", "œ"], ["Scaron", "Š"], ["scaron", "š"],
]);

export function decodeEntities(text: string): string {
  return text.replace(/&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z][a-zA-Z0-9]{1,31}));?/g, (whole, dec?: string, hex?: string, name?: string) => {
    if (name !== undefined) return ENTITIES.get(name) ?? whole;
    const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex!, 16);
    // NUL, surrogates and numbers past Unicode are what the HTML standard replaces with U+FFFD.
    return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? "\uFFFD" : String.fromCodePoint(code);
  });
}

function attribute(tag: string, name: string): string | null {
  const match = new RegExp(`[\\s/]${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(tag);
  return match ? decodeEntities(match[1] ?? match[2] ?? match[3] ?? "") : null;
}

/** Where the tag that opens at `start` ends (past its `>`), with quoted attribute values skipped. */
function tagEnd(html: string, start: number): number {
  let quote = "";
  for (let index = start + 1; index < html.length; index++) {
    const char = html[index];
    if (quote) {
      if (char === quote) quote = "";
    } else if (char === '"' || char === "'") quote = char;
    else if (char === ">") return index + 1;
  }
  return html.length;
}

export function htmlToText(html: string): string {
  const out: string[] = [];
  let pre = 0;
  // Where each open <a>'s text starts in `out`, and its address.
  const links: { at: number; href: string }[] = [];
  // Block boundaries are held until the next text, so nested and adjacent blocks give one break.
  let pending = 0;
  const breakLine = (lines: number) => {
    pending = Math.max(pending, lines);
  };
  const emit = (chunk: string) => {
    if (pending > 0 && out.length > 0) out.push("\n".repeat(pending));
    pending = 0;
    out.push(chunk);
  };
  const afterSpace = () => pending > 0 || out.length === 0 || /[\n ]$/.test(out[out.length - 1]!);
  const text = (raw: string) => {
    let chunk = pre > 0 ? raw : raw.replace(/\s+/g, " ");
    if (pre === 0 && afterSpace()) chunk = chunk.trimStart();
    if (chunk) emit(decodeEntities(chunk).replace(/\u00a0/g, " "));
  };
  const tagName = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)/y;
  let index = 0;
  while (index < html.length) {
    const open = html.indexOf("<", index);
    if (open === -1) {
      text(html.slice(index));
      break;
    }
    text(html.slice(index, open));
    if (html.startsWith("<!--", open)) {
      const close = html.indexOf("-->", open + 4);
      index = close === -1 ? html.length : close + 3;
      continue;
    }
    tagName.lastIndex = open;
    const match = tagName.exec(html);
    if (!match) {
      // A declaration (<!DOCTYPE>, <?xml?>) is dropped; a lone "<" is text.
      if (html[open + 1] === "!" || html[open + 1] === "?") index = tagEnd(html, open);
      else {
        text("<");
        index = open + 1;
      }
      continue;
    }
    const end = tagEnd(html, open);
    const tag = html.slice(open, end);
    const closing = match[1] === "/";
    const name = match[2]!.toLowerCase();
    index = end;
    if (SKIPPED.has(name)) {
      if (!closing && !tag.endsWith("/>")) {
        const closer = new RegExp(`</${name}\\s*>`, "gi");
        closer.lastIndex = end;
        index = closer.exec(html) ? closer.lastIndex : html.length;
      }
      continue;
    }
    if (name === "br") emit("\n");
    else if (name === "hr") breakLine(2);
    else if (PARAGRAPHS.has(name)) {
      breakLine(2);
      if (name === "pre") pre = Math.max(0, pre + (closing ? -1 : 1));
    } else if (LINES.has(name)) breakLine(1);
    else if (name === "li") {
      breakLine(1);
      if (!closing) emit("- ");
    } else if ((name === "td" || name === "th") && !closing && !afterSpace()) emit(" ");
    else if (name === "img" && !closing) {
      const alt = attribute(tag, "alt")?.trim();
      if (alt) emit(`[${alt}]`);
    } else if (name === "a") {
      if (!closing) links.push({ at: out.length, href: attribute(tag, "href")?.trim() ?? "" });
      else {
        const link = links.pop();
        const label = link ? out.slice(link.at).join("").trim() : "";
        const address = link?.href.replace(/^mailto:/i, "") ?? "";
        // An address worth keeping (not an anchor, not a script) and not already the label.
        if (address && /^(https?:|mailto:)/i.test(link!.href) && address !== label) emit(label ? ` (${address})` : address);
      }
    }
  }
  return out
    .join("")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
