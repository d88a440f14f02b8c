// Writes and checks migration SQL offline. Prisma's CLI would download a native schema engine for
// `migrate diff`; the same engine ships on npm as WebAssembly, so we drive that one here against an
// in-memory PGlite (its shadow database is another in-memory PGlite).
//
//   npm run db:migration -- <name>   write prisma/migrations/<timestamp>_<name>/migration.sql
//   npm run db:check                 fail when schema.prisma and the migrations disagree
import { mkdirSync, readdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import * as engineModule from "@prisma/schema-engine-wasm/schema_engine_bg";
import { PrismaPGlite } from "pglite-prisma-adapter";

const root = path.resolve(import.meta.dirname, "../..");
const migrationsDir = path.join(root, "prisma/migrations");
const schemaPath = path.join(root, "prisma/schema.prisma");

async function loadEngine(schema: string) {
  // The package's entry imports the .wasm file as an ES module, which Node cannot do yet, so we
  // instantiate the module ourselves and hand it to the wasm-bindgen glue.
  const require = createRequire(import.meta.url);
  const wasmFile = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg").replace(/\.js$/, ".wasm");
  const glue = engineModule as unknown as {
    __wbg_set_wasm(exports: WebAssembly.Exports): void;
  };
  const { instance } = await WebAssembly.instantiate(readFileSync(wasmFile), {
    "./schema_engine_bg.js": engineModule as unknown as WebAssembly.ModuleImports,
  });
  glue.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
  const adapter = bindMigrationAwareSqlAdapterFactory(new PrismaPGlite(new PGlite()));
  return engineModule.SchemaEngine.new({ datamodels: [["schema.prisma", schema]] }, () => {}, adapter);
}

function migrationList(): engineModule.MigrationList {
  const lockPath = path.join(migrationsDir, "migration_lock.toml");
  const dirs = existsSync(migrationsDir)
    ? readdirSync(migrationsDir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort()
    : [];
  return {
    baseDir: migrationsDir,
    lockfile: { path: "migration_lock.toml", content: existsSync(lockPath) ? readFileSync(lockPath, "utf8") : null },
    shadowDbInitScript: "",
    migrationDirectories: dirs.map((dir) => ({
      path: dir,
      migrationFile: {
        path: "migration.sql",
        content: { tag: "ok", value: readFileSync(path.join(migrationsDir, dir, "migration.sql"), "utf8") },
      },
    })),
  };
}

async function pendingSql(): Promise<string> {
  const schema = readFileSync(schemaPath, "utf8");
  const engine = await loadEngine(schema);
  const list = migrationList();
  const result = await engine.diff({
    from: list.migrationDirectories.length > 0 ? { tag: "migrations", ...list } : { tag: "empty" },
    to: { tag: "schemaDatamodel", files: [{ path: "schema.prisma", content: schema }] },
    script: true,
    exitCode: null,
    filters: { externalTables: [], externalEnums: [] },
  });
  const sql = result.stdout ?? "";
  return /^\s*(-- This is an empty migration\.)?\s*$/.test(sql) ? "" : sql;
}

function timestamp(now = new Date()): string {
  return now.toISOString().replace(/[-:T]/g, "").slice(0, 14);
}

async function main() {
  const [command, name] = process.argv.slice(2);
  const sql = await pendingSql();
  if (command === "check") {
    if (sql) {
      console.error("prisma/schema.prisma has changes that no migration records. Run `npm run db:migration -- <name>`:\n");
      console.error(sql);
      process.exit(1);
    }
    console.log("schema.prisma and prisma/migrations agree");
    return;
  }
  if (command !== "new" || !name || !/^[a-z0-9_]+$/.test(name)) {
    console.error("usage: npm run db:migration -- <name>   (name: lower-case letters, digits and _)");
    process.exit(2);
  }
  if (!sql) {
    console.log("schema.prisma and prisma/migrations already agree: no migration written");
    return;
  }
  const dir = path.join(migrationsDir, `${timestamp()}_${name}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "migration.sql"), sql);
  const lockPath = path.join(migrationsDir, "migration_lock.toml");
  if (!existsSync(lockPath)) {
    writeFileSync(lockPath, '# Written by prisma/tools/migration.ts; keep it in version control.\nprovider = "postgresql"\n');
  }
  console.log(`wrote ${path.relative(root, dir)}/migration.sql`);
}

await main();
