#!/bin/sh
# `npm run platform`, `npm run cluster`, `npm run db:migrate`: with NODE_ENV=production the compiled
# JavaScript `npm run build` wrote (dist/platform/<name>.js, server/platform-build.ts), from the
# TypeScript sources through tsx otherwise.
#   sh server/entry.sh <name> <source.ts> [arguments…]
# The image's start (Dockerfile CMD): the process INLAY_ROLE names, listening on every address. app runs
# the compiled Next.js build (`npm start` without npm, on PORT, 3000 by default); web, worker and all the
# compiled platform on port 4010 (a worker listens only on INLAY_PROBE_PORT, if set).
#   sh server/entry.sh role [arguments…]
set -e
# glibc's malloc raises its mmap threshold each time a large block is freed, and from then on keeps
# freed memory in its arenas instead of giving it back: after V8 compiled PGlite's WebAssembly, an
# idle app held ~110 MB that way. A fixed threshold (this value, package.json's start and dev scripts
# set the same) also keeps the trim threshold at 128 KB, so freed memory goes back to the system; it
# cost no CPU a chat turn (bench/results/2026-12-06-chat-path.md). Other C libraries ignore it.
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-4194304}"
# Node 22 runs AsyncLocalStorage (the log context of every pass and request) on a promise hook every
# promise pays for, 30-45 % of a worker's CPU per streamed word; this flag (Node 24's default) frees it.
# Node 20 has no such flag (docs/deploy.md).
if [ "$(node -p 'process.versions.node.split(".")[0]')" = 22 ]; then
  export NODE_OPTIONS="--experimental-async-context-frame${NODE_OPTIONS:+ $NODE_OPTIONS}"
fi
if [ "$1" = role ]; then
  shift
  if [ "$INLAY_ROLE" = app ]; then
    # next start runs .next/ as `next build` compiled it (instrumentation included): no TypeScript loader.
    # SIGTERM is the app's own drain (server/framework/lifecycle.ts), not Next's.
    NEXT_MANUAL_SIG_HANDLE=1 exec node node_modules/next/dist/bin/next start --hostname 0.0.0.0 --port "${PORT:-3000}" --keepAliveTimeout 65000 "$@"
  fi
  set -- standalone server/platform/standalone.ts --host 0.0.0.0 --port 4010 "$@"
fi
name=$1
source=$2
shift 2
if [ "$NODE_ENV" = production ]; then
  if [ ! -f "dist/platform/$name.js" ]; then
    echo "dist/platform/$name.js is missing: run npm run build first (NODE_ENV=production runs the compiled platform)" >&2
    exit 1
  fi
  exec node "dist/platform/$name.js" "$@"
fi
exec tsx "$source" "$@"
