"use client";
// Streamed markdown: GitHub-flavoured (tables, task lists, autolinks, footnotes), links opening in a
// new tab, code blocks with their language and a copy button. Loaded on demand through ./markdown.tsx.
//
// micromark parses (through mdast-util-from-markdown, with the GFM extensions) and the tree is turned
// into elements here, rather than by react-markdown: its unified / remark-rehype / hast pipeline
// doubled the size of this chunk, which the embed widget's budget cannot afford.
//
// Safety: a model's text must not become markup. Raw HTML is shown as text (React escapes it), and a
// link whose URL has a protocol other than http(s), mailto, irc(s) or xmpp (javascript:, data:, …)
// loses its href, as with react-markdown's defaultUrlTransform.
import { useMemo, useState, type ReactNode } from "react";
import type { Definition, FootnoteDefinition, Nodes, Parents, Root } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";

export function parseMarkdown(text: string): Root {
  return fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
}

const SAFE_PROTOCOL = /^(https?|ircs?|mailto|xmpp)$/i;

/**
 * The URL if it is relative or its protocol is a safe one, else "" (react-markdown's defaultUrlTransform).
 * Entity references are already decoded by the parser, so `&#106;avascript:` arrives as `javascript:`.
 */
export function safeUrl(url: string): string {
  const colon = url.indexOf(":");
  // A colon after a "/", "?" or "#" is part of a path, query or fragment, not a protocol.
  const notProtocol = (char: string) => {
    const at = url.indexOf(char);
    return at !== -1 && colon > at;
  };
  return colon === -1 || notProtocol("/") || notProtocol("?") || notProtocol("#") || SAFE_PROTOCOL.test(url.slice(0, colon)) ? url : "";
}

function Link({ url, children }: { url: string; children: ReactNode }) {
  const href = safeUrl(url);
  // A neutralised link keeps its text only: an empty href would still open this very page.
  if (!href) return children;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  );
}

function CodeBlock({ language, code }: { language: string | null | undefined; code: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="ic-code">
      <div className="ic-code-bar">
        <span>{language || "code"}</span>
        <button
          type="button"
          className="ic-copy"
          onClick={() => {
            void navigator.clipboard?.writeText(code).then(() => {
              setCopied(true);
              setTimeout(() => setCopied(false), 1500);
            });
          }}
        >
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      <pre>
        <code className={language ? `language-${language}` : undefined}>{code ? `${code}\n` : ""}</code>
      </pre>
    </div>
  );
}

/** What rendering one message needs besides the node: reference definitions, and footnotes in the order they are cited. */
interface Context {
  definitions: Map<string, Definition>;
  footnotes: Map<string, FootnoteDefinition>;
  cited: string[];
}

/** Finds the definitions; when a label is defined twice, the first one counts (CommonMark). */
function collect(node: Nodes, context: Context) {
  if (node.type === "definition" && !context.definitions.has(node.identifier)) context.definitions.set(node.identifier, node);
  else if (node.type === "footnoteDefinition" && !context.footnotes.has(node.identifier)) context.footnotes.set(node.identifier, node);
  if ("children" in node) for (const child of node.children) collect(child, context);
}

const children = (node: Parents, context: Context) => node.children.map((child, index) => render(child, context, index));

/** A list is loose (its items' paragraphs shown as paragraphs) if it or any item is spread, as in mdast-util-to-hast. */
const isLoose = (list: Extract<Nodes, { type: "list" }>) =>
  Boolean(list.spread) || list.children.some((item) => item.spread ?? item.children.length > 1);

