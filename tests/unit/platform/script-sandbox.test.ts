// Script tools in the Pyodide sandbox (server/platform/tool-servers/script-sandbox): the happy paths,
// the warm pool, and a corpus of hostile scripts, each contained, answered as a tool error, and followed
// by a call the sandbox still answers. One sandbox serves the whole file: an interpreter takes seconds
// to start.
import { existsSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createScriptSandbox, type PooledScriptSandbox } from "@/server/platform/tool-servers/script-sandbox";

interface Hit {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const hits: Hit[] = [];
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    hits.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
    res.writeHead(200, { "content-type": "application/json", "x-fake": "yes" });
    res.end(JSON.stringify({ method: req.method, path: req.url, auth: req.headers.authorization ?? null, body: body ? JSON.parse(body) : null }));
  });
});

let origin = "";
let sandbox: PooledScriptSandbox;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  sandbox = createScriptSandbox({
    poolSize: 2,
    timeoutMs: 3_000,
    memoryMb: 96,
    maxResultBytes: 10_000,
    maxQueue: 2,
    // Room for an interrupted script to stop on a loaded machine: "kept warm" must not hang on the CPU.
    interruptGraceMs: 12_000,
    outbound: { allowLoopback: true, allowHttp: true, timeoutMs: 2_000 },
  });
});

afterAll(async () => {
  await sandbox?.close();
  await new Promise((resolve) => server.close(resolve));
});

const call = (source: string, args: Record<string, unknown> = {}, allowedOrigins = [origin]) =>
  sandbox.call({ source, tool: "tool", args, allowedOrigins });

const answersNextCall = async () => expect(await call("def tool(x):\n    return x * 2", { x: 21 })).toEqual({ ok: true, result: 42 });

describe("script sandbox: calls", { timeout: 90_000 }, () => {
  it("calls the tool with keyword arguments and returns its JSON result", async () => {
    const source = "def tool(city, days=3, *, units='metric'):\n    return {'city': city, 'days': days, 'units': units, 'text': json.dumps([1, 2])}";
    expect(await call(source, { city: "Oslo", units: "imperial" })).toEqual({
      ok: true,
      result: { city: "Oslo", days: 3, units: "imperial", text: "[1, 2]" },
    });
  });

  it("serves a warm call without starting an interpreter", async () => {
    await answersNextCall();
    const before = sandbox.stats().interpreterStarts;
    expect(before).toBeGreaterThan(0);
    await answersNextCall();
    await answersNextCall();
    expect(sandbox.stats().interpreterStarts).toBe(before);
  });

  it("gives each call a fresh namespace", async () => {
    const source = "seen = []\ndef tool():\n    seen.append(1)\n    return len(seen)";
    expect(await call(source)).toEqual({ ok: true, result: 1 });
    expect(await call(source)).toEqual({ ok: true, result: 1 });
  });

  it("lets a script change its own objects but not modules or classes it did not define", async () => {
    const own = "class Box:\n    pass\ndef tool():\n    b = Box()\n    b.value = 7\n    Box.kind = 'box'\n    return [b.value, b.kind]";
    expect(await call(own)).toEqual({ ok: true, result: [7, "box"] });
    for (const source of ["import math\ndef tool():\n    math.pi = 3", "def tool():\n    json.dumps = None", "import collections\ndef tool():\n    collections.Counter.most_common = None"]) {
      const outcome = await call(source);
      expect(outcome).toMatchObject({ ok: false });
      expect(outcome.ok === false && outcome.error).toMatch(/^AttributeError: cannot change attributes/);
    }
    expect(await call("import math\ndef tool():\n    return math.pi > 3.14")).toEqual({ ok: true, result: true });
  });

  it("reaches an allowed origin through http.get and http.post", async () => {
    const source = [
      "def tool(q):",
      "    got = http.get(ORIGIN + '/items', headers={'Authorization': 'Bearer t0k'}, params={'q': q})",
      "    sent = http.post(ORIGIN + '/echo', json={'n': 1})",
      "    return {'status': got.status, 'got': got.json(), 'sent': sent.json()['body'], 'header': got.headers['x-fake']}",
    ].join("\n").replaceAll("ORIGIN", JSON.stringify(origin));
    expect(await call(source, { q: "a b" })).toEqual({
      ok: true,
      result: { status: 200, got: { method: "GET", path: "/items?q=a+b", auth: "Bearer t0k", body: null }, sent: { n: 1 }, header: "yes" },
    });
    expect(hits.at(-1)).toMatchObject({ method: "POST", path: "/echo", body: '{"n": 1}' });
  });

  it("answers a script's exception as '<type>: message' with the script's line and none of our paths", async () => {
    const outcome = await call("def tool():\n    raise ValueError('no such city')");
    expect(outcome).toEqual({ ok: false, error: "ValueError: no such city (line 2)" });
    const missing = await call("def tool():\n    return undefined_name");
    expect(missing.ok === false && missing.error).toBe("NameError: name 'undefined_name' is not defined (line 2)");
  });

  it("formats strings with plain fields, positional, named and with specs", async () => {
    const source = "def tool(name, n):\n    t = '{} has {n:>4} items'\n    return ['{0}-{1:.2f} {0!r}'.format(name, n), t.format(name, n=n), str.format('{x}', x=name)]";
    expect(await call(source, { name: "ada", n: 3 })).toEqual({ ok: true, result: ["ada-3.00 'ada'", "ada has    3 items", "ada"] });
  });

  it("refuses a result that is not JSON", async () => {
    const outcome = await call("def tool():\n    return {1, 2}");
    expect(outcome.ok === false && outcome.error).toMatch(/^TypeError: the result is not JSON-serialisable/);
  });

  it("runs one account's calls beyond its share from its queue and refuses them past its cap", async () => {
    await vi.waitFor(() => expect(sandbox.stats().idle).toBe(2), { timeout: 60_000, interval: 100 });
    const slow = "import time\ndef tool(n):\n    time.sleep(0.3)\n    return n";
    const outcomes = await Promise.all([1, 2, 3, 4, 5].map((n) => call(slow, { n })));
    // One account's own calls (these name no scope): one runs at once (the other interpreter stays for
    // other accounts), one waits (half of a quarter of the queue's cap of 2, at least 1), the rest are refused.
    expect(outcomes.slice(0, 2)).toEqual([1, 2].map((n) => ({ ok: true, result: n })));
    for (const refused of outcomes.slice(2)) {
      expect(refused).toEqual({ ok: false, error: "RuntimeError: the script sandbox is busy with this account's own calls (1 running, 1 waiting); try again shortly" });
    }
  });
});

