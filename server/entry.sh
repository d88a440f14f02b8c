#!/bin/sh
# `npm run platform`, `npm run cluster`, `npm run db:migrate`: with NODE_ENV=production the compiled
# JavaScript `npm run build` wrote (dist/platform/<name>.js, server/platform-build.ts), from the
# TypeScript sources through tsx otherwise.
#   sh server/entry.sh <name> <source.ts> [arguments…]
set -e
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
