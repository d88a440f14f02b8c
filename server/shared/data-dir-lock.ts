// One process at a time on a PGlite data directory. PGlite is PostgreSQL inside one process, with no
// server to turn a second opener away, and two processes writing one directory corrupt it for good. So
// every opener (the app, `npm run platform`, the operator CLI: all through openDatabase()) first takes
// this lock: a file in the directory naming the holder's pid, created whole or not at all. A file whose
// pid is no longer alive is stale (a process that was killed) and is taken over; the holder removes it
// when it closes the database or exits.
import { linkSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import path from "node:path";

export const LOCK_FILE_NAME = "inlay.pid";

/** A PGlite data directory that cannot be opened: the message says why and what to do instead. */
export class DataDirError extends Error {
  override name = "DataDirError";
}

export interface DataDirLock {
  /** Removes the lock file if it is still this process's (idempotent). */
  release(): void;
}

// Directories this process holds, on globalThis so a module reloaded by Next.js dev still sees them.
const holder = globalThis as unknown as { __inlayHeldDataDirs?: Set<string> };
const heldHere = (holder.__inlayHeldDataDirs ??= new Set<string>());

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, but another user's.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readHolder(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the lock on `dataDir` (an existing directory) or throws a DataDirError naming the holder. */
export function lockDataDir(dataDir: string): DataDirLock {
  const directory = path.resolve(dataDir);
  const file = path.join(directory, LOCK_FILE_NAME);
  if (heldHere.has(directory)) {
    throw new DataDirError(`the data directory ${dataDir} is already open in this process; open it once and share the database`);
  }
  // Written aside and linked into place: a reader never sees a half-written file, and link() fails if
  // the lock exists, so two openers cannot both take it.
  const draft = `${file}.${process.pid}`;
  writeFileSync(draft, `${process.pid}\n`);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(draft, file);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 0) throw error;
      }
      const pid = readHolder(file);
      if (pid !== undefined && pid !== process.pid && isAlive(pid)) {
        throw new DataDirError(
          `the data directory ${dataDir} is in use by a running Inlay (pid ${pid}); stop it, or go through it ` +
            "(its API, e.g. POST /api/v2/operator/credits), or use PostgreSQL (DATABASE_URL), which several processes can share. " +
            `If no such Inlay runs, remove ${file}`,
        );
      }
      // Stale: its process is gone (or it is this pid's, left by an earlier process that had it).
      unlinkSync(file);
    }
  } catch (error) {
    if (error instanceof DataDirError) throw error;
    throw new DataDirError(`cannot lock the data directory ${dataDir} (${(error as Error).message}); check that it is writable`);
  } finally {
    unlinkSync(draft);
  }

  heldHere.add(directory);
  const release = () => {
    process.off("exit", release);
    if (!heldHere.delete(directory)) return;
    if (readHolder(file) !== process.pid) return;
    try {
      unlinkSync(file);
    } catch {
      // Removed already: nothing to release.
    }
  };
  process.on("exit", release);
  return { release };
}