describe("script sandbox: check", { timeout: 90_000 }, () => {
  it("accepts a script defining every tool with keyword arguments", async () => {
    const source = "def forecast(city, days=1):\n    return city\n\ndef alerts(**filters):\n    return filters\n\ndef _helper():\n    pass";
    expect(await sandbox.check(source, ["forecast", "alerts"])).toEqual({ ok: true });
  });

  it("names each tool that is missing, not a function, or positional-only", async () => {
    const source = "limit = 3\ndef lookup(key, /):\n    return key";
    const outcome = await sandbox.check(source, ["lookup", "limit", "absent"]);
    expect(outcome.ok).toBe(false);
    const error = outcome.ok ? "" : outcome.error;
    expect(error).toContain("'lookup' has a positional-only parameter 'key'");
    expect(error).toContain("'limit' is not a function");
    expect(error).toContain("the script defines no function named 'absent'");
  });

  it("reports a syntax error with its line", async () => {
    expect(await sandbox.check("def ok():\n    pass\ndef broken(:\n    pass", ["ok"])).toEqual({ ok: false, error: "SyntaxError: invalid syntax (line 3)" });
  });

  it("is bounded by the wall-clock limit when the script's top level never ends", async () => {
    expect(await sandbox.check("while True:\n    pass", ["tool"])).toEqual({ ok: false, error: "TimeoutError: the script ran longer than 3000 ms" });
    await answersNextCall();
  });
});

