// Structured logs on stderr (stdout is kept for what a command is asked to print, such as the
// standalone platform's "listening on" line). Never log secrets: keys, passwords, tokens.
import pino from "pino";
import { env } from "@/lib/env";

export const logger = pino(
  {
    level: env.NODE_ENV === "test" ? "silent" : env.LOG_LEVEL,
    redact: {
      paths: ["*.password", "*.apiKey", "*.api_key", "*.token", "*.secret", "*.authorization", "*.Authorization"],
      censor: "[redacted]",
    },
  },
  pino.destination({ fd: 2, sync: false }),
);
