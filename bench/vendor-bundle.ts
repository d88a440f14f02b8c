// vendor-bundle (issue #48, item 4): what a vendor's own Next page adds to its first load with @inlay/react,
// against the same page with no chat (the floor), with Inlay's iframe widget instead, and with two other
// React chat packages on the same page: the JavaScript of a first load, gzipped at level 9, as chat-bundle
// measures it.
//
// The app is the acceptance test's vendor app (tests/vendor-app/generate.mjs): create-next-app's own
// template, the @inlay tarballs packed from this repository (--pack), built with the template's
// `next build` (Turbopack), on Node 22 as the test runs it. Each variant is the overlay
// (tests/vendor-app/overlay) with its app/shop-chat.tsx replaced, so the page around the chat is the same:
//   - floor: no chat (a server component in place of the chat; no client code of the page's own);
//   - @inlay/react: the overlay as it is (InlayProvider, InlayQuota, InlayChat, a tool renderer);
//   - @assistant-ui/react: its README's minimal shape (AssistantRuntimeProvider + useChatRuntime, the AI
//     SDK runtime) with a Thread made of its primitives and a tool UI for the same tool; once with plain
//     text, once with its markdown part (@assistant-ui/react-markdown + remark-gfm, as its Thread renders
//     text). Its styled Thread is copied into an app by its CLI from its own registry (shadcn/ui, Tailwind),
//     which this machine cannot reach: the primitives are what that Thread is made of;
//   - @openai/chatkit-react: useChatKit + <ChatKit>. The wrapper only: ChatKit's UI is a web component the
//     page loads from OpenAI's CDN with a script tag, not part of the build, and not measured here.
// The comparison packages are installed only into a copy of the generated app, under os.tmpdir().
//
// What is measured, per variant: every static/chunks/*.js the page `/` names when served to a signed-in
// shopper by `next start` (its <script src> tags and the client references in its RSC payload, which the
// browser loads before hydrating), less the noModule polyfills modern browsers skip. The prerendered shell
// (.next/server/app/index.html) and the manifests (rootMainFiles, the client reference manifest's
// entryJSFiles) are read too, and any difference from them printed. Chunks those chunks load later
// (dynamic import(), e.g. Inlay's markdown renderer at the first message) are reported on their own.
//
//   npm run bench -- vendor-bundle [--keep]     (--keep leaves the apps in the printed folder)
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { runInNewContext } from "node:vm";
import { gzipSync } from "node:zlib";
import { readWidget, widgetFirstLoad, type Bundler } from "./chat-bundle";

const root = path.resolve(import.meta.dirname, "..");
const KB = 1024;
const kb = (bytes: number) => `${(bytes / KB).toFixed(2)} KB`;
const gzipped = (data: Buffer) => gzipSync(data, { level: 9 }).length;

/** The comparison packages, exact. `ai` is the version @inlay/react depends on, so both pages share it. */
const PEERS = {
  "@assistant-ui/react": "0.15.22",
  "@assistant-ui/ai-sdk": "0.0.7",
  ai: "7.0.173",
  "@assistant-ui/react-markdown": "0.14.16",
  "remark-gfm": "4.0.1",
  "@openai/chatkit-react": "1.6.1",
} as const;
/** Reported beside the pins: what npm resolved for their dependencies' ranges. */
const RESOLVED = ["@assistant-ui/core", "@assistant-ui/store", "@assistant-ui/tap", "assistant-stream", "radix-ui", "react-markdown", "zod", "@openai/chatkit", "@ai-sdk/react"];

// The chat of each variant, as app/shop-chat.tsx. page.tsx renders <ShopChat inlayUrl agent /> for a
// signed-in shopper in every variant.
const FLOOR_CHAT = `// No chat: a server component, so the page has no client code of its own.
export function ShopChat(_props: { inlayUrl: string; agent: string }) {
  return <div style={{ height: 520 }} />;
}
`;