describe("script sandbox: hostile scripts", { timeout: 120_000 }, () => {
  it("stops an endless loop at the wall-clock limit by interrupting it, the interpreter kept warm", async () => {
    await answersNextCall();
    const { interpreterStarts, retired } = sandbox.stats();
    expect(await call("def tool():\n    while True:\n        pass")).toEqual({ ok: false, error: "TimeoutError: the script ran longer than 3000 ms" });
    // The cause first: it names what replaced an interpreter when this fails.
    expect(sandbox.stats().retired).toEqual(retired);
    expect(sandbox.stats().interpreterStarts).toBe(interpreterStarts);
    await answersNextCall();
  });

  it("interrupts again a script that catches the first interrupt, the interpreter kept warm", async () => {
    const { interpreterStarts, retired } = sandbox.stats();
    const catchesOnce = "def tool():\n    try:\n        while True:\n            pass\n    except KeyboardInterrupt:\n        pass\n    while True:\n        pass";
    expect(await call(catchesOnce)).toEqual({ ok: false, error: "TimeoutError: the script ran longer than 3000 ms" });
    expect(sandbox.stats().retired).toEqual(retired);
    expect(sandbox.stats().interpreterStarts).toBe(interpreterStarts);
    await answersNextCall();
  });

  it("replaces the interpreter of a script that swallows the interrupt", async () => {
    const { interpreterStarts, retired } = sandbox.stats();
    const stubborn = "def tool():\n    while True:\n        try:\n            while True:\n                pass\n        except BaseException:\n            pass";
    expect(await call(stubborn)).toEqual({ ok: false, error: "TimeoutError: the script ran longer than 3000 ms" });
    expect(sandbox.stats().retired).toEqual({ ...retired, "ignored-interrupt": (retired["ignored-interrupt"] ?? 0) + 1 });
    expect(sandbox.stats().interpreterStarts).toBe(interpreterStarts + 1);
    await answersNextCall();
  });

  it("contains a memory bomb", async () => {
    for (const source of ["def tool():\n    hoard = []\n    while True:\n        hoard.append('x' * 10**6)", "def tool():\n    return len('x' * 10**9)"]) {
      expect(await call(source)).toEqual({ ok: false, error: "MemoryError: the script exceeded its memory limit" });
      await answersNextCall();
    }
  });

  it("refuses imports of os, subprocess, socket, ctypes and the bridges to JavaScript", async () => {
    for (const name of ["os", "subprocess", "socket", "ctypes", "js", "pyodide", "pyodide_js", "_pyodide", "sys", "importlib", "builtins"]) {
      expect(await call(`import ${name}\ndef tool():\n    return 1`)).toEqual({ ok: false, error: `ImportError: import of '${name}' is not allowed in script tools (line 1)` });
    }
    expect(await call("from os import path\ndef tool():\n    return 1")).toMatchObject({ ok: false, error: "ImportError: import of 'os' is not allowed in script tools (line 1)" });
    await answersNextCall();
  });

  it("has no filesystem to read", async () => {
    expect(await call("def tool():\n    return open('/etc/passwd').read()")).toEqual({ ok: false, error: "NameError: name 'open' is not defined (line 2)" });
    const viaBuiltins = await call("def tool():\n    return __builtins__['open']('/etc/passwd').read()");
    expect(viaBuiltins).toEqual({ ok: false, error: "ScriptPolicyError: the name __builtins__ is not allowed (line 2)" });
    await answersNextCall();
  });

  it("refuses the introspection routes out of the namespace", async () => {
    const escapes: Array<[string, RegExp]> = [
      ["def tool():\n    return ().__class__.__base__.__subclasses__()", /^ScriptPolicyError: the attribute \.__subclasses__ is not allowed \(line 2\)$/],
      ["def tool():\n    return getattr((), '__class__')", /^AttributeError: the attribute __class__ is not allowed/],
      ["def tool():\n    return tool.__globals__", /^ScriptPolicyError: the attribute \.__globals__/],
      ["def tool():\n    g = (x for x in [1])\n    return g.gi_frame.f_back", /^ScriptPolicyError: the attribute \.f_back/],
      ["def tool():\n    match ():\n        case object(__class__=c):\n            return 1", /^ScriptPolicyError: the attribute __class__/],
      ["def tool():\n    return eval('1')", /^NameError: name 'eval' is not defined/],
      ["import operator\ndef tool():\n    return operator.attrgetter('__class__')(1)", /^AttributeError/],
      ["def tool():\n    return http._bridge", /^ScriptPolicyError: the attribute \._bridge/],
      // str.format evaluates attribute and item access in its fields itself, past the AST policy.
      ["def tool():\n    return '{0.__globals__}'.format(tool)", /^ScriptPolicyError: format fields may not read attributes or items: \{0\.__globals__\}/],
      ["def tool():\n    return '{0.__class__.__mro__[1].__subclasses__}'.format(())", /^ScriptPolicyError: format fields may not read attributes or items/],
      ["def tool():\n    return '{0[x]}'.format({'x': 1})", /^ScriptPolicyError: format fields may not read attributes or items: \{0\[x\]\}/],
      ["def tool():\n    return str.format('{0.__class__}', 1)", /^ScriptPolicyError: format fields may not read attributes or items/],
      ["def tool():\n    t = '{0.__cl' + 'ass__}'\n    return t.format(1)", /^ScriptPolicyError: format fields may not read attributes or items/],
      ["def tool():\n    return '{0:{1.__class__}}'.format(1, 2)", /^ScriptPolicyError: format fields may not read attributes or items/],
      ["def tool():\n    return '{a.real}'.format_map({'a': 1})", /^ScriptPolicyError: the attribute \.format_map/],
      ["def tool():\n    f = '{0.__class__}'.format\n    return f(1)", /^ScriptPolicyError: the attribute \.format may only be called/],
      ["def tool():\n    return list(map(str.format, ['{0.__class__}'], [1]))", /^ScriptPolicyError: the attribute \.format may only be called/],
      ["def tool():\n    return getattr('{0.__class__}', 'format')(1)", /^AttributeError: the attribute format is not allowed/],
    ];
    for (const [source, error] of escapes) {
      const outcome = await call(source);
      expect(outcome.ok).toBe(false);
      expect(outcome.ok === false && outcome.error).toMatch(error);
    }
    await answersNextCall();
  });

  // Found by a helper's review (#35): library decorators write attributes onto what they are given.
  it("keeps library decorators from rewriting classes and functions the script did not define", async () => {
    const refusals: Array<[string, string]> = [
      // updated=['__globals__'] would pour our globals into the script's namespace.
      ["import functools\ndef tool():\n    functools.wraps(getattr, assigned=[], updated=['__globals__'])(tool)\n    return 1", "ValueError: functools.wraps takes only its default attribute names in script tools (line 3)"],
      // Renaming a class every later call (another account's script) uses, and making it writable.
      ["import functools\ndef tool():\n    functools.wraps(tool)(type(http))\n    return 1", "TypeError: functools.wraps only applies to functions and classes the script defines (line 3)"],
      ["import functools\ndef tool():\n    functools.wraps(tool)(getattr)\n    return 1", "TypeError: functools.wraps only applies to functions and classes the script defines (line 3)"],
      ["import dataclasses\ndef tool():\n    dataclasses.dataclass(frozen=True)(type(http))\n    return 1", "TypeError: dataclasses.dataclass only applies to functions and classes the script defines (line 3)"],
      ["import functools\ndef tool():\n    functools.total_ordering(type(http))\n    return 1", "TypeError: functools.total_ordering only applies to functions and classes the script defines (line 3)"],
      ["from enum import global_enum\ndef tool():\n    return 1", "ImportError: cannot import name 'global_enum' from 'enum' (unknown location) (line 1)"],
    ];
    for (const [source, error] of refusals) expect(await call(source), source).toEqual({ ok: false, error });
    expect(await call("def tool():\n    return repr(http)")).toEqual({ ok: true, result: "<http>" });
    const own = [
      "import functools, dataclasses",
      "@dataclasses.dataclass(frozen=True)",
      "class P:",
      "    x: int",
      "@functools.total_ordering",
      "class Q:",
      "    def __init__(self, v):",
      "        self.v = v",
      "    def __eq__(self, o):",
      "        return self.v == o.v",
      "    def __lt__(self, o):",
      "        return self.v < o.v",
      "def deco(f):",
      "    @functools.wraps(f)",
      "    def inner(*a, **k):",
      "        return f(*a, **k)",
      "    return inner",
      "@deco",
      "def add(a, b):",
      "    return a + b",
      "def tool():",
      "    return [P(1).x, Q(1) <= Q(2), add(1, 2)]",
    ].join("\n");
    expect(await call(own)).toEqual({ ok: true, result: [1, true, 3] });
  });

  it("refuses a private address and a loopback origin not on the allow-list, sending nothing", async () => {
    const before = hits.length;
    const privateAddress = await call("def tool():\n    return http.get('http://10.0.0.1/latest').status", {}, ["http://10.0.0.1"]);
    expect(privateAddress.ok === false && privateAddress.error).toMatch(/^PermissionError: 10\.0\.0\.1 is .*private/);
    const otherPort = `http://127.0.0.1:${Number(new URL(origin).port) === 65535 ? 65534 : Number(new URL(origin).port) + 1}`;
    const notAllowed = await call(`def tool():\n    return http.get(${JSON.stringify(`${otherPort}/x`)}).status`);
    expect(notAllowed).toEqual({ ok: false, error: `PermissionError: ${otherPort} is not among the origins this script may call (line 2)` });
    const noOrigins = await call(`def tool():\n    return http.get(${JSON.stringify(`${origin}/x`)}).status`, {}, []);
    expect(noOrigins.ok === false && noOrigins.error).toMatch(/^PermissionError: .* is not among the origins/);
    expect(hits.length).toBe(before);
    await answersNextCall();
  });

  it("refuses a huge result", async () => {
    expect(await call("def tool():\n    return 'x' * 50000")).toEqual({ ok: false, error: "ResultTooLarge: the result is 50002 bytes; the limit is 10000" });
    await answersNextCall();
  });

  it("stops a recursion bomb", async () => {
    const outcome = await call("def tool(n=0):\n    return tool(n + 1)");
    expect(outcome.ok === false && outcome.error).toMatch(/^RecursionError: maximum recursion depth exceeded/);
    await answersNextCall();
  });

  it("keeps our paths and frames out of every error", async () => {
    const outcomes = await Promise.all([call("def tool(:"), call("import os"), call("def tool():\n    1/0")]);
    for (const outcome of outcomes) {
      expect(outcome.ok).toBe(false);
      expect(outcome.ok === false && outcome.error).not.toMatch(/prelude|worker|\.mjs|\.py|node_modules|Traceback/);
    }
  });
});

