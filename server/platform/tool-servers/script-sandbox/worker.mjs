// One Pyodide interpreter in a worker thread, running script tools one call at a time for the pool in index.ts.
// Plain JavaScript so Node loads it as it is under tsx, vitest and the Next.js server alike.
//
// Security model. A script is hostile. Three layers, the outer ones holding if an inner one fails:
// 1. prelude.py (Python): an AST policy, restricted builtins and an import allow-list keep the script
//    away from the interpreter's internals, the FFI to JavaScript and other calls' state.
// 2. The WebAssembly sandbox: Python sees only Emscripten's in-memory file system (no host directory is
//    mounted and mounting is disabled) and its heap is capped by refusing Memory.grow past the limit.
// 3. This worker's JavaScript realm, locked down (lockdown.mjs) once the interpreter has loaded and
//    before any script runs, assuming a script may somehow run JavaScript here: `js` is an empty object
//    rather than globalThis; eval and the Function constructors are disabled (Emscripten's
//    emscripten_run_script evals); require() of any module but crypto/path/url is refused (Emscripten's
//    system() spawns a shell through child_process); fetch, WebSocket and friends, process, Emscripten's
//    socket layer and Pyodide's loaders and mounters (loadPackage can fetch, mountNodeFS mounts the
//    host) are removed. The worker gets an empty environment (no secrets) and a capped JavaScript heap.
//    Its one way out is the http bridge below, answered by the main thread (index.ts), which checks the
//    origin and applies the outbound guard itself, trusting nothing in the message.
import { readFileSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { loadPyodide } from "pyodide";
import { capMemory, lockDown } from "./lockdown.mjs";

const { memoryMb, exchange, interrupt } = workerData;
// exchange: [0] 0 while a request is pending, 1 once answered; [1] answer length; answer bytes from 8.
const signal = new Int32Array(exchange, 0, 2);
const answerBytes = new Uint8Array(exchange, 8);
const post = parentPort.postMessage.bind(parentPort);
const atomicsWait = Atomics.wait;
const atomicsStore = Atomics.store;
const decoder = new TextDecoder();

capMemory(memoryMb);

const pyodide = await loadPyodide({
  jsglobals: Object.create(null),
  env: { HOME: "/home/script" },
  stdout: () => {},
  stderr: () => {},
});
// The pool's timeout raises KeyboardInterrupt in the running script (index.ts): the interpreter stays
// warm for the next call instead of being reloaded.
pyodide.setInterruptBuffer(new Uint8Array(interrupt));
const prelude = pyodide.globals.get("dict")();
pyodide.runPython(readFileSync(new URL("./prelude.py", import.meta.url), "utf8"), { globals: prelude, filename: "prelude.py" });
const runCheck = prelude.get("check");
const runCall = prelude.get("call");

let currentId = null;
prelude.get("_install_bridge")((requestJson) => {
  atomicsStore(signal, 0, 0);
  post({ type: "http", id: currentId, request: String(requestJson) });
  atomicsWait(signal, 0, 0);
  return decoder.decode(answerBytes.slice(0, signal[1]));
});

lockDown(pyodide);

parentPort.on("message", (message) => {
  currentId = message.id;
  let answer;
  try {
    const text =
      message.op === "check"
        ? runCheck(message.source, JSON.stringify(message.toolNames))
        : runCall(message.source, message.tool, JSON.stringify(message.args ?? {}), message.maxResultBytes);
    answer = JSON.parse(text);
  } catch (error) {
    // Python answers every script error itself. A KeyboardInterrupt gets here when the pool's re-sent
    // interrupt lands in the prelude's own code after the script's: the interpreter is sound. Anything
    // else means it broke (a fatal error such as the JavaScript stack overflowing): answer, then let
    // the pool replace this worker.
    answer =
      error?.type === "KeyboardInterrupt"
        ? { ok: false, error: "KeyboardInterrupt" }
        : { ok: false, error: "RuntimeError: the script crashed its interpreter", recycle: true };
  }
  // An interrupt Python took in but had not raised when the call returned would hit the next call.
  try {
    pyodide.checkInterrupt();
  } catch {
    // It was this call's, now spent.
  }
  currentId = null;
  post({ type: "result", id: message.id, outcome: answer });
});
post({ type: "ready" });
