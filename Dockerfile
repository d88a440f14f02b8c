# One image for every role of the product (INLAY_ROLE): the platform's web, worker and all, and the
# Next.js app (app); docs/design.md "Operations", and docs/deploy.md walks through using it. Its build
# steps are CI's (.ci/run, npm test): the locked install and `npm run build`. CI has no container daemon
# and no base image, so this file is not built there; tests/unit/deploy-manifests.test.ts checks the
# compose and kustomize files that run it.
#
#   docker build -t inlay .
#   docker run -e DATABASE_URL=… -e NEXTAUTH_SECRET=… -e INLAY_ROLE=web -p 4010:4010 inlay
#   docker run -e DATABASE_URL=… -e NEXTAUTH_SECRET=… -e INLAY_ROLE=app -e PLATFORM_BASE_URL=… -e PLATFORM_API_KEY=… -p 3000:3000 inlay
# Node 24: its AsyncLocalStorage (the log context every run pass and request runs in) costs no promise
# hook; on Node 20 and 22 that hook took 30-45 % of a worker's CPU per streamed word
# (bench/results/2026-11-29-worker-cpu.md). Node 22 works too: server/entry.sh gives it the flag.
ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
# The install's postinstall generates the Prisma client from the schema: copied first, so the install
# layer is reused while only the sources change.
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
# The workspace packages' manifests: npm links them (their sources come with the rest below).
COPY packages/core/package.json ./packages/core/
COPY packages/server/package.json ./packages/server/
COPY packages/react/package.json ./packages/react/
# The lock file records every platform's optional native packages (Next's SWC, Tailwind's oxide), so
# `npm ci` installs exactly it on any architecture.
RUN npm ci --no-audit --no-fund
COPY . .
# The Next app (.next/: pages, route handlers and instrumentation compiled, run by `next start`), the
# embed widget (public/embed-app/) and the compiled platform (dist/platform/).
RUN npm run build
# Build-only packages go; no lifecycle script runs again (the Prisma client is already generated).
RUN npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:${NODE_VERSION}-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    INLAY_ROLE=all \
    PGLITE_DATA_DIR=/data/pglite
# Root owns the application (the process cannot change its own code); the node user (uid 1000) runs it.
# The processes read prisma/migrations and docs/errors.md from the working directory at run time; the
# app role reads .next/ and public/.
COPY --from=build /app /app
# Writable: PGlite's data (role all without DATABASE_URL, a trial) and Next's cache (npm start).
RUN mkdir -p /data /app/.next/cache && chown -R node:node /data /app/.next/cache
USER node
# Web and all roles listen on 4010, the app on 3000 (PORT); a worker answers probes on INLAY_PROBE_PORT
# (set it, e.g. 4011).
EXPOSE 4010 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "const e = process.env; fetch('http://127.0.0.1:' + (e.INLAY_PROBE_PORT || (e.INLAY_ROLE === 'app' ? e.PORT || 3000 : 4010)) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The process INLAY_ROLE names (server/entry.sh): app runs `next start`, the others what
# `NODE_ENV=production npm run platform` runs. sh execs it, without npm in between, so SIGTERM reaches
# the process and it drains.
CMD ["sh", "server/entry.sh", "role"]
