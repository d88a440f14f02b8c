import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";


// The layers (docs/design.md, Layers; docs/architecture.md): nothing imports upward, and the halves stay apart.
// Paths are resolved, so relative and "@/" imports count alike; type-only imports count too. Import
// cycles, which no per-file rule can see, are `npm run check:cycles`'s (.dependency-cruiser.cjs).
const platform = (folder) => `./server/platform/${folder}`;
const platformTop = ["routes", "middleware", "app.ts", "context.ts", "deps.ts", "config.ts", "standalone.ts", "health.ts", "http", "embedding.ts"].map(platform);
const layerZones = [
  // The platform is one half: it builds on the shared floor and lib's env, logger, money format (one way to
  // show an amount to people, on the console's pages and the platform's own) and contracts only.
  {
    target: "./server/platform",
    from: "./server",
    except: ["./platform", "./shared", "./generated"],
    message: "The platform never imports the framework: move what both need to server/shared/.",
  },
  {
    target: "./server/platform",
    from: "./lib",
    except: ["./env.ts", "./logger.ts", "./log-context.ts", "./money.ts", "./schemas"],
    message: "The platform never imports the framework: move what both need to server/shared/ or @inlay/core/schemas.",
  },
  { target: "./server/platform", from: ["./app", "./components"], message: "The platform never imports the framework." },
  // The shared floor imports neither half.
  { target: "./server/shared", from: ["./server/platform", "./server/framework", "./app", "./components"], message: "server/shared is below both halves." },
  // Inside the platform: repositories < infrastructure < services (with models) < the run engine and the
  // entry points that start runs < routes and the process's wiring.
  {
    target: platform("repositories"),
    from: ["infrastructure", "services", "models", "runtime", "entry-points", "jobs", ...platformTop].map((folder) => (folder.startsWith("./") ? folder : platform(folder))),
    message: "Repositories are the bottom of the platform: they import no layer above them.",
  },
  {
    target: platform("infrastructure"),
    from: ["services", "models", "runtime", "entry-points", "jobs"].map(platform).concat(platformTop),
    message: "Infrastructure sits below services: pass what it needs in instead.",
  },
  {
    target: [platform("services"), platform("models")],
    from: [platform("runtime"), platform("entry-points"), platform("jobs"), ...platformTop],
    message: "Services sit below the run engine, the entry points and the job handlers: they call services, never the reverse (pass a port in, as deps.ts does).",
  },
  {
    target: platform("jobs"),
    from: platformTop,
    message: "Job handlers do not import routes or the process's wiring: deps.ts registers them and passes what they need in.",
  },
  {
    target: platform("runtime"),
    from: [platform("entry-points"), ...platformTop],
    message: "The run engine does not import entry points, routes or the process's wiring.",
  },
  {
    target: platform("entry-points"),
    from: [platform("runtime"), ...platformTop],
    message: "Entry points start runs through services/runs/; they do not import the engine, routes or the process's wiring.",
  },
];
// The framework reaches the platform through @inlay/core/platform-client only, except where it embeds the
// platform in its own process (the embedded default): there it imports server/platform/embedding.ts,
// the platform's one entry for that, and nothing else of it.
export default defineConfig([
  ...nextVitals,
  ...nextTs,
  globalIgnores([".next/**", "node_modules/**", "server/generated/**", ".data/**", "test-results/**", "playwright-report/**", "next-env.d.ts", "public/embed-app/**", "dist/**", "packages/*/dist/**"]),
  {
    rules: {
      // House style: configuration is read once, validated, in lib/env.ts.
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "Read configuration through lib/env.ts." },
      ],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
    },
  },
  {
    // Prisma stays behind the repositories: everything else gets a Db handle, plain JSON and mapped rows
    // from them. The framework's own repositories are the *repository.ts files of server/framework/tenancy and
    // server/framework/embed; server/shared/db.ts creates the client (db-errors.ts reads its errors); prisma/ holds
    // the schema's tools and the seed.
    ignores: [
      "server/platform/repositories/**",
      "server/framework/tenancy/*repository.ts",
      "server/framework/embed/*repository.ts",
      "server/framework/demo-app/*repository.ts",
      "server/shared/db.ts",
      "server/shared/db-errors.ts",
      "prisma/**",
      "tests/**",
    ],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@/server/generated/prisma", "@/server/generated/prisma/*", "**/generated/prisma", "**/generated/prisma/*"],
              message: "Only repositories use Prisma: take Db and the JSON types from server/platform/repositories/db.ts (or server/shared/db.ts).",
            },
          ],
        },
      ],
    },
  },
  {
    // Tests poke at JSON the way any client would; typing every response body adds nothing there.
    files: ["tests/**"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    // The platform client runs in browsers and edge runtimes too: web APIs only, and nothing from the
    // server or the framework (vendors use it on its own).
    files: ["packages/core/src/platform-client/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["node:*"], message: "The platform client must run outside Node: use web APIs." },
            { group: ["@/*", "**/server/**"], message: "The client depends only on its package's schemas, zod and eventsource-parser." },
          ],
          paths: ["fs", "path", "crypto", "stream", "buffer", "http", "https", "net", "url", "util", "events", "os", "child_process"].map(
            (name) => ({ name, message: "The platform client must run outside Node: use web APIs." }),
          ),
        },
      ],
      "no-restricted-globals": ["error", { name: "Buffer", message: "Use Uint8Array, TextEncoder and TextDecoder." }, { name: "process", message: "The platform client must run outside Node." }],
    },
  },
  {
    // The chat components are the embeddable ones, loaded on every chat and embed page and in vendors'
    // pages: their JavaScript budget (bench chat-bundle) has no room for zod. Types from the contracts are free.
    files: ["packages/react/src/**", "components/chat/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          paths: [
            { name: "zod", allowTypeImports: true, message: "Keep zod out of the chat's browser bundle." },
            { name: "@inlay/core/chat/contract", allowTypeImports: true, message: "Values the browser needs live in @inlay/core/chat/limits (no zod)." },
          ],
          patterns: [{ group: ["@inlay/core/schemas/*"], allowTypeImports: true, message: "Keep zod out of the chat's browser bundle." }],
        },
      ],
    },
  },
  {
    // A package is built, packed and installed on its own: nothing of the app, only its dependencies.
    files: ["packages/*/src/**"],
    ignores: ["packages/core/src/platform-client/**"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [{ group: ["@/*", "**/server/**", "**/components/**", "**/app/**"], message: "A package imports only its dependencies and the other @inlay packages." }] }],
    },
  },
  {
    files: ["server/**/*.ts", "lib/**/*.ts", "app/**/*.ts", "app/**/*.tsx", "components/**/*.tsx", "components/**/*.ts"],
    rules: { "import/no-restricted-paths": ["error", { zones: layerZones }] },
  },
  {
    files: ["server/**/*.ts", "lib/**/*.ts", "app/**/*.ts", "app/**/*.tsx", "components/**/*.tsx", "components/**/*.ts"],
    ignores: ["server/platform/**", "server/cli/**", "server/cluster/**", "server/platform-build.ts"],
    rules: {
      "import/no-restricted-paths": [
        "error",
        {
          zones: [
            ...layerZones,
            {
              target: ".",
              from: "./server/platform",
              except: ["./embedding.ts"],
              message: "The framework reaches the platform only through @inlay/core/platform-client, or server/platform/embedding.ts where it embeds it.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["lib/env.ts", "playwright.config.ts", ".ci/**", "tests/run-all.mjs", "tests/quick.mjs",
      // A vendor's app (generated by create-next-app, the overlay laid over it): its own configuration, not Inlay's.
      "tests/vendor-app/**"],
    rules: { "no-restricted-properties": "off" },
  },

]);
