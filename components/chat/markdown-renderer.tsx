"use client";
// Streamed markdown: GitHub-flavoured (tables, task lists, autolinks), links opening in a new tab,
// code blocks with their language and a copy button. No raw HTML is rendered (react-markdown's
// default), so a model cannot inject markup. Loaded on demand through ./markdown.tsx.
import { useState, type ReactNode } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";

function textOf(node: ReactNode): string {
  if (typeof node === "string" || typeof node === "number") return String(node);
  if (Array.isArray(node)) return node.map(textOf).join("");
  if (node && typeof node === "object" && "props" in node) return textOf((node.props as { children?: ReactNode }).children);
  return "";
}

function CodeBlock({ children }: { children?: ReactNode }) {
  const [copied, setCopied] = useState(false);
  const child = Array.isArray(children) ? children[0] : children;
  const className = (child && typeof child === "object" && "props" in child ? (child.props as { className?: string }).className : "") ?? "";
  const language = /language-([\w-]+)/.exec(className)?.[1];
  return (
    <div className="ic-code">
      <div className="ic-code-bar">
        <span>{language ?? "code"}</span>
        <button
          type="button"
          className="ic-copy"
          onClick={() => {
            void navigator.clipboard?.writeText(textOf(children)).then(() => {
              setCopied(true);
              setTimeout(() => setCopied(false), 1500);
            });
          }}
        >
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      <pre>{children}</pre>
    </div>
  );
}

const components: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  ),
  pre: ({ children }) => <CodeBlock>{children}</CodeBlock>,
};

export default function MarkdownRenderer({ text }: { text: string }) {
  return (
    <div className="ic-markdown">
      <ReactMarkdown remarkPlugins={[remarkGfm]} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