describe("script sandbox: the worker realm, attacked with unrestricted Python", { timeout: 120_000 }, () => {
  it("has no host files, no JavaScript globals, no code from strings and no processes", async () => {
    const marker = path.join(tmpdir(), `script-sandbox-${process.pid}-${Date.now()}`);
    const attempt = (body: string) => `try:\n    result = ${body}\nexcept BaseException as e:\n    result = type(e).__name__ + ': ' + str(e)\nresult`;
    const attacks: Array<[string, string]> = [
      ["read a host file", attempt("open('/etc/passwd').read()")],
      ["list the root", attempt("str(sorted(__import__('os').listdir('/')))")],
      ["js globals", attempt("str([hasattr(__import__('js'), n) for n in ('process', 'fetch', 'require', 'globalThis', 'eval', 'Function')])")],
      ["pyodide's JS API", attempt("str(__import__('pyodide_js'))")],
      ["Function constructor", attempt("str(__import__('pyodide.ffi').ffi.to_js([]).constructor.constructor('return process')())")],
      ["run_js", attempt("str(__import__('pyodide.code').code.run_js('1 + 1'))")],
      // Last: Emscripten's system() failing is fatal to the interpreter.
      ["shell", attempt(`str(__import__('os').system('touch ${marker}'))`)],
    ];
    const worker = new Worker(path.resolve("tests/unit/platform/fixtures/locked-down-interpreter.mjs"), {
      workerData: { attacks },
      env: {},
      execArgv: [],
      stdout: true,
      stderr: true,
    });
    worker.stdout.resume();
    worker.stderr.resume();
    const results = await new Promise<Record<string, string>>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    await worker.terminate();
    expect(results).toEqual({
      "read a host file": "FileNotFoundError: [Errno 44] No such file or directory: '/etc/passwd'",
      "list the root": "['dev', 'home', 'lib', 'proc', 'tmp']",
      "js globals": "[False, False, False, False, False, False]",
      "pyodide's JS API": "ModuleNotFoundError: No module named 'pyodide_js'",
      "Function constructor": expect.stringMatching(/the Function constructor is disabled in the script sandbox/),
      run_js: "ImportError: cannot import name 'eval' from 'js' (unknown location)",
      shell: expect.stringMatching(/loading node:child_process is disabled in the script sandbox/),
    });
    expect(existsSync(marker)).toBe(false);
  });
});
