// Structured logs on stderr (stdout is kept for what a command is asked to print, such as the
// standalone platform's "listening on" line). Never log secrets: keys, passwords, tokens.
// JSON lines in production, each with the request, account, run and trace ids of the work it belongs
// to (lib/log-context.ts); one readable line per entry in development (LOG_FORMAT overrides).
import pino from "pino";
import { env } from "@/lib/env";
import { currentLogContext, type LogContext } from "@/lib/log-context";

const LEVELS: Record<number, string> = { 10: "TRACE", 20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL" };
const SKIP = new Set(["level", "time", "pid", "hostname", "msg", "err"]);

/** One JSON line as `12:01:02.345 WARN  message  key=value …`, an error's stack below it. */
export function prettyLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = new Date(typeof entry.time === "number" ? entry.time : Date.now()).toISOString().slice(11, 23);
  const level = (LEVELS[entry.level as number] ?? String(entry.level)).padEnd(5);
  const fields = Object.entries(entry)
    .filter(([key]) => !SKIP.has(key))
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`);
  const err = entry.err as { stack?: string; message?: string } | undefined;
  const stack = err ? `\n    ${(err.stack ?? err.message ?? JSON.stringify(err)).split("\n").join("\n    ")}` : "";
  return `${time} ${level} ${String(entry.msg ?? "")}${fields.length > 0 ? `  ${fields.join(" ")}` : ""}${stack}\n`;
}

/**
 * The context's fields for one line, as a copy: pino merges the line's own fields into the object a
 * mixin returns, and the context itself would then carry one line's `err` into every later line.
 */
export const logLineFields = (): LogContext => ({ ...currentLogContext() });

const format = env.LOG_FORMAT ?? (env.NODE_ENV === "development" ? "pretty" : "json");
const destination = pino.destination({ fd: 2, sync: false });

export const logger = pino(
  {
    level: env.NODE_ENV === "test" ? "silent" : env.LOG_LEVEL,
    redact: {
      paths: ["*.password", "*.apiKey", "*.api_key", "*.token", "*.secret", "*.authorization", "*.Authorization"],
      censor: "[redacted]",
    },
    mixin: logLineFields,
  },
  format === "pretty" ? { write: (line: string) => destination.write(prettyLine(line)) } : destination,
);

/** Writes what is buffered (a process about to exit would lose it). */
export function flushLogs(): void {
  try {
    destination.flushSync();
  } catch {
    // Not open yet (nothing written): nothing to flush.
  }
}
