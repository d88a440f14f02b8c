/** @type {import('next').NextConfig} */
const nextConfig = {
  // Loaded at run time from node_modules rather than bundled: PGlite ships its WebAssembly and data
  // files beside its JS, and the Prisma runtime and drivers expect their own module layout.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "pglite-prisma-adapter",
    "@prisma/client",
    "@prisma/adapter-pg",
    "pg",
    "pino",
    // The mail stack (agent inboxes: server/platform/inbound/smtp-server.ts): plain Node packages with
    // their own module layout (mailparser's charsets), loaded as they are.
    "smtp-server",
    "mailparser",
    "nodemailer",
  ],
  // `npm test` (tests/run-all.mjs) type-checks every source, these included, in its first stage
  // (tsc --noEmit, the same tsconfig.json) and sets this for its build: the build need not check again.
  // eslint-disable-next-line no-restricted-properties -- a build switch read by Next, not app configuration
  typescript: { ignoreBuildErrors: process.env.INLAY_BUILD_TYPECHECKED === "1" },
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
