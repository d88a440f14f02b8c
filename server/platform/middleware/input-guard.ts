// Refuses, once for every operation, input no column can hold: NUL characters and lone UTF-16
// surrogates in the path, the query string or anywhere in a JSON body (keys too), and JSON nested
// deeper than any shape of the API. zod accepts them (a string is a string), and PostgreSQL would then
// refuse them as a 500; here they are a 422 naming where they were.
import type { MiddlewareHandler } from "hono";
import type { PlatformEnv } from "../context";
import { PlatformError } from "../errors";

/** Deeper than any request shape (output_schema and metadata included) needs. */
export const MAX_JSON_DEPTH = 32;

function problemOf(text: string): string | null {
  if (text.includes("\u0000")) return "must not contain NUL characters";
  if (!text.isWellFormed()) return "must be valid Unicode text (it has a lone surrogate)";
  return null;
}

const refuse = (field: string, message: string) =>
  new PlatformError({ type: "validation_error", message: `${field}: ${message}`, details: { fields: [{ field, message }] } });

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // Not valid percent-encoding: the route sees it as written, which is storable text.
  }
}

/** Walks a parsed body without recursion (a hostile depth must not overflow the stack). */
function checkJson(body: unknown): void {
  const pending: { value: unknown; path: string; depth: number }[] = [{ value: body, path: "", depth: 0 }];
  while (pending.length > 0) {
    const { value, path, depth } = pending.pop()!;
    const field = path || "body";
    if (typeof value === "string") {
      const problem = problemOf(value);
      if (problem) throw refuse(field, problem);
      continue;
    }
    if (value === null || typeof value !== "object") continue;
    if (depth >= MAX_JSON_DEPTH) throw refuse(field, `is nested too deeply (more than ${MAX_JSON_DEPTH} levels)`);
    for (const [key, child] of Object.entries(value)) {
      const problem = problemOf(key);
      if (problem) throw refuse(path ? `${path}.<key>` : "body.<key>", problem);
      pending.push({ value: child, path: path ? `${path}.${key}` : key, depth: depth + 1 });
    }
  }
}

export const inputGuard: MiddlewareHandler<PlatformEnv> = async (c, next) => {
  const url = new URL(c.req.url);
  for (const segment of url.pathname.split("/")) {
    const problem = problemOf(decoded(segment));
    if (problem) throw refuse("path", problem);
  }
  for (const [name, value] of url.searchParams) {
    const problem = problemOf(name) ?? problemOf(value);
    if (problem) throw refuse(name, problem);
  }
  if (c.req.header("content-type")?.toLowerCase().startsWith("application/json")) {
    let body: unknown;
    try {
      // Cached by Hono: the route's validator reads the same parse.
      body = await c.req.json();
    } catch {
      body = undefined; // Malformed JSON: the route's validator answers it.
    }
    checkJson(body);
  }
  await next();
};
