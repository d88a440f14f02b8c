// Bundles page.tsx with React 18.3 (this folder is an npm workspace with React 18 of its own) in place
// of the repository's React 19, and serves it with a session route that mints an Inlay session for one
// shopper (as a vendor's backend does with @inlay/server). Used by tests/e2e/vendor-app.spec.ts.
import { readFile } from "node:fs/promises";
import http from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { build, type Plugin } from "esbuild";
import { createInlayServer } from "@inlay/server";

const root = path.resolve(import.meta.dirname, "../../..");

// Every import of react and react-dom (the page's, @inlay/react's, the AI SDK's hooks') resolves to
// this workspace's React 18: one React in the bundle.
const requireHere = createRequire(path.join(import.meta.dirname, "package.json"));
const react18: Plugin = {
  name: "react-18",
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^react(-dom)?(\/.*)?$/ }, (args) => ({ path: requireHere.resolve(args.path) }));
  },
};

export interface React18Page {
  origin: string;
  close(): Promise<void>;
}

export async function serveReact18Page(options: { inlayUrl: string; secret: string; agent: string; port: number }): Promise<React18Page> {
  const out = await mkdtemp(path.join(os.tmpdir(), "inlay-react18-"));
  await build({
    entryPoints: { page: path.join(import.meta.dirname, "page.tsx") },
    bundle: true,
    splitting: true,
    format: "esm",
    outdir: out,
    minify: true,
    jsx: "automatic",
    tsconfig: path.join(root, "tsconfig.json"),
    plugins: [react18],
    define: { "process.env.NODE_ENV": '"production"' },
    logLevel: "error",
  });
  const inlay = createInlayServer({ url: options.inlayUrl, secret: options.secret });
  const origin = `http://127.0.0.1:${options.port}`;
  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", origin);
    if (request.method === "POST" && url.pathname === "/api/inlay-session") {
      const session = await inlay.sessions.create({ userId: "react18-shopper", email: "r18@shop.test", agent: options.agent, origin });
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(session));
      return;
    }
    if (url.pathname === "/") {
      response.writeHead(200, { "content-type": "text/html" }).end(
        `<!doctype html><html><head><title>React 18 shop</title><link rel="stylesheet" href="/page.css"></head>` +
          `<body data-inlay="${options.inlayUrl}" data-agent="${options.agent}"><div id="root"></div><script type="module" src="/page.js"></script></body></html>`,
      );
      return;
    }
    const file = path.join(out, path.basename(url.pathname));
    try {
      const body = await readFile(file);
      response.writeHead(200, { "content-type": file.endsWith(".css") ? "text/css" : "text/javascript" }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port, "127.0.0.1", resolve));
  return {
    origin,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await rm(out, { recursive: true, force: true });
    },
  };
}
