// The worker realm's lock-down (layer 3 of the model described in worker.mjs), in its own module so a
// test can apply it to an interpreter and then attack it with unrestricted Python.
import Module from "node:module";

// Python's heap is WebAssembly memory, outside V8's heap limits: cap its growth. Emscripten's
// growMemory catches the RangeError and malloc fails, so Python raises MemoryError.
export function capMemory(memoryMb) {
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
}

/** Run once the interpreter has loaded and the prelude has imported what scripts may use. */
export function lockDown(pyodide) {
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
