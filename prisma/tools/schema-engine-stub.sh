#!/bin/sh
# Stands in for Prisma's native schema engine, which the CLI would otherwise download at
# `prisma generate` (this network cannot reach its host). Generation never calls it; migration SQL is
# produced with @prisma/schema-engine-wasm instead (see prisma/tools/migration.ts).
echo "schema-engine stub: the native engine is not installed here; use 'npm run db:migration' instead" >&2
exit 1
