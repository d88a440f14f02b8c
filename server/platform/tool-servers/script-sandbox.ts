// Script tools: Python run in Pyodide inside worker threads, with CPU/wall and memory limits, no
// filesystem and no network but the injected `http` (through the outbound guard, limited to the
// allowed origins). INTERFACE STUB: the sandbox helper builds it.
import type { OutboundOptions } from "../outbound/guarded-fetch";
import type { ToolCallOutcome } from "./types";

export interface ScriptSandboxOptions {
  /** Warm interpreters kept ready. */
  poolSize?: number;
  /** Wall-clock budget of one call. */
  timeoutMs?: number;
  /** Heap cap of one interpreter's thread. */
  memoryMb?: number;
  /** Cap of a result's JSON. */
  maxResultBytes?: number;
  outbound: OutboundOptions;
}

export interface ScriptCall {
  source: string;
  tool: string;
  args: Record<string, unknown>;
  /** Origins `http` may reach: the server's url origin and its script_allowlist. */
  allowedOrigins: string[];
}

export interface ScriptSandbox {
  /** Whether the script defines one function per tool name taking keyword arguments; error says what is wrong. */
  check(source: string, toolNames: string[]): Promise<{ ok: true } | { ok: false; error: string }>;
  call(input: ScriptCall): Promise<ToolCallOutcome>;
  close(): Promise<void>;
}

export function createScriptSandbox(_options: ScriptSandboxOptions): ScriptSandbox {
  const notBuilt = "script tools are not built yet";
  return {
    check: async () => ({ ok: false, error: notBuilt }),
    call: async () => ({ ok: false, error: notBuilt }),
    close: async () => {},
  };
}
