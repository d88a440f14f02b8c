// Key rotation: with INLAY_SECRET_KEY_PREVIOUS set, every sealed value is sealed again under the
// current key, once per rotation across the deployment (the job's key names the set of keys, never
// the keys). Values open under any of the keys while this runs; once its "re-sealed" line is logged
// with nothing unreadable, the previous keys can be removed. The platform's columns are
// repositories/sealed-columns.ts; the framework registers its own (server/framework/tenancy/framework-jobs.ts).
import { logger } from "@/lib/logger";
import { deriveKey, openWithKeys, seal, SecretBoxError } from "@/server/shared/secret-box";
import type { PlatformConfig } from "../platform-config";
import type { Db } from "../repositories/db";
import { replaceSealedValue, SEALED_COLUMNS, type SealedColumn, sealedValuesAfter } from "../repositories/sealed-columns";
import { keyringOf, SEALED_FOR } from "../services/sealed-secrets";
import type { JobQueue } from "./queue";

export const RESEAL_JOB = "reseal-secrets";
const BATCH = 200;

/** A sealed column and its keys: the current one first, then the ones it replaced. */
export interface SealedColumnKeys {
  at: SealedColumn;
  keys: readonly Buffer[];
}

export interface ResealResult {
  /** Values found sealed under a previous key (sealed again unless `write` is false). */
  stale: number;
  /** Values that were sealed under a previous key and now are under the current one. */
  resealed: number;
  /** Values no configured key opens ("table.column" each): lost unless a key that sealed them comes back. */
  unreadable: string[];
}

/** The platform's sealed columns with the keys of `config`. */
export const platformSealedColumns = (config: PlatformConfig): SealedColumnKeys[] =>
  SEALED_COLUMNS.map((at) => ({ at, keys: keyringOf(config, SEALED_FOR[at.purpose]) }));

/**
 * Seals every value still under a previous key again under the current one; with `write: false` only
 * counts them (the operator's check before removing a previous key: npm run inlay -- secrets reseal --check).
 */
export async function resealSecrets(prisma: Db, columns: readonly SealedColumnKeys[], options: { write?: boolean } = {}): Promise<ResealResult> {
  const write = options.write ?? true;
  const result: ResealResult = { stale: 0, resealed: 0, unreadable: [] };
  for (const { at, keys } of columns) {
    for (let after = ""; ; ) {
      const batch = await sealedValuesAfter(prisma, at, after, BATCH);
      for (const { key, sealed } of batch) {
        let opened;
        try {
          opened = openWithKeys(keys, sealed);
        } catch (error) {
          if (!(error instanceof SecretBoxError)) throw error;
          result.unreadable.push(`${at.table}.${at.column}`);
          continue;
        }
        if (!opened.stale) continue;
        result.stale++;
        // A value written since the batch was read is under the current key already: left as it is.
        if (write && (await replaceSealedValue(prisma, at, key, sealed, seal(keys[0]!, opened.value)))) result.resealed++;
      }
      if (batch.length < BATCH) break;
      after = batch.at(-1)!.key;
    }
  }
  return result;
}

/** Names a set of keys without revealing them: one job per rotation. */
export const rotationName = (secrets: readonly string[]) =>
  secrets.map((secret) => deriveKey(secret, "key-rotation-name").toString("hex").slice(0, 16)).join(".");

/**
 * Registers the job `name` over `columns()` and, when `secrets` (current first) holds previous keys,
 * enqueues it once for this rotation.
 */
export async function registerReseal(
  jobs: JobQueue,
  prisma: Db,
  options: { name: string; secrets: readonly string[]; columns: () => SealedColumnKeys[]; everywhere?: boolean },
) {
  await jobs.register(
    options.name,
    async () => {
      const result = await resealSecrets(prisma, options.columns());
      const unreadable = [...new Set(result.unreadable)];
      if (unreadable.length > 0) {
        logger.warn({ job: options.name, resealed: result.resealed, unreadable: result.unreadable.length, columns: unreadable }, "re-sealed secrets; some open under no configured key");
      } else {
        logger.info({ job: options.name, resealed: result.resealed }, "re-sealed secrets under the current key: INLAY_SECRET_KEY_PREVIOUS can be removed");
      }
      return { resealed: result.resealed, unreadable: result.unreadable.length };
    },
    { retryLimit: 3, retryDelaySeconds: 30, retryBackoff: true, expireInSeconds: 3600, everywhere: options.everywhere },
  );
  if (options.secrets.length > 1) await jobs.enqueue(options.name, {}, { key: rotationName(options.secrets) });
}

export const registerResealSecrets = (jobs: JobQueue, { prisma, config }: { prisma: Db; config: PlatformConfig }) =>
  registerReseal(jobs, prisma, {
    name: RESEAL_JOB,
    secrets: [config.secretKey, ...(config.previousSecretKeys ?? [])],
    columns: () => platformSealedColumns(config),
  });