const assistantUiChat = (markdown: boolean) => `"use client";
import { AssistantRuntimeProvider, ComposerPrimitive, MessagePrimitive, ThreadPrimitive, type ToolCallMessagePartComponent } from "@assistant-ui/react";
import { useChatRuntime } from "@assistant-ui/ai-sdk";
${markdown ? `import { MarkdownTextPrimitive } from "@assistant-ui/react-markdown";\nimport remarkGfm from "remark-gfm";\n` : ""}
// The same tool as the @inlay/react page's renderer: its input, its result, and an approval's buttons.
const Calculator: ToolCallMessagePartComponent<{ expression: string }, { result: number }> = ({ args, result, approval, respondToApproval }) => (
  <div className="shop-card">
    <strong>Sum</strong> <code>{args?.expression}</code>
    {result && <span> = {result.result}</span>}
    {approval && approval.approved === undefined && (
      <span>
        <button type="button" onClick={() => void respondToApproval({ approved: true })}>Work it out</button>
        <button type="button" onClick={() => void respondToApproval({ approved: false })}>No thanks</button>
      </span>
    )}
  </div>
);
${markdown ? `const Text = () => <MarkdownTextPrimitive remarkPlugins={[remarkGfm]} />;\n` : ""}const parts = { ${markdown ? "Text, " : ""}tools: { by_name: { calculator: Calculator } } };

function Thread() {
  return (
    <ThreadPrimitive.Root style={{ height: 520, display: "flex", flexDirection: "column" }}>
      <ThreadPrimitive.Viewport style={{ flex: 1, overflowY: "auto" }}>
        <ThreadPrimitive.Messages>
          {({ message }) => (
            <MessagePrimitive.Root data-role={message.role}>
              <MessagePrimitive.Parts components={parts} />
            </MessagePrimitive.Root>
          )}
        </ThreadPrimitive.Messages>
      </ThreadPrimitive.Viewport>
      <ComposerPrimitive.Root>
        <ComposerPrimitive.Input placeholder="Ask Acme" />
        <ComposerPrimitive.Send>Send</ComposerPrimitive.Send>
      </ComposerPrimitive.Root>
    </ThreadPrimitive.Root>
  );
}

export function ShopChat(_props: { inlayUrl: string; agent: string }) {
  // The AI SDK runtime, posting to /api/chat (the README's minimal example).
  const runtime = useChatRuntime();
  return (
    <AssistantRuntimeProvider runtime={runtime}>
      <Thread />
    </AssistantRuntimeProvider>
  );
}
`;

const CHATKIT_CHAT = `"use client";
import { ChatKit, useChatKit } from "@openai/chatkit-react";

export function ShopChat(_props: { inlayUrl: string; agent: string }) {
  const { control } = useChatKit({
    api: {
      async getClientSecret() {
        const response = await fetch("/api/chatkit/session", { method: "POST" });
        return ((await response.json()) as { client_secret: string }).client_secret;
      },
    },
  });
  return <ChatKit control={control} style={{ height: 520 }} />;
}
`;

interface Variant {
  name: string;
  /** app/shop-chat.tsx; undefined keeps the overlay's. */
  chat?: string;
  /** Built in the copy with the comparison packages installed. */
  peers: boolean;
  packages: string;
}

const VARIANTS: Variant[] = [
  { name: "floor (no chat)", chat: FLOOR_CHAT, peers: false, packages: "" },
  { name: "@inlay/react", peers: false, packages: "@inlay/react (packed from this tree)" },
  {
    name: "@assistant-ui/react (primitives, plain text)",
    chat: assistantUiChat(false),
    peers: true,
    packages: `@assistant-ui/react ${PEERS["@assistant-ui/react"]}, @assistant-ui/ai-sdk ${PEERS["@assistant-ui/ai-sdk"]}`,
  },
  {
    name: "@assistant-ui/react (primitives, markdown)",
    chat: assistantUiChat(true),
    peers: true,
    packages: `+ @assistant-ui/react-markdown ${PEERS["@assistant-ui/react-markdown"]}, remark-gfm ${PEERS["remark-gfm"]}`,
  },
  {
    name: "@openai/chatkit-react (wrapper only)",
    chat: CHATKIT_CHAT,
    peers: true,
    packages: `@openai/chatkit-react ${PEERS["@openai/chatkit-react"]} (UI from OpenAI's CDN, not measured)`,
  },
];

