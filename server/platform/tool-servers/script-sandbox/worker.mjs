// One Pyodide interpreter in a worker thread, running script tools one call at a time for pool.ts.
// Plain JavaScript so Node loads it as it is under tsx, vitest and the Next.js server alike.
//
// Security model. A script is hostile. Three layers, the outer ones holding if an inner one fails:
// 1. prelude.py (Python): an AST policy, restricted builtins and an import allow-list keep the script
//    away from the interpreter's internals, the FFI to JavaScript and other calls' state.
// 2. The WebAssembly sandbox: Python sees only Emscripten's in-memory file system (no host directory is
//    mounted and mounting is disabled below) and its heap is capped by refusing Memory.grow past the limit.
// 3. This worker's JavaScript realm, locked down once the interpreter has loaded and before any script
//    runs, assuming a script may somehow run JavaScript here: `js` is an empty object rather than
//    globalThis; eval and the Function constructors are disabled (Emscripten's emscripten_run_script
//    evals); require() of any module but crypto/path/url is refused (Emscripten's system() spawns a shell
//    through child_process, sockets would use ws); fetch, WebSocket and friends, process and Pyodide's
//    loaders and mounters (loadPackage can fetch, mountNodeFS mounts the host) are removed. The worker
//    gets an empty environment (no secrets), a capped JavaScript heap, and no network: its one way out is
//    the bridge below, answered by the main thread, which checks the origin and applies the outbound
//    guard itself, trusting nothing in the message.
import { readFileSync } from "node:fs";
import Module from "node:module";
import { parentPort, workerData } from "node:worker_threads";
import { loadPyodide } from "pyodide";

const { memoryMb, exchange } = workerData;
// exchange: [0] 0 while a request is pending, 1 once answered; [1] answer length; answer bytes from 8.
const signal = new Int32Array(exchange, 0, 2);
const answerBytes = new Uint8Array(exchange, 8);
const post = parentPort.postMessage.bind(parentPort);
const atomicsWait = Atomics.wait;
const atomicsStore = Atomics.store;
const decoder = new TextDecoder();

// Python's heap is WebAssembly memory, outside V8's heap limits: cap its growth. Emscripten's
// growMemory catches the RangeError and malloc fails, so Python raises MemoryError.
const maxPages = Math.floor((memoryMb * 1024 * 1024) / 65536);
const grow = WebAssembly.Memory.prototype.grow;
Object.defineProperty(WebAssembly.Memory.prototype, "grow", {
  value: function cappedGrow(delta) {
    if (this.buffer.byteLength / 65536 + Number(delta) > maxPages) throw new RangeError("script memory limit reached");
    return grow.call(this, delta);
  },
  writable: false,
  configurable: false,
});

const pyodide = await loadPyodide({
  jsglobals: Object.create(null),
  env: { HOME: "/home/script" },
  stdout: () => {},
  stderr: () => {},
});
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

lockDown();

parentPort.on("message", (message) => {
  currentId = message.id;
  let answer;
  try {
    const text =
      message.op === "check"
        ? runCheck(message.source, JSON.stringify(message.toolNames))
        : runCall(message.source, message.tool, JSON.stringify(message.args ?? {}), message.maxResultBytes);
    answer = JSON.parse(text);
  } catch {
    // Python answers every script error itself; reaching here means the interpreter broke (a fatal
    // error such as the JavaScript stack overflowing): answer, then let the pool replace this worker.
    answer = { ok: false, error: "RuntimeError: the script crashed its interpreter", recycle: true };
  }
  currentId = null;
  post({ type: "result", id: message.id, outcome: answer });
});
post({ type: "ready" });

function lockDown() {
  const refuse = (what) =>
    function disabled() {
      throw new Error(`${what} is disabled in the script sandbox`);
    };
  const pin = (object, name, value) => {
    try {
      Object.defineProperty(object, name, { value, writable: false, configurable: true });
    } catch {
      try {
        delete object[name];
      } catch {
        /* a frozen built-in: nothing to remove */
      }
    }
  };

  // Pyodide's Python side keeps the JS API as a module; scripts are denied it, this removes it anyway.
  pyodide.runPython("import sys\nfor _m in [m for m in sys.modules if m.startswith('pyodide_js')]:\n    del sys.modules[_m]", {
    globals: pyodide.globals.get("dict")(),
  });
  pyodide.unregisterJsModule("pyodide_js");

  for (const name of ["loadPackage", "loadPackagesFromImports", "mountNodeFS", "mountNativeFS", "useNodeSockFS", "registerJsModule", "unregisterJsModule", "registerComlink", "unpackArchive", "makeMemorySnapshot", "setStdin", "setStdout", "setStderr", "setDebug"]) {
    pin(pyodide, name, refuse(name));
  }
  for (const name of ["loadBinaryFile", "loadDynlib", "install", "initializeNodeSockFS", "restoreSnapshot", "makeSnapshot"]) {
    pin(pyodide._api, name, refuse(name));
  }
  const emscripten = pyodide._module;
  for (const name of ["loadDynamicLibrary", "loadWebAssemblyModule", "loadDylibs", "_emscripten_run_script", "_emscripten_run_script_int", "_emscripten_run_script_string", "_emscripten_async_run_script", "_emscripten_async_load_script", "FS_mount"]) {
    pin(emscripten, name, refuse(name));
  }
  for (const name of ["NODEFS", "IDBFS", "WORKERFS", "PROXYFS", "SOCKFS", "Sockets", "websocket"]) pin(emscripten, name, undefined);
  const fs = pyodide.FS;
  pin(fs, "mount", refuse("mounting file systems"));
  for (const name of Object.keys(fs.filesystems)) if (name !== "MEMFS") pin(fs.filesystems, name, undefined);

  // Modules loaded later (Emscripten requires lazily): only harmless ones.
  const load = Module._load;
  const allowed = new Set(["crypto", "node:crypto", "path", "node:path", "url", "node:url"]);
  Module._load = function restrictedLoad(request, ...rest) {
    if (!allowed.has(request)) throw new Error(`loading ${request} is disabled in the script sandbox`);
    return load.call(this, request, ...rest);
  };

  for (const name of ["require", "module", "exports", "fetch", "WebSocket", "EventSource", "XMLHttpRequest", "Request", "Response", "Headers", "FormData", "navigator", "process", "Buffer", "global"]) {
    pin(globalThis, name, undefined);
  }

  // No code from strings: eval, Function and its async/generator siblings.
  pin(globalThis, "eval", refuse("eval"));
  // Each replacement keeps its prototype, so Function.prototype.apply and instanceof still work.
  for (const fn of [function () {}, async function () {}, function* () {}, async function* () {}]) {
    const prototype = Object.getPrototypeOf(fn);
    const tamed = refuse("the Function constructor");
    Object.defineProperty(tamed, "prototype", { value: prototype, writable: false, configurable: false });
    pin(prototype, "constructor", tamed);
    if (prototype === Function.prototype) pin(globalThis, "Function", tamed);
  }
}
