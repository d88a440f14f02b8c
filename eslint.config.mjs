import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  globalIgnores([".next/**", "node_modules/**", "server/generated/**", ".data/**", "test-results/**", "playwright-report/**", "next-env.d.ts", "public/embed-app/**", "dist/**"]),
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
    // from them. The framework's own repositories are the *repository.ts files of server/tenancy and
    // server/embed; server/db.ts creates the client; prisma/ holds the schema's tools and the seed.
    ignores: [
      "server/platform/repositories/**",
      "server/tenancy/*repository.ts",
      "server/embed/*repository.ts",
      "server/db.ts",
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
              message: "Only repositories use Prisma: take Db and the JSON types from server/platform/repositories/db.ts (or server/db.ts).",
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
    files: ["lib/platform-client/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["node:*"], message: "lib/platform-client must run outside Node: use web APIs." },
            { group: ["@/server/*", "**/server/**", "@/app/*", "@/components/*"], message: "The client depends only on lib/schemas, zod and eventsource-parser." },
          ],
          paths: ["fs", "path", "crypto", "stream", "buffer", "http", "https", "net", "url", "util", "events", "os", "child_process"].map(
            (name) => ({ name, message: "lib/platform-client must run outside Node: use web APIs." }),
          ),
        },
      ],
      "no-restricted-globals": ["error", { name: "Buffer", message: "Use Uint8Array, TextEncoder and TextDecoder." }, { name: "process", message: "lib/platform-client must run outside Node." }],
    },
  },
  {
    // The chat components are the embeddable ones, loaded on every chat and embed page: their
    // JavaScript budget (bench chat-bundle) has no room for zod. Types from the contracts are free.
    files: ["components/chat/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          paths: [
            { name: "zod", allowTypeImports: true, message: "Keep zod out of the chat's browser bundle." },
            { name: "@/lib/chat/contract", allowTypeImports: true, message: "Values the browser needs live in lib/chat/limits.ts (no zod)." },
          ],
          patterns: [{ group: ["@/lib/schemas/*"], allowTypeImports: true, message: "Keep zod out of the chat's browser bundle." }],
        },
      ],
    },
  },
  {
    files: ["lib/env.ts", "playwright.config.ts", ".ci/**", "tests/run-all.mjs", "tests/quick.mjs"],
    rules: { "no-restricted-properties": "off" },
  },
]);