/** A child process to its end, its output kept and shown only if it fails. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): void {
  const result = spawnSync(command, args, { cwd, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) {
    throw new Error(`${path.basename(command)} ${args.join(" ")} (in ${cwd}) exited with ${result.status ?? result.signal}:\n${(result.stdout + result.stderr).slice(-4000)}`);
  }
}

const timings: [string, number][] = [];
function timed<T>(name: string, work: () => T): T {
  const started = performance.now();
  const result = work();
  timings.push([name, (performance.now() - started) / 1000]);
  return result;
}
async function timedAsync<T>(name: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await work();
  timings.push([name, (performance.now() - started) / 1000]);
  return result;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });

/**
 * `/` as a signed-in shopper's browser gets it from `next start` (the chat renders only for one, inside
 * the page's dynamic hole). The server runs in a process group of its own, ended by its id.
 */
async function servedPage(app: string, node: string, env: NodeJS.ProcessEnv): Promise<string> {
  const port = await freePort();
  const server = spawn(node, ["node_modules/next/dist/bin/next", "start", "--port", String(port), "--hostname", "127.0.0.1"], {
    cwd: app,
    // Any values: the page passes them to the chat as props; nothing is called while rendering it.
    env: { ...env, INLAY_URL: "http://127.0.0.1:9", INLAY_AGENT: "bench", INLAY_EMBED_SECRET: "bench" },
    stdio: "ignore",
    detached: true,
  });
  try {
    for (let tries = 0; ; tries++) {
      try {
        const response = await fetch(`http://127.0.0.1:${port}/`, { headers: { cookie: "shop_user=bench@example.test" } });
        const html = await response.text();
        if (response.status !== 200 || !html.includes("Signed in as")) throw new Error(`/ answered ${response.status} without the signed-in page`);
        return html;
      } catch (error) {
        if (tries > 120 || server.exitCode !== null) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  } finally {
    if (server.pid !== undefined && server.exitCode === null) process.kill(-server.pid, "SIGTERM");
  }
}

interface Chunk {
  file: string;
  raw: number;
  gzip: number;
}

interface Measured {
  variant: Variant;
  js: Chunk[];
  lazy: Chunk[];
  css: Chunk[];
  notes: string[];
}

const unique = <T>(items: Iterable<T>) => [...new Set(items)];
const sum = (chunks: Chunk[], key: "raw" | "gzip" = "gzip") => chunks.reduce((total, each) => total + each[key], 0);

/**
 * The build's files a page's HTML (or a chunk) names, as paths under .next: static/chunks/… (webpack's
 * have folders: app/page-….js), and webpack's stylesheets static/css/….
 */
const chunksIn = (text: string, ext: "js" | "css") =>
  unique([...text.matchAll(new RegExp(`static/(?:chunks|css)/[\\w./-]+?\\.${ext}(?![\\w.])`, "g"))].map(([file]) => file));
const scriptTags = (html: string) =>
  [...html.matchAll(/<script\b[^>]*>/g)]
    .map(([tag]) => ({ src: /\bsrc="([^"]+)"/.exec(tag)?.[1], noModule: /\bnomodule\b/i.test(tag) }))
    .filter((each): each is { src: string; noModule: boolean } => each.src !== undefined);

interface BuildManifest {
  rootMainFiles: string[];
  polyfillFiles: string[];
}
const readBuildManifest = (next: string) => JSON.parse(readFileSync(path.join(next, "build-manifest.json"), "utf8")) as BuildManifest;

/** Turbopack: rootMainFiles and the layout's and page's entryJSFiles, what Next renders the page's script tags from. */
function turbopackManifestChunks(next: string): string[] {
  const build = readBuildManifest(next);
  const file = path.join(next, "server/app/page_client-reference-manifest.js");
  const context: { __RSC_MANIFEST?: Record<string, { entryJSFiles?: Record<string, string[]> }> } = {};
  runInNewContext(readFileSync(file, "utf8"), context, { filename: file });
  const entries = context.__RSC_MANIFEST?.["/page"]?.entryJSFiles ?? {};
  const segments = ["[project]/app/layout", "[project]/app/page"].flatMap((segment) => entries[segment] ?? []);
  return unique([...build.rootMainFiles, ...segments]).filter((each) => each.endsWith(".js"));
}

/**
 * Chunks the first-load chunks load later (dynamic import()), as chat-bundle finds them. Turbopack writes
 * the paths of an import()'s chunks into its caller; webpack names every import() of the build in
 * react-loadable-manifest.json with its module id, which the caller's code refers to.
 */
function onDemand(next: string, firstLoad: string[], runtime: Set<string>, bundler: Bundler): string[] {
  const loaded = new Set(firstLoad);
  const found = new Set<string>();
  const queue = firstLoad.filter((file) => !runtime.has(file));
  if (bundler === "webpack") {
    const manifest = JSON.parse(readFileSync(path.join(next, "react-loadable-manifest.json"), "utf8")) as Record<string, { id: number; files: string[] }>;
    const code = queue.map((file) => readFileSync(path.join(next, file), "utf8"));
    return Object.values(manifest)
      .filter((entry) => code.some((text) => new RegExp(`[^\\w$.]${entry.id}[^\\w]`).test(text)))
      .flatMap((entry) => entry.files.filter((file) => file.endsWith(".js") && !loaded.has(file)));
  }
  while (queue.length > 0) {
    for (const file of chunksIn(readFileSync(path.join(next, queue.pop()!), "utf8"), "js")) {
      if (loaded.has(file) || found.has(file)) continue;
      found.add(file);
      queue.push(file);
    }
  }
  return [...found];
}

async function measureVariant(app: string, variant: Variant, node: string, env: NodeJS.ProcessEnv, bundler: Bundler): Promise<Measured> {
  const next = path.join(app, ".next");
  const measure = (file: string): Chunk => {
    const data = readFileSync(path.join(next, file));
    return { file, raw: data.length, gzip: gzipped(data) };
  };
  const build = readBuildManifest(next);
  const polyfills = new Set(build.polyfillFiles);
  const served = await timedAsync(`${variant.name}: next start, GET / signed in`, () => servedPage(app, node, env));
  const js = chunksIn(served, "js").filter((file) => !polyfills.has(file));
  const notes: string[] = [];
  const differs = (name: string, other: string[]) => {
    const missing = js.filter((file) => !other.includes(file));
    const extra = other.filter((file) => !js.includes(file));
    if (missing.length + extra.length > 0) notes.push(`${name} differs from the served page: not in it ${missing.join(", ") || "none"}; only in it ${extra.join(", ") || "none"}`);
  };
  const shell = readFileSync(path.join(next, "server/app/index.html"), "utf8");
  differs("the prerendered shell's <script src>", unique(scriptTags(shell).filter((tag) => !tag.noModule).map((tag) => tag.src.replace(/^\/_next\//, ""))));
  // (webpack's manifests list a page's chunks per client module, as chat-bundle reads them: not repeated here.)
  if (bundler === "turbopack") differs("the manifests", turbopackManifestChunks(next));
  const external = scriptTags(served).filter((tag) => !tag.src.startsWith("/_next/"));
  if (external.length > 0) notes.push(`scripts from elsewhere, not measured: ${external.map((tag) => tag.src).join(", ")}`);
  return {
    variant,
    js: js.map(measure),
    lazy: onDemand(next, js, new Set(build.rootMainFiles), bundler).map(measure),
    css: chunksIn(served, "css").map(measure),
    notes,
  };
}

const readVersion = (app: string, name: string): string => {
  const file = path.join(app, "node_modules", name, "package.json");
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version : "absent";
};

/** Every copy of react and react-dom an app has installed (next's own compiled copies are not used by the client build). */
function reactCopies(app: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 6 || !existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      if (name.startsWith(".")) continue;
      const child = path.join(dir, name);
      if (name.startsWith("@")) {
        for (const scoped of readdirSync(child)) walk(path.join(child, scoped, "node_modules"), depth + 1);
        continue;
      }
      if ((name === "react" || name === "react-dom") && existsSync(path.join(child, "package.json"))) {
        found.push(`${path.relative(app, child)}@${(JSON.parse(readFileSync(path.join(child, "package.json"), "utf8")) as { version: string }).version}`);
      }
      walk(path.join(child, "node_modules"), depth + 1);
    }
  };
  walk(path.join(app, "node_modules"), 0);
  return found;
}

export async function vendorBundle(): Promise<void> {
  const started = performance.now();
  const keep = process.argv.includes("--keep");
  // The template's bundler by default; BENCH_BUNDLER=webpack builds every variant with `next build --webpack`
  // (the switch chat-bundle has), whose tree shaking leaves less of the AI SDK in the browser.
  // eslint-disable-next-line no-restricted-properties -- benchmark switch, not app configuration
  const bundler: Bundler = process.env.BENCH_BUNDLER === "webpack" ? "webpack" : "turbopack";
  // The vendor app's Node, as tests/run-all.mjs runs generate.mjs (the AI SDK asks for Node 22).
  const runtimes = (await import(pathToFileURL(path.join(root, "tests/runtimes/install.mjs")).href)) as { installRuntime: (version: string) => string; MAIN_RUNTIME: string };
  const node = runtimes.installRuntime(runtimes.MAIN_RUNTIME);
  const env = {
    // eslint-disable-next-line no-restricted-properties -- the builds inherit the benchmark's environment
    ...process.env,
    PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH}`, // eslint-disable-line no-restricted-properties -- as above
    NEXT_TELEMETRY_DISABLED: "1",
    npm_config_update_notifier: "false",
    // As generate.mjs --build: the template's next/font/google answered locally.
    NEXT_FONT_GOOGLE_MOCKED_RESPONSES: path.join(root, "tests/vendor-app/google-fonts-mock.cjs"),
  };

  // Outside the repository (generate.mjs refuses a folder below a lock file), and with an install cache
  // of its own, so that the tests' cache (node_modules/.cache) is left as it was.
  const work = mkdtempSync(path.join(os.tmpdir(), "inlay-vendor-bundle-run-"));
  const cacheDir = path.join(os.tmpdir(), "inlay-vendor-bundle-cache");
  const base = path.join(work, "app");
  const withPeers = path.join(work, "app-peers");
  console.log(`\nvendor-bundle (${bundler}): apps in ${work}`);
  try {
    // The iframe widget, built now from this tree's sources (esbuild, a few seconds).
    timed("the iframe widget (npm run build:embed)", () => run(path.join(root, "node_modules/.bin/tsx"), ["server/framework/embed/widget-build.ts", "build"], root, env));
    timed("the @inlay tarballs packed, the vendor app generated (generate.mjs --pack)", () =>
      run(node, ["tests/vendor-app/generate.mjs", "--pack", "--out", base, "--overlay", "tests/vendor-app/overlay", "--cache-dir", cacheDir], root, env),
    );
    timed("a copy of it with the comparison packages (npm install --prefer-offline)", () => {
      run("cp", ["-a", base, withPeers], work, env);
      const pins = Object.entries(PEERS).map(([name, version]) => `${name}@${version}`);
      run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--save-exact", "--loglevel=error", ...pins], withPeers, env);
    });

    const results: Measured[] = [];
    for (const variant of VARIANTS) {
      const app = variant.peers ? withPeers : base;
      // The overlay with this variant's chat, in a temporary folder, copied over the app.
      const overlay = path.join(work, "overlays", variant.name.replace(/[^\w]+/g, "-"));
      cpSync(path.join(root, "tests/vendor-app/overlay"), overlay, { recursive: true });
      if (variant.chat !== undefined) writeFileSync(path.join(overlay, "app/shop-chat.tsx"), variant.chat);
      cpSync(overlay, app, { recursive: true, force: true });
      rmSync(path.join(app, ".next"), { recursive: true, force: true });
      timed(`${variant.name}: next build`, () => run(node, ["node_modules/next/dist/bin/next", "build", ...(bundler === "webpack" ? ["--webpack"] : [])], app, env));
      results.push(await measureVariant(app, variant, node, env, bundler));
    }

    // Inlay's iframe widget on the same page: the loader on the page itself, and the iframe's own
    // document (no Next, Preact) once the chat is opened, as chat-bundle measures the embed page.
    const widget = await readWidget("embed");
    const fromPublic = (url: string): Chunk => {
      const data = readFileSync(path.join(root, "public", url));
      return { file: url, raw: data.length, gzip: gzipped(data) };
    };
    const loader = fromPublic("embed.js");
    const iframe = widgetFirstLoad(widget).map(fromPublic);
    const iframeLazy = widget.lazy.map(fromPublic);
    const iframeCss = [fromPublic(widget.stylesheet)];

    const floor = results[0]!;
    const floorJs = sum(floor.js);
    const floorCss = sum(floor.css);
    // Chunk names are content hashes: a name the floor has too is the same code.
    const floorFiles = new Set(floor.js.map((each) => each.file));
    for (const { variant, js, lazy, notes } of results) {
      console.log(`\n${variant.name}: first-load chunks (${bundler})`);
      console.table(
        Object.fromEntries([...js].sort((a, b) => b.gzip - a.gzip).map((each) => [each.file, { raw: kb(each.raw), "gzip -9": kb(each.gzip), "the floor's too": floorFiles.has(each.file) ? "yes" : "" }])),
      );
      if (lazy.length > 0) console.log(`  on demand, after first paint: ${lazy.map((each) => `${each.file} ${kb(each.gzip)}`).join(", ")}`);
      for (const note of notes) console.log(`  note: ${note}`);
    }

    const row = (files: number, js: number, lazy: number, css: number, packages: string) => ({
      "JS files": files,
      "first load (gzip -9)": kb(js),
      "added over the floor": kb(js - floorJs),
      "× floor": (js / floorJs).toFixed(2),
      "on demand after (gzip)": lazy > 0 ? kb(lazy) : "",
      "CSS (gzip)": kb(css),
      "CSS added": kb(css - floorCss),
      packages,
    });
    const table: Record<string, ReturnType<typeof row>> = {};
    for (const { variant, js, lazy, css } of results) table[variant.name] = row(js.length, sum(js), sum(lazy), sum(css), variant.packages);
    table["Inlay iframe widget: embed.js on the page"] = row(floor.js.length + 1, floorJs + loader.gzip, 0, floorCss, "public/embed.js (script tag)");
    table["Inlay iframe widget: + the iframe, opened"] = row(
      floor.js.length + 1 + iframe.length,
      floorJs + loader.gzip + sum(iframe),
      sum(iframeLazy),
      floorCss + sum(iframeCss),
      "the embed page's widget (esbuild, Preact), another document",
    );
    console.log(`\nthe vendor app's page / (${bundler}; gzip -9; added = the variant less the floor, same run)`);
    console.table(table);

    console.log(
      `iframe widget: embed.js ${kb(loader.gzip)}; the iframe's first load ${kb(sum(iframe))} (${iframe.length} files), ` +
        `${kb(sum(iframe) + sum(iframeLazy))} once a message shows; its stylesheet ${kb(sum(iframeCss))}`,
    );
    console.log(`versions: next ${readVersion(base, "next")}, react ${readVersion(base, "react")}, react-dom ${readVersion(base, "react-dom")}; @inlay/react ${readVersion(base, "@inlay/react")}`);
    console.log(`comparison packages as installed: ${Object.keys(PEERS).map((name) => `${name} ${readVersion(withPeers, name)}`).join(", ")}`);
    console.log(`their dependencies as resolved: ${RESOLVED.map((name) => `${name} ${readVersion(withPeers, name)}`).join(", ")}`);
    console.log(`react copies installed: app ${reactCopies(base).join(", ")}; with the comparison packages ${reactCopies(withPeers).join(", ")}`);
  } finally {
    if (keep) console.log(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
  console.log("\ntimes");
  for (const [name, seconds] of timings) console.log(`  ${seconds.toFixed(1).padStart(6)} s  ${name}`);
  console.log(`  ${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s  in all`);
}

