// secrets reseal: the step of a key rotation that lets the previous keys go (docs/operations.md).
// Rotating: set INLAY_SECRET_KEY to the new key and INLAY_SECRET_KEY_PREVIOUS to the old one(s), restart;
// the platform's reseal jobs then seal every value again under the new key. This does the same work
// here and now (the platform's columns and the framework's), or with --check only counts, and says
// whether INLAY_SECRET_KEY_PREVIOUS can be removed. Keys are never printed.
import { platformSealedColumns, resealSecrets } from "@/server/platform/jobs/reseal-secrets";
import { frameworkSealedColumns } from "@/server/framework/tenancy/sealing";
import { command } from "../command";

export const reseal = command({
  name: "secrets reseal",
  usage: "[--check]",
  summary: "Seal every stored secret again under INLAY_SECRET_KEY, so INLAY_SECRET_KEY_PREVIOUS can be removed",
  details:
    "Run with the new key in INLAY_SECRET_KEY and the old one(s) in INLAY_SECRET_KEY_PREVIOUS (comma-separated), as the\n" +
    "platform runs. Values sealed under an old key are sealed again under the new one; --check only counts them.\n" +
    "Exits 1 while a value is still under an old key (--check) or opens under no configured key.",
  options: { check: { type: "boolean", description: "count, change nothing" } },
  parse: ({ values }) => ({ write: values.check !== true }),
  async run(ctx, { write }) {
    const secrets = [ctx.config.secretKey, ...(ctx.config.previousSecretKeys ?? [])];
    const result = await resealSecrets(ctx.prisma, [...platformSealedColumns(ctx.config), ...frameworkSealedColumns(secrets)], { write });
    const unreadable = countBy(result.unreadable);
    const previous = secrets.length - 1;
    const lines: string[] = [];
    if (write) lines.push(`re-sealed ${result.resealed} value(s) under INLAY_SECRET_KEY`);
    else lines.push(`${result.stale} value(s) still sealed under a key of INLAY_SECRET_KEY_PREVIOUS`);
    for (const [column, n] of Object.entries(unreadable)) lines.push(`${column}: ${n} value(s) open under no configured key (lost unless the key that sealed them comes back)`);
    const done = result.unreadable.length === 0 && (write || result.stale === 0);
    if (done) lines.push(previous > 0 ? "INLAY_SECRET_KEY_PREVIOUS can be removed" : "every value opens under INLAY_SECRET_KEY");
    return {
      json: { check: !write, previous_keys: previous, stale: result.stale, resealed: result.resealed, unreadable, previous_keys_removable: done && previous > 0 },
      text: lines.join("\n"),
      exitCode: done ? 0 : 1,
    };
  },
});

const countBy = (names: string[]) => names.reduce<Record<string, number>>((counts, name) => ({ ...counts, [name]: (counts[name] ?? 0) + 1 }), {});
