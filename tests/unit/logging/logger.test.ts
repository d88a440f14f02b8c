// The development log format (lib/logger.ts prettyLine) and the context every line carries
// (lib/log-context.ts), copied into each line.
import pino from "pino";
import { describe, expect, it } from "vitest";
import { addLogContext, currentLogContext, withLogContext } from "@/lib/log-context";
import { logLineFields, prettyLine } from "@/lib/logger";

describe("prettyLine", () => {
  it("prints time, level, message and the fields, an error's stack indented below", () => {
    const line = JSON.stringify({ level: 40, time: Date.UTC(2026, 10, 28, 12, 1, 2, 345), pid: 1, hostname: "h", msg: "run failed", runId: 7, requestId: "req_1", err: { message: "boom", stack: "Error: boom\n  at x" } });
    expect(prettyLine(line)).toBe("12:01:02.345 WARN  run failed  runId=7 requestId=req_1\n    Error: boom\n      at x\n");
  });

  it("passes a line that is not JSON through", () => {
    expect(prettyLine("plain\n")).toBe("plain\n");
  });
});

describe("log context", () => {
  it("is the work's own: added to inside, copied for nested work, gone outside", async () => {
    expect(currentLogContext()).toBeUndefined();
    await withLogContext({ requestId: "req_a" }, async () => {
      addLogContext({ accountId: 3 });
      await withLogContext({ runId: 9 }, async () => {
        await Promise.resolve();
        expect(currentLogContext()).toEqual({ requestId: "req_a", accountId: 3, runId: 9 });
      });
      expect(currentLogContext()).toEqual({ requestId: "req_a", accountId: 3 });
    });
    addLogContext({ runId: 1 });
    expect(currentLogContext()).toBeUndefined();
  });
});

describe("log lines", () => {
  it("carry the context's fields, and none of an earlier line's own", async () => {
    const lines: Record<string, unknown>[] = [];
    const log = pino({ mixin: logLineFields }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    await withLogContext({ runId: 4, traceId: "0af7651916cd43dd8448eb211c80319c" }, async () => {
      log.warn({ err: new Error("boom"), attempt: 1 }, "first");
      log.info("second");
      expect(currentLogContext()).toEqual({ runId: 4, traceId: "0af7651916cd43dd8448eb211c80319c" });
    });
    expect(lines[0]).toMatchObject({ msg: "first", runId: 4, attempt: 1, err: expect.objectContaining({ message: "boom" }) });
    expect(lines[1]).toMatchObject({ msg: "second", runId: 4, traceId: "0af7651916cd43dd8448eb211c80319c" });
    expect(lines[1]).not.toHaveProperty("err");
    expect(lines[1]).not.toHaveProperty("attempt");
  });
});