function render(node: Nodes, context: Context, key: number, tight = false): ReactNode {
  switch (node.type) {
    case "text":
      return node.value;
    // Raw HTML is never markup: shown as written, like react-markdown without rehype-raw.
    case "html":
      return node.value;
    case "paragraph":
      return tight ? children(node, context) : <p key={key}>{children(node, context)}</p>;
    case "heading": {
      const Heading = `h${node.depth}` as const;
      return <Heading key={key}>{children(node, context)}</Heading>;
    }
    case "emphasis":
      return <em key={key}>{children(node, context)}</em>;
    case "strong":
      return <strong key={key}>{children(node, context)}</strong>;
    case "delete":
      return <del key={key}>{children(node, context)}</del>;
    case "inlineCode":
      return <code key={key}>{node.value}</code>;
    case "code":
      return <CodeBlock key={key} language={node.lang} code={node.value} />;
    case "break":
      return <br key={key} />;
    case "thematicBreak":
      return <hr key={key} />;
    case "blockquote":
      return <blockquote key={key}>{children(node, context)}</blockquote>;
    case "list": {
      const loose = isLoose(node);
      const tasks = node.children.some((item) => typeof item.checked === "boolean");
      const items = node.children.map((item, index) => {
        if (typeof item.checked !== "boolean") return <li key={index}>{item.children.map((child, at) => render(child, context, at, !loose))}</li>;
        // The checkbox goes in the item's first paragraph, so a loose item does not show it on a line of its own.
        const box = <input key="box" type="checkbox" checked={item.checked} disabled readOnly />;
        const [first, ...rest] = item.children;
        const lead = first?.type === "paragraph" ? (loose ? <p key={0}>{box} {children(first, context)}</p> : [box, " ", ...children(first, context)]) : [box, " ", first && render(first, context, 0, !loose)];
        return (
          <li key={index} className="task-list-item">
            {lead}
            {rest.map((child, at) => render(child, context, at + 1, !loose))}
          </li>
        );
      });
      const className = tasks ? "contains-task-list" : undefined;
      return node.ordered ? (
        <ol key={key} start={node.start != null && node.start !== 1 ? node.start : undefined} className={className}>
          {items}
        </ol>
      ) : (
        <ul key={key} className={className}>
          {items}
        </ul>
      );
    }
    case "table": {
      const [head, ...body] = node.children;
      // Each row has the header's number of cells, as GitHub shows it: missing ones empty, extra ones dropped.
      const columns = head?.children.length ?? 0;
      const row = (cells: typeof node.children[number], Cell: "th" | "td", index: number) => (
        <tr key={index}>
          {Array.from({ length: columns }, (_, column) => {
            const align = node.align?.[column];
            const cell = cells.children[column];
            return (
              <Cell key={column} style={align ? { textAlign: align } : undefined}>
                {cell && children(cell, context)}
              </Cell>
            );
          })}
        </tr>
      );
      return (
        <table key={key}>
          {head && <thead>{row(head, "th", 0)}</thead>}
          {body.length > 0 && <tbody>{body.map((each, index) => row(each, "td", index))}</tbody>}
        </table>
      );
    }
    case "link":
      return (
        <Link key={key} url={node.url}>
          {children(node, context)}
        </Link>
      );
    case "linkReference": {
      const definition = context.definitions.get(node.identifier);
      return definition ? (
        <Link key={key} url={definition.url}>
          {children(node, context)}
        </Link>
      ) : (
        children(node, context)
      );
    }
    // Images are links, not <img>: an image a model writes would be fetched as soon as it shows, and
    // its URL can carry what the conversation holds to any server (prompt injection exfiltration).
    case "image":
      return (
        <Link key={key} url={node.url}>
          {node.alt || node.url}
        </Link>
      );
    case "imageReference": {
      const url = context.definitions.get(node.identifier)?.url ?? "";
      return (
        <Link key={key} url={url}>
          {node.alt || url}
        </Link>
      );
    }
    // Footnotes: a superscript number, the notes listed at the end. No in-page links: every message
    // would need ids of its own.
    case "footnoteReference": {
      let number = context.cited.indexOf(node.identifier) + 1;
      if (number === 0) number = context.cited.push(node.identifier);
      return <sup key={key}>{number}</sup>;
    }
    case "root":
      return children(node, context);
    // Definitions show where they are used; anything else (yaml, mdx) is not produced by this parser.
    default:
      return null;
  }
}

export function renderMarkdown(tree: Root): ReactNode {
  const context: Context = { definitions: new Map(), footnotes: new Map(), cited: [] };
  collect(tree, context);
  const body = render(tree, context, 0);
  // Notes cite further notes while they are rendered, so the list may grow in the loop.
  const notes: ReactNode[] = [];
  for (let index = 0; index < context.cited.length; index++) {
    // The parser only makes a reference of a defined label; a missing note is skipped, not a crash.
    const note = context.footnotes.get(context.cited[index]!);
    if (note) notes.push(<li key={index}>{children(note, context)}</li>);
  }
  return (
    <>
      {body}
      {notes.length > 0 && (
        <section className="footnotes">
          <ol>{notes}</ol>
        </section>
      )}
    </>
  );
}

export default function MarkdownRenderer({ text }: { text: string }) {
  // The chat re-renders on every streamed delta: parse once per text, not on unrelated renders.
  const content = useMemo(() => renderMarkdown(parseMarkdown(text)), [text]);
  return <div className="ic-markdown">{content}</div>;
}
